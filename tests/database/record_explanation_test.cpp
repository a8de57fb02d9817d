// explain_records: how each record relates to one serving decision (jitgemm-db explain's table).
#include "database/record_explanation.hpp"

#include <gtest/gtest.h>

#include "database/environment_samples.hpp"
#include "database/record_samples.hpp"

namespace jitgemm {
namespace {

using testing::kEnv;
using testing::kH100;
using testing::kH200;
using testing::sample_problem;
using testing::sample_record;
using Match = RecordExplanation::Match;

TuningDatabase sample_db() {
  TuningDatabase db;
  db.upsert(sample_record(sample_problem(4096, 4096, 4096)));
  db.upsert(sample_record(sample_problem(1024, 1024, 1024)));
  db.upsert(sample_record(sample_problem(2048, 2048, 2048)));
  db.upsert(sample_record(sample_problem(4096, 4096, 4096, Precision::TF32)));
  db.upsert(sample_record(sample_problem(2048, 2048, 2048), kH200));
  return db;
}

std::vector<RecordExplanation> explain(const TuningDatabase& db, const ProblemKey& key, const Environments& env) {
  return explain_records(db, kH100, key, env, lookup(db, kH100, key, env));
}

TEST(RecordExplanation, SaysWhyEachRecordServesOrNot) {
  const TuningDatabase db = sample_db();
  EnvironmentKey now = kEnv;
  now.template_hash = "tmpl-new";
  const auto explanations = explain(db, sample_problem(4096, 4096, 4096), testing::environments_of(now));
  ASSERT_EQ(explanations.size(), db.size());
  std::map<Match, int> count;
  for (const RecordExplanation& e : explanations) {
    ++count[e.match];
    ASSERT_EQ(e.staleness.size(), 1u);
    EXPECT_EQ(to_string(e.staleness[0]), "template_hash tmpl-3f9a1c2e -> tmpl-new");
    EXPECT_EQ(e.served, e.match == Match::Exact) << e.record->key();
    if (e.match == Match::Nearest) {
      EXPECT_DOUBLE_EQ(e.distance, 3.0);
      EXPECT_TRUE(e.why_not.empty());
    } else if (e.match == Match::TooFar) {
      EXPECT_DOUBLE_EQ(e.distance, 6.0);
      EXPECT_EQ(e.why_not, (std::vector<std::string>{"M 1024 vs 4096 beyond a factor of two",
                                                     "N 1024 vs 4096 beyond a factor of two",
                                                     "K 1024 vs 4096 beyond a factor of two"}));
    } else if (e.match == Match::No) {
      ASSERT_FALSE(e.why_not.empty());
      const std::string& why = e.why_not.front();
      EXPECT_TRUE(why == "precision differs (tf32 vs fp32)" ||
                  why == "device name differs (NVIDIA H200 vs NVIDIA H100 80GB HBM3)") << why;
    }
  }
  EXPECT_EQ(count[Match::Exact], 1);
  EXPECT_EQ(count[Match::Nearest], 1);
  EXPECT_EQ(count[Match::TooFar], 1);
  EXPECT_EQ(count[Match::No], 2);
}

TEST(RecordExplanation, NothingIsServedWhenTheNearestIsTooFar) {
  const TuningDatabase db = sample_db();
  for (const RecordExplanation& e : explain(db, sample_problem(100, 100, 100), testing::environments_of(kEnv))) {
    EXPECT_FALSE(e.served) << e.record->key();
    EXPECT_NE(e.match, Match::Nearest) << e.record->key();
  }
}

}  // namespace
}  // namespace jitgemm
