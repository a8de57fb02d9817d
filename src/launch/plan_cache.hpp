// The Runtime's launch plans, one per (config, problem key), made on first use and kept: a
// repeated call of a shape neither recomputes the workspace layout nor the geometry.
// Thread-safe.
//
//   LaunchPlan plan = plans.get(launcher, kernel.function, config, key);
#pragma once

#include <cstddef>
#include <mutex>
#include <unordered_map>

#include "codegen/kernel_config.hpp"
#include "exec/gemm_launch.hpp"
#include "exec/launch_plan.hpp"
#include "problem/problem_key.hpp"

namespace jitgemm {

class PlanCache {
 public:
  // Plans kept; the cache is emptied when it is full (callers' shapes are unbounded).
  static constexpr size_t kMaxPlans = 4096;

  // The plan of `config` on `key` (GemmLauncher::plan on a miss); InvalidArgument /
  // NotSupported when it cannot run.
  LaunchPlan get(GemmLauncher& launcher, const cuda::Function& main, const KernelConfig& config, const ProblemKey& key);
  size_t size() const;

 private:
  struct Key {
    KernelConfig config;
    ProblemKey problem;
    friend bool operator==(const Key&, const Key&) = default;
  };
  struct KeyHash {
    size_t operator()(const Key& k) const noexcept {
      return KernelConfigHash{}(k.config) * 0x9e3779b97f4a7c15ull ^ ProblemKeyHash{}(k.problem);
    }
  };

  mutable std::mutex mutex_;
  std::unordered_map<Key, LaunchPlan, KeyHash> plans_;
};

}  // namespace jitgemm
