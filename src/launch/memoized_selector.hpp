// The Runtime's serving table: the tuning database and select_kernel, memoized per problem
// key so that a repeated gemm call neither scans the records nor formats the lookup's
// explanation. select_kernel's other inputs (this device, the environment of each kernel
// family) are fixed for the Runtime's life, and every change to the database goes through
// this class, which forgets every memoized selection: a memoized selection is always the
// one select_kernel would make now.
//
//   MemoizedSelector selector(TuningDatabase::load(path), device, environments);
//   Selection s = selector.select(key);   // scans on the first call for `key` only
//   selector.upsert(record);              // a new record: the next select() scans again
//
// Not thread-safe: the Runtime holds its database mutex around every call.
#pragma once

#include <cstddef>
#include <unordered_map>

#include "database/tuning_database.hpp"
#include "launch/kernel_selector.hpp"
#include "problem/problem_key.hpp"

namespace jitgemm {

class MemoizedSelector {
 public:
  // Selections kept; the memo is emptied when it is full (callers' shapes are unbounded).
  static constexpr size_t kMaxMemoized = 4096;

  MemoizedSelector(TuningDatabase database, DeviceKey device, Environments environments);

  // select_kernel(database(), device, key, environments), memoized per key.
  Selection select(const ProblemKey& key);
  // Stores `record` (replacing the one with the same key) and forgets every selection.
  void upsert(TuningRecord record);

  const TuningDatabase& database() const noexcept { return database_; }
  size_t memoized() const noexcept { return memo_.size(); }

 private:
  TuningDatabase database_;
  DeviceKey device_;
  Environments environments_;
  std::unordered_map<ProblemKey, Selection, ProblemKeyHash> memo_;
};

}  // namespace jitgemm
