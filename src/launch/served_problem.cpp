#include "launch/served_problem.hpp"

#include <array>
#include <atomic>
#include <utility>

namespace jitgemm {
namespace {

struct Slot {
  uint64_t owner = 0;  // 0: empty
  uint64_t generation = 0;
  std::shared_ptr<const ServedProblem> served;
};

std::array<Slot, ThreadServeCache::kSlots>& slots() noexcept {
  thread_local std::array<Slot, ThreadServeCache::kSlots> table;
  return table;
}

size_t slot_of(const ProblemKey& key) noexcept { return ProblemKeyHash{}(key) % ThreadServeCache::kSlots; }

}  // namespace

const ServedProblem* ThreadServeCache::find(uint64_t owner, uint64_t generation, const ProblemKey& key) noexcept {
  const Slot& s = slots()[slot_of(key)];
  if (s.owner != owner || s.generation != generation || s.served == nullptr || !(s.served->key == key)) return nullptr;
  return s.served.get();
}

void ThreadServeCache::remember(uint64_t owner, uint64_t generation,
                                std::shared_ptr<const ServedProblem> served) noexcept {
  if (served == nullptr) return;
  Slot& s = slots()[slot_of(served->key)];
  s.owner = owner;
  s.generation = generation;
  s.served = std::move(served);
}

uint64_t ThreadServeCache::new_owner() noexcept {
  static std::atomic<uint64_t> next{1};
  return next.fetch_add(1, std::memory_order_relaxed);
}

}  // namespace jitgemm
