// The NVRTC options of one compile: target architecture, register cap, ptxas verbosity,
// macros. to_strings() is the one place that spells them as NVRTC flags; the binary
// cache hashes that list, so two option sets that compile differently never share a key.
#pragma once

#include <fmt/format.h>

#include <string>
#include <vector>

#include "jitgemm/error.hpp"

namespace jitgemm {

struct CompileOptions {
  std::string arch = "sm_90a";            // a real architecture: NVRTC emits a cubin for it
  std::string cpp_standard = "c++17";
  int max_registers = 0;                  // --maxrregcount; 0: no cap
  bool ptxas_verbose = true;              // --ptxas-options=-v: the log carries registers and spills
  bool fast_math = false;                 // --use_fast_math
  bool line_info = false;                 // -lineinfo (for profilers)
  std::vector<std::string> defines;       // "NAME" or "NAME=VALUE", passed as -D
  std::vector<std::string> include_dirs;  // --include-path
  std::vector<std::string> extra;         // appended verbatim

  // The NVRTC option list, e.g. {"--gpu-architecture=sm_90a", "-std=c++17",
  // "--ptxas-options=-v", "-DBLOCK_M=128"}. Throws InvalidArgument for an arch that is
  // not "sm_..." (a compute_ target yields no cubin) or a register cap outside 0..255.
  std::vector<std::string> to_strings() const {
    if (!arch.starts_with("sm_"))
      throw InvalidArgument(fmt::format("CompileOptions: arch={} is not a real architecture (use sm_XX, e.g. "
                                        "sm_90a, so NVRTC emits a cubin)",
                                        arch));
    if (max_registers < 0 || max_registers > 255)
      throw InvalidArgument(fmt::format("CompileOptions: max_registers={} is outside 0..255", max_registers));
    std::vector<std::string> out;
    out.push_back("--gpu-architecture=" + arch);
    out.push_back("-std=" + cpp_standard);
    if (ptxas_verbose) out.push_back("--ptxas-options=-v");
    if (max_registers > 0) out.push_back(fmt::format("--maxrregcount={}", max_registers));
    if (fast_math) out.push_back("--use_fast_math");
    if (line_info) out.push_back("-lineinfo");
    for (const std::string& d : defines) out.push_back("-D" + d);
    for (const std::string& dir : include_dirs) out.push_back("--include-path=" + dir);
    out.insert(out.end(), extra.begin(), extra.end());
    return out;
  }
};

}  // namespace jitgemm
