// The Runtime's launch plans, one per (config, problem key), made on first use and kept: a
// repeated call of a shape neither recomputes the workspace layout nor the geometry, and a
// plan's work list is uploaded once, to a device copy the kernel reads in place (so a launch
// copies nothing from the host and can be captured in a CUDA graph). Thread-safe.
//
// Plans are shared and immutable: a call of a seen shape takes a reference, copies nothing.
//
//   std::shared_ptr<const LaunchPlan> plan = plans.get(launcher, kernel.function, config, key);
//   if (plans.find(config, key)) ...   // made before? (never touches the device)
#pragma once

#include <cstddef>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <vector>

#include "codegen/kernel_config.hpp"
#include "common/hash.hpp"
#include "cuda/device_buffer.hpp"
#include "exec/gemm_launch.hpp"
#include "exec/launch_plan.hpp"
#include "problem/problem_key.hpp"

namespace jitgemm {

class PlanCache {
 public:
  // Plans kept; the cache is emptied when it is full (callers' shapes are unbounded).
  static constexpr size_t kMaxPlans = 4096;

  // The plan of `config` on `key` (GemmLauncher::plan and the work list's upload on a miss);
  // InvalidArgument / NotSupported when it cannot run.
  std::shared_ptr<const LaunchPlan> get(GemmLauncher& launcher, const cuda::Function& main, const KernelConfig& config,
                                        const ProblemKey& key);
  // The plan if one was made before (else null); nothing is computed or uploaded.
  std::shared_ptr<const LaunchPlan> find(const KernelConfig& config, const ProblemKey& key) const;
  size_t size() const;

 private:
  struct Key {
    KernelConfig config;
    ProblemKey problem;
    friend bool operator==(const Key&, const Key&) = default;
  };
  struct KeyHash {
    size_t operator()(const Key& k) const noexcept {
      return FieldHash().add(KernelConfigHash{}(k.config)).add(ProblemKeyHash{}(k.problem)).value();
    }
  };

  mutable std::mutex mutex_;
  std::unordered_map<Key, std::shared_ptr<const LaunchPlan>, KeyHash> plans_;
  // The plans' device work lists. Kept when the map is emptied: a captured CUDA graph may
  // still read one, so they live as long as the Runtime.
  std::vector<cuda::DeviceBuffer> work_lists_;
};

}  // namespace jitgemm
