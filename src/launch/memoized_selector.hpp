// The Runtime's serving table: the tuning database and the serving policy (lookup in
// database/serving_policy.hpp), memoized per problem key so that a repeated gemm call neither
// scans the records nor formats the decision's explanation. lookup's other inputs (this
// device, this machine's Environments) are fixed for the Runtime's life, and every change to
// the database goes through this class, which forgets every memoized decision: a memoized
// decision is always the one lookup would make now.
//
//   MemoizedSelector selector(TuningDatabase::load(path), device, environments);
//   const ServingDecision& d = selector.select(key);   // scans on the first call for `key` only
//   selector.upsert(record);                            // a new record: the next select() scans again
//
// Not thread-safe: the Runtime holds its database mutex around every call.
#pragma once

#include <cstddef>
#include <unordered_map>

#include "database/environments.hpp"
#include "database/serving_policy.hpp"
#include "database/tuning_database.hpp"
#include "problem/problem_key.hpp"

namespace jitgemm {

class MemoizedSelector {
 public:
  // Decisions kept; the memo is emptied when it is full (callers' shapes are unbounded).
  static constexpr size_t kMaxMemoized = 4096;

  MemoizedSelector(TuningDatabase database, DeviceKey device, Environments environments);

  // lookup(database(), device, key, environments), memoized per key. The reference is valid
  // until the next call of select() or upsert().
  const ServingDecision& select(const ProblemKey& key);
  // Stores `record` (replacing the one with the same key) and forgets every decision.
  void upsert(TuningRecord record);

  const TuningDatabase& database() const noexcept { return database_; }
  const Environments& environments() const noexcept { return environments_; }
  size_t memoized() const noexcept { return memo_.size(); }

 private:
  TuningDatabase database_;
  DeviceKey device_;
  Environments environments_;
  std::unordered_map<ProblemKey, ServingDecision, ProblemKeyHash> memo_;
};

}  // namespace jitgemm
