#include "launch/memoized_selector.hpp"

#include <utility>

namespace jitgemm {

MemoizedSelector::MemoizedSelector(TuningDatabase database, DeviceKey device, Environments environments)
    : database_(std::move(database)), device_(std::move(device)), environments_(std::move(environments)) {}

const ServingDecision& MemoizedSelector::select(const ProblemKey& key) {
  if (auto it = memo_.find(key); it != memo_.end()) return it->second;
  if (memo_.size() >= kMaxMemoized) memo_.clear();
  return memo_.emplace(key, lookup(database_, device_, key, environments_)).first->second;
}

void MemoizedSelector::upsert(TuningRecord record) {
  database_.upsert(std::move(record));
  memo_.clear();
}

}  // namespace jitgemm
