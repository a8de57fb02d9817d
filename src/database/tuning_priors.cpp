// tuning_priors: what the database knows about a problem, for the budgeted search (see
// tuning_priors.hpp).
#include "database/tuning_priors.hpp"

#include <algorithm>
#include <utility>

#include "database/shape_distance.hpp"

namespace jitgemm {

std::vector<KernelConfig> tuning_priors(const std::vector<TuningRecord>& records, const DeviceKey& device,
                                        const ProblemKey& key) {
  std::vector<KernelConfig> priors;
  auto add = [&](const KernelConfig& c) {
    if (priors.size() < kMaxPriors && std::find(priors.begin(), priors.end(), c) == priors.end()) priors.push_back(c);
  };
  const TuningRecord* sibling = nullptr;  // the first in the given order
  std::vector<std::pair<double, const TuningRecord*>> near;
  for (const TuningRecord& r : records) {
    if (sibling == nullptr && is_sibling(r.device, device) && r.problem == key) sibling = &r;
    if (r.device == device && r.problem.same_kind(key)) near.emplace_back(size_distance(r.problem, key), &r);
  }
  std::sort(near.begin(), near.end(), [](const auto& a, const auto& b) {
    return a.first != b.first ? a.first < b.first : a.second->key() < b.second->key();
  });
  if (sibling != nullptr) add(sibling->config);
  for (const auto& [distance, r] : near) add(r->config);
  return priors;
}

}  // namespace jitgemm
