#include "compile/compile_options.hpp"

#include <fmt/format.h>
#include <nvrtc.h>

#include "jitgemm/error.hpp"

namespace jitgemm {

bool CompileOptions::nvrtc_has_no_cache_option() noexcept {
  int major = 0, minor = 0;
  return nvrtcVersion(&major, &minor) == NVRTC_SUCCESS && major >= 13;
}

std::vector<std::string> CompileOptions::to_strings() const {
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
  if (!nvrtc_cache && nvrtc_has_no_cache_option()) out.push_back("--no-cache");
  for (const std::string& d : defines) out.push_back("-D" + d);
  for (const std::string& dir : include_dirs) out.push_back("--include-path=" + dir);
  out.insert(out.end(), extra.begin(), extra.end());
  return out;
}

}  // namespace jitgemm
