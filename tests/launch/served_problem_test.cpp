// ThreadServeCache: a thread finds what it remembered for the same key, owner and generation,
// and nothing for a key that differs in a vector width (an operand's alignment class), another
// owner, an older generation, or on another thread.
#include <gtest/gtest.h>

#include <thread>

#include "launch/served_problem.hpp"

namespace jitgemm {
namespace {

std::shared_ptr<const ServedProblem> served(const ProblemKey& key) {
  auto s = std::make_shared<ServedProblem>();
  s->key = key;
  return s;
}

ProblemKey key_of(int64_t m) {
  ProblemKey k;
  k.precision = Precision::TF32x3;
  k.m = m, k.n = 256, k.k = 512;
  return k;
}

TEST(ThreadServeCache, SameKeyFindsTheSameObject) {
  const uint64_t owner = ThreadServeCache::new_owner();
  const ProblemKey key = key_of(128);
  EXPECT_EQ(ThreadServeCache::find(owner, 0, key), nullptr);
  const auto s = served(key);
  ThreadServeCache::remember(owner, 0, s);
  EXPECT_EQ(ThreadServeCache::find(owner, 0, key), s.get());
  EXPECT_EQ(ThreadServeCache::find(owner, 0, key_of(128)), s.get());
}

TEST(ThreadServeCache, AlignmentClassOwnerAndGenerationMiss) {
  const uint64_t owner = ThreadServeCache::new_owner();
  const ProblemKey key = key_of(192);
  ThreadServeCache::remember(owner, 3, served(key));
  ProblemKey unaligned_a = key;
  unaligned_a.vec_a = 1;
  EXPECT_EQ(ThreadServeCache::find(owner, 3, unaligned_a), nullptr);
  EXPECT_EQ(ThreadServeCache::find(owner, 4, key), nullptr);  // the database changed since
  EXPECT_EQ(ThreadServeCache::find(ThreadServeCache::new_owner(), 3, key), nullptr);
  const auto other = served(unaligned_a);
  ThreadServeCache::remember(owner, 3, other);
  EXPECT_EQ(ThreadServeCache::find(owner, 3, unaligned_a), other.get());  // a new object for the new class
}

TEST(ThreadServeCache, OwnersAreNeverZeroOrRepeated) {
  const uint64_t a = ThreadServeCache::new_owner(), b = ThreadServeCache::new_owner();
  EXPECT_NE(a, 0u);
  EXPECT_NE(a, b);
}

TEST(ThreadServeCache, ThreadsDoNotShare) {
  const uint64_t owner = ThreadServeCache::new_owner();
  const ProblemKey key = key_of(320);
  ThreadServeCache::remember(owner, 0, served(key));
  const ServedProblem* seen = reinterpret_cast<const ServedProblem*>(1);
  std::thread([&] { seen = ThreadServeCache::find(owner, 0, key); }).join();
  EXPECT_EQ(seen, nullptr);
  EXPECT_NE(ThreadServeCache::find(owner, 0, key), nullptr);
}

}  // namespace
}  // namespace jitgemm
