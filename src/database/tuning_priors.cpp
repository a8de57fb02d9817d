// tuning_priors: what the database knows about a problem, for the budgeted search (see
// tuning_priors.hpp).
#include "database/tuning_priors.hpp"

#include <algorithm>
#include <utility>

#include "database/shape_distance.hpp"

namespace jitgemm {

std::vector<KernelConfig> tuning_priors(const TuningDatabase& database, const DeviceKey& device,
                                        const ProblemKey& key) {
  std::vector<KernelConfig> priors;
  auto add = [&](const KernelConfig& c) {
    if (priors.size() < kMaxPriors && std::find(priors.begin(), priors.end(), c) == priors.end()) priors.push_back(c);
  };
  if (const TuningRecord* sibling = database.sibling_record(device, key); sibling != nullptr) add(sibling->config);
  std::vector<std::pair<double, const TuningRecord*>> near;
  for (const TuningRecord& r : database.records())
    if (r.device == device && r.problem.same_kind(key)) near.emplace_back(size_distance(r.problem, key), &r);
  std::sort(near.begin(), near.end(), [](const auto& a, const auto& b) {
    return a.first != b.first ? a.first < b.first : a.second->key() < b.second->key();
  });
  for (const auto& [distance, r] : near) add(r->config);
  return priors;
}

std::optional<KernelConfig> tuning_incumbent(const TuningDatabase& database, const DeviceKey& device,
                                             const ProblemKey& key) {
  const RecordMatch match = database.match(device, key);
  if (match.rule != RecordMatch::Rule::Exact) return std::nullopt;
  return match.record->config;
}

}  // namespace jitgemm
