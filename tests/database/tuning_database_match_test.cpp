// TuningDatabase::lookup and ::explain: exact, nearest (with its tie-breaks), none, stale.
#include <gtest/gtest.h>

#include "database/record_samples.hpp"
#include "database/tuning_database.hpp"

namespace jitgemm {
namespace {

using testing::kEnv;
using testing::kH100;
using testing::kH200;
using testing::sample_problem;
using testing::sample_record;
using Rule = LookupResult::Rule;
using Match = MatchExplanation::Match;

TuningDatabase sample_db() {
  TuningDatabase db;
  db.upsert(sample_record(sample_problem(4096, 4096, 4096)));
  db.upsert(sample_record(sample_problem(1024, 1024, 1024)));
  db.upsert(sample_record(sample_problem(4096, 4096, 4096, Precision::TF32)));
  db.upsert(sample_record(sample_problem(2048, 2048, 2048), kH200));
  return db;
}

TEST(TuningDatabaseLookup, Exact) {
  TuningDatabase db = sample_db();
  LookupResult r = db.lookup(kH100, sample_problem(1024, 1024, 1024), kEnv);
  EXPECT_EQ(r.rule, Rule::Exact);
  ASSERT_NE(r.record, nullptr);
  EXPECT_EQ(r.record->problem, sample_problem(1024, 1024, 1024));
  EXPECT_FALSE(r.stale);
  EXPECT_EQ(r.explanation, "exact: " + r.record->key());
}

TEST(TuningDatabaseLookup, NearestBySizeDistance) {
  TuningDatabase db = sample_db();
  LookupResult r = db.lookup(kH100, sample_problem(2048, 2048, 2048), kEnv);  // 3 from both: newer? same
  EXPECT_EQ(r.rule, Rule::Nearest);
  r = db.lookup(kH100, sample_problem(8192, 4096, 2048), kEnv);
  EXPECT_EQ(r.rule, Rule::Nearest);
  ASSERT_NE(r.record, nullptr);
  EXPECT_EQ(r.record->problem.m, 4096);
  EXPECT_DOUBLE_EQ(r.distance, 2.0);
  EXPECT_NE(r.explanation.find("distance 2.00"), std::string::npos) << r.explanation;
}

TEST(TuningDatabaseLookup, NearestTieBreaks) {
  TuningDatabase db;
  ProblemKey padded = sample_problem(1024, 1024, 1024);
  padded.ld_a = LdClass::Padded;
  db.upsert(sample_record(padded, kH100, "2025-03-01T00:00:00Z"));
  db.upsert(sample_record(sample_problem(4096, 1024, 1024), kH100, "2025-01-01T00:00:00Z"));
  // Both at distance 1 from 2048x1024x1024; the tight one matches the asked layout.
  LookupResult r = db.lookup(kH100, sample_problem(2048, 1024, 1024), kEnv);
  ASSERT_EQ(r.rule, Rule::Nearest);
  EXPECT_EQ(r.record->problem.m, 4096);
  // Same layout agreement: the newer record wins.
  db.upsert(sample_record(sample_problem(1024, 1024, 1024), kH100, "2025-02-01T00:00:00Z"));
  r = db.lookup(kH100, sample_problem(2048, 1024, 1024), kEnv);
  EXPECT_EQ(r.record->problem.m, 1024);
  EXPECT_EQ(r.record->problem.ld_a, LdClass::Tight);
}

TEST(TuningDatabaseLookup, NoneForOtherDeviceSmOrKind) {
  TuningDatabase db = sample_db();
  EXPECT_EQ(db.lookup({"NVIDIA A100-SXM4-80GB", 80, 108}, sample_problem(4096, 4096, 4096), kEnv).rule, Rule::None);
  EXPECT_EQ(db.lookup({kH100.name, 89, 132}, sample_problem(4096, 4096, 4096), kEnv).rule, Rule::None);
  ProblemKey transposed = sample_problem(4096, 4096, 4096);
  transposed.trans_b = Op::T;
  LookupResult r = db.lookup(kH100, transposed, kEnv);
  EXPECT_EQ(r.rule, Rule::None);
  EXPECT_EQ(r.record, nullptr);
  EXPECT_NE(r.explanation.find("3 records for this device"), std::string::npos) << r.explanation;
}

TEST(TuningDatabaseLookup, StaleRecordsAreServedAndFlagged) {
  TuningDatabase db = sample_db();
  EnvironmentKey now = kEnv;
  now.nvrtc_version = 12080;
  LookupResult r = db.lookup(kH100, sample_problem(4096, 4096, 4096), now);
  EXPECT_EQ(r.rule, Rule::Exact);
  EXPECT_TRUE(r.stale);
  EXPECT_NE(r.explanation.find("stale: nvrtc_version 12040 -> 12080"), std::string::npos) << r.explanation;
}

TEST(TuningDatabaseExplain, SaysWhyEachRecordMatchesOrNot) {
  TuningDatabase db = sample_db();
  EnvironmentKey now = kEnv;
  now.template_hash = "tmpl-new";
  auto explanations = db.explain(kH100, sample_problem(4096, 4096, 4096), now);
  ASSERT_EQ(explanations.size(), db.size());
  int exact = 0, nearest = 0, no = 0;
  for (const MatchExplanation& e : explanations) {
    EXPECT_TRUE(e.stale);
    ASSERT_EQ(e.stale_fields.size(), 1u);
    EXPECT_EQ(e.stale_fields[0], "template_hash tmpl-3f9a1c2e -> tmpl-new");
    if (e.match == Match::Exact) {
      ++exact;
      EXPECT_TRUE(e.chosen);
    } else if (e.match == Match::Nearest) {
      ++nearest;
      EXPECT_DOUBLE_EQ(e.distance, 6.0);
      EXPECT_FALSE(e.chosen);
    } else {
      ++no;
      ASSERT_FALSE(e.mismatches.empty());
      const std::string& why = e.mismatches.front();
      bool expected = why.rfind("precision differs (tf32 vs fp32)", 0) == 0 ||
                      why == "device name differs (NVIDIA H200 vs NVIDIA H100 80GB HBM3)";
      EXPECT_TRUE(expected) << why;
    }
  }
  EXPECT_EQ(exact, 1);
  EXPECT_EQ(nearest, 1);
  EXPECT_EQ(no, 2);
}

}  // namespace
}  // namespace jitgemm
