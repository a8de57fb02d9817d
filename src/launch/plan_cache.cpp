#include "launch/plan_cache.hpp"

namespace jitgemm {

std::shared_ptr<const LaunchPlan> PlanCache::get(GemmLauncher& launcher, const cuda::Function& main,
                                                 const KernelConfig& config, const ProblemKey& key) {
  if (std::shared_ptr<const LaunchPlan> seen = find(config, key)) return seen;
  LaunchPlan plan = launcher.plan(main, config, key);  // outside the lock: may query the driver
  cuda::DeviceBuffer work_list;
  if (!plan.work_words.empty()) {
    const size_t bytes = sizeof(int32_t) * plan.work_words.size();
    work_list = cuda::DeviceBuffer(bytes);
    work_list.copy_from_host(plan.work_words.data(), bytes);
    plan.work_list_device = work_list.get();
  }
  std::lock_guard lock(mutex_);
  if (auto it = plans_.find({config, key}); it != plans_.end()) return it->second;  // another thread won
  if (plans_.size() >= kMaxPlans) plans_.clear();
  if (work_list.size() > 0) work_lists_.push_back(std::move(work_list));
  auto shared = std::make_shared<const LaunchPlan>(std::move(plan));
  plans_.emplace(Key{config, key}, shared);
  return shared;
}

std::shared_ptr<const LaunchPlan> PlanCache::find(const KernelConfig& config, const ProblemKey& key) const {
  std::lock_guard lock(mutex_);
  if (auto it = plans_.find({config, key}); it != plans_.end()) return it->second;
  return nullptr;
}

size_t PlanCache::size() const {
  std::lock_guard lock(mutex_);
  return plans_.size();
}

}  // namespace jitgemm
