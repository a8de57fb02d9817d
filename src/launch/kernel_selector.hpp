// The serving policy of Runtime::gemm: which kernel config runs a problem.
//   1. exact:   a record for this device and problem key
//   2. nearest: the closest record of the same kind (precision, transposes, structure,
//               fill) on this device, by |log2| distance of M, N, K, when it is within a
//               factor of two in each; its tiles, with the K split re-derived for the shape
//   3. default: codegen's untuned_config (documented in candidate_space.hpp): the
//               default_config heuristic; tf32x3 / tf32 products too small, skinny or long
//               for the wgmma kernels run the mma.sync kernel of their mode
// Records whose environment (driver, NVRTC, template hash, jitgemm version) differs are
// still served and counted as stale; re-tune with jitgemm-tune to refresh them.
#pragma once

#include <map>

#include "codegen/kernel_config.hpp"
#include "database/tuning_database.hpp"
#include "jitgemm/runtime.hpp"

namespace jitgemm {

struct Selection {
  KernelConfig config;
  ServeRule rule = ServeRule::Default;
  bool stale = false;
};

// This machine's environment for records of each kernel family (the template hash
// differs per family).
using Environments = std::map<KernelFamily, EnvironmentKey>;

Selection select_kernel(const TuningDatabase& database, const DeviceKey& device, const ProblemKey& key,
                        const Environments& environments);

}  // namespace jitgemm
