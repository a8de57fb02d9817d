// The Runtime's memo of serving decisions: the same answers as lookup (the serving policy),
// and forgotten whenever the database changes.
#include "launch/memoized_selector.hpp"

#include <gtest/gtest.h>

#include <fmt/format.h>

#include "codegen/candidate_space.hpp"
#include "database/environment_samples.hpp"
#include "database/record_samples.hpp"
#include "problem/problem_key_samples.hpp"

namespace jitgemm {
namespace {

using testing::kH100;
using testing::kH200;
using testing::sample_problem;
using testing::sample_record;

Environments environments() { return testing::environments_of(testing::kEnv); }

void expect_same(const ServingDecision& a, const ServingDecision& b, const ProblemKey& key) {
  EXPECT_EQ(a.config, b.config) << key.canonical();
  EXPECT_EQ(a.rule, b.rule) << key.canonical();
  EXPECT_EQ(a.record, b.record) << key.canonical();
  EXPECT_EQ(a.staleness, b.staleness) << key.canonical();
  EXPECT_EQ(a.explanation, b.explanation) << key.canonical();
}

TEST(MemoizedSelector, AnswersAsLookupAndMemoizesEachKeyOnce) {
  TuningDatabase db;
  db.upsert(sample_record(sample_problem(1024, 1024, 1024)));
  db.upsert(sample_record(sample_problem(1024, 1024, 1024), kH200));
  MemoizedSelector selector(db, kH100, environments());
  // Exact, nearest, default (too far away) and default (another kind).
  ProblemKey transposed = sample_problem(1024, 1024, 1024);
  transposed.trans_a = Op::T;
  const ProblemKey keys[] = {sample_problem(1024, 1024, 1024), sample_problem(1500, 1024, 1024),
                             sample_problem(8192, 1024, 1024), transposed};
  for (int round = 0; round < 2; ++round)
    for (const ProblemKey& key : keys)
      expect_same(selector.select(key), lookup(selector.database(), kH100, key, environments()), key);
  EXPECT_EQ(selector.memoized(), 4u);
  EXPECT_EQ(selector.select(keys[0]).rule, ServingRule::Exact);
  EXPECT_EQ(selector.select(keys[1]).rule, ServingRule::Nearest);
  EXPECT_EQ(selector.select(keys[2]).rule, ServingRule::Default);
}

TEST(MemoizedSelector, KeysDifferingInAnyFieldAreMemoizedApart) {
  const ProblemKey base = sample_problem(4096, 4096, 4096);
  TuningDatabase db;
  db.upsert(sample_record(base));
  MemoizedSelector selector(db, kH100, environments());
  EXPECT_EQ(selector.select(base).rule, ServingRule::Exact);
  const std::vector<ProblemKey> keys = testing::one_field_variants(base);
  for (const ProblemKey& key : keys) {
    const ServingDecision s = selector.select(key);
    expect_same(s, lookup(selector.database(), kH100, key, environments()), key);
    EXPECT_NE(s.rule, ServingRule::Exact) << key.canonical();
  }
  EXPECT_EQ(selector.memoized(), keys.size() + 1);
}

TEST(MemoizedSelector, ATunedRecordIsServedAtOnce) {
  MemoizedSelector selector(TuningDatabase{}, kH100, environments());
  const ProblemKey key = sample_problem(2048, 512, 4096);
  EXPECT_EQ(selector.select(key).rule, ServingRule::Default);
  EXPECT_EQ(selector.select(key).config, untuned_config(key));

  TuningRecord record = sample_record(key);
  selector.upsert(record);
  EXPECT_EQ(selector.memoized(), 0u);
  ServingDecision s = selector.select(key);
  EXPECT_EQ(s.rule, ServingRule::Exact);
  EXPECT_EQ(s.config, record.config);
  EXPECT_FALSE(s.stale());
  EXPECT_EQ(selector.database().size(), 1u);

  // A re-tune with other tiles replaces the record and the memoized selection.
  record.config = testing::sample_config(64, 4);
  selector.upsert(record);
  EXPECT_EQ(selector.select(key).config, record.config);
  EXPECT_EQ(selector.database().size(), 1u);
}

TEST(MemoizedSelector, StaysBounded) {
  MemoizedSelector selector(TuningDatabase{}, kH100, environments());
  for (size_t i = 0; i <= MemoizedSelector::kMaxMemoized; ++i)
    selector.select(sample_problem(64 + static_cast<int64_t>(i), 64, 64));
  EXPECT_LE(selector.memoized(), MemoizedSelector::kMaxMemoized);
  EXPECT_GE(selector.memoized(), 1u);
}

}  // namespace
}  // namespace jitgemm
