// What a Runtime needs to launch one problem key, worked out once: the serving decision
// (database record or default), the loaded kernel, its launch plan and the plan's kernels.
// Immutable once made and shared (std::shared_ptr) by the threads' serve caches and GemmPlans,
// so a repeated call finds everything in one lookup.
//
// ThreadServeCache is each thread's table of the problems it served last: a hit takes no lock
// and copies nothing. Entries belong to one owner (a Runtime's serial number, never reused)
// and one generation of its database (bumped when a tune adds a record): an entry of another
// owner or an older generation never matches.
//
//   if (const ServedProblem* s = ThreadServeCache::find(owner, generation, key)) launch(*s);
//   else ThreadServeCache::remember(owner, generation, make_served(key));
#pragma once

#include <cstdint>
#include <memory>

#include "database/serving_policy.hpp"
#include "exec/gemm_launch.hpp"
#include "exec/launch_plan.hpp"
#include "problem/problem_key.hpp"

namespace jitgemm {

struct ServedProblem {
  ProblemKey key;
  ServingRule rule = ServingRule::Default;
  bool stale = false;  // the record's environment differs from this machine's
  std::shared_ptr<const LaunchPlan> plan;
  PlanKernels kernels;  // valid while the owning Runtime lives
};

class ThreadServeCache {
 public:
  // Slots per thread, direct-mapped by the key's hash.
  static constexpr size_t kSlots = 32;

  // The calling thread's entry for (owner, generation, key), or null. Valid until this thread's
  // next remember().
  static const ServedProblem* find(uint64_t owner, uint64_t generation, const ProblemKey& key) noexcept;
  // Keeps `served` for its key in the calling thread's slot for it (replacing what was there).
  static void remember(uint64_t owner, uint64_t generation, std::shared_ptr<const ServedProblem> served) noexcept;
  // A serial number for a new owner: never 0, never repeated in this process.
  static uint64_t new_owner() noexcept;
};

}  // namespace jitgemm
