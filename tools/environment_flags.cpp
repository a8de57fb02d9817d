#include "environment_flags.hpp"

namespace jitgemm {

Environments EnvironmentFlags::over(Environments base) const {
  if (driver > 0) base.driver_version = driver;
  if (nvrtc > 0) base.nvrtc_version = nvrtc;
  if (!jitgemm_version.empty()) base.jitgemm_version = jitgemm_version;
  if (!template_hash.empty())
    for (KernelFamily family : kKernelFamilies) base.template_hashes[family] = template_hash;
  return base;
}

void add_environment_flags(CLI::App& cmd, EnvironmentFlags& env) {
  cmd.add_option("--driver", env.driver, "current driver version (cuDriverGetVersion, e.g. 12040)");
  cmd.add_option("--nvrtc", env.nvrtc, "current NVRTC version (e.g. 12040)");
  cmd.add_option("--template-hash", env.template_hash, "current kernel template hash (every family)");
  cmd.add_option("--jitgemm-version", env.jitgemm_version, "current jitgemm version");
}

}  // namespace jitgemm
