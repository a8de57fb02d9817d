#include "launch/plan_cache.hpp"

namespace jitgemm {

LaunchPlan PlanCache::get(GemmLauncher& launcher, const cuda::Function& main, const KernelConfig& config,
                          const ProblemKey& key) {
  Key k{config, key};
  {
    std::lock_guard lock(mutex_);
    if (auto it = plans_.find(k); it != plans_.end()) return it->second;
  }
  LaunchPlan plan = launcher.plan(main, config, key);  // outside the lock: may query the driver
  std::lock_guard lock(mutex_);
  if (plans_.size() >= kMaxPlans) plans_.clear();
  plans_.emplace(std::move(k), plan);
  return plan;
}

size_t PlanCache::size() const {
  std::lock_guard lock(mutex_);
  return plans_.size();
}

}  // namespace jitgemm
