// The NVRTC options of one compile: target architecture, register cap, ptxas verbosity,
// macros. to_strings() is the one place that spells them as NVRTC flags; the binary
// cache hashes that list, so two option sets that compile differently never share a key.
#pragma once

#include <string>
#include <vector>

namespace jitgemm {

struct CompileOptions {
  std::string arch = "sm_90a";            // a real architecture: NVRTC emits a cubin for it
  std::string cpp_standard = "c++17";
  int max_registers = 0;                  // --maxrregcount; 0: no cap
  bool ptxas_verbose = true;              // --ptxas-options=-v: the log carries registers and spills
  bool fast_math = false;                 // --use_fast_math
  bool line_info = false;                 // -lineinfo (for profilers)
  // NVRTC 13 may serve a compile from the driver's compute cache, and then its log has no
  // ptxas lines (no registers, no spills). Off by default (--no-cache): BinaryCache caches.
  bool nvrtc_cache = false;
  std::vector<std::string> defines;       // "NAME" or "NAME=VALUE", passed as -D
  std::vector<std::string> include_dirs;  // --include-path
  std::vector<std::string> extra;         // appended verbatim

  // NVRTC 13 introduced --no-cache together with its use of the driver's cache.
  static bool nvrtc_has_no_cache_option() noexcept;

  // The NVRTC option list, e.g. {"--gpu-architecture=sm_90a", "-std=c++17",
  // "--ptxas-options=-v", "--no-cache", "-DBLOCK_M=128"}. Throws InvalidArgument for an
  // arch that is not "sm_..." (a compute_ target yields no cubin) or a register cap
  // outside 0..255.
  std::vector<std::string> to_strings() const;
};

}  // namespace jitgemm
