// make_tuned_record: a tuning run's measurements become a valid TuningRecord and its history
// entry; device_key and current_environment read this machine's keys off a DeviceInfo.
#include "database/record_from_tuning.hpp"

#include <gtest/gtest.h>

#include <string>

#include "compile/compiler.hpp"
#include "cuda/device_info.hpp"
#include "database/record_samples.hpp"
#include "database/tuning_database.hpp"
#include "jitgemm/error.hpp"
#include "jitgemm/runtime.hpp"

namespace jitgemm {
namespace {

CandidateMeasurement measurement(const KernelConfig& config, CandidateOutcome outcome, double median_ms) {
  CandidateMeasurement m;
  m.config = config;
  m.outcome = outcome;
  m.timing.median_ms = median_ms;
  m.timing.p10_ms = median_ms * 0.9;
  m.timing.p90_ms = median_ms * 1.1;
  m.timing.runs = 25;
  m.rel_error = 2.5e-7;
  m.resources.registers = 96;
  return m;
}

TuneResult sample_result() {
  TuneResult r;
  r.problem.m = r.problem.n = r.problem.k = 1024;
  r.key = make_problem_key(r.problem);
  r.candidates.push_back(measurement(testing::sample_config(64), CandidateOutcome::Ok, 0.5));
  r.candidates.push_back(measurement(testing::sample_config(128), CandidateOutcome::Ok, 0.25));
  CandidateMeasurement spills = measurement(testing::sample_config(256), CandidateOutcome::Spills, 0);
  spills.resources.spill_store_bytes = 64;
  spills.resources.spill_load_bytes = 32;
  spills.detail = "64 B spill stores, 32 B spill loads, 0 B stack";
  r.candidates.push_back(spills);
  r.winner = 1;
  r.cublas_timing.median_ms = 0.3;
  r.cublas_rel_error = 2e-7;
  r.tolerance = 4e-7;
  return r;
}

// A compiler's message that is not UTF-8 cannot make the tuner's records unsaveable: the bytes
// become U+FFFD, and the record saves, loads and verifies (its checksum included).
TEST(MakeRecord, DetailsThatAreNotUtf8AreRepairedAndTheRecordSaves) {
  TuneResult result = sample_result();
  result.candidates[2].detail = "ptxas \xff\xfe spill";
  const TunedRecord tuned = make_tuned_record(result, testing::kH100, testing::kEnv);
  const TuningRecord& record = tuned.record;
  EXPECT_EQ(tuned.history.candidates[2].detail, "ptxas \xEF\xBF\xBD\xEF\xBF\xBD spill");
  EXPECT_NO_THROW(validate_record(record));
  EXPECT_NO_THROW(validate_history_entry(tuned.history));
  TuningDatabase db;
  db.upsert(record);
  EXPECT_EQ(TuningDatabase::parse(db.dump(), "saved").records(), db.records());
  // A record built by hand with such bytes is refused by every writer, naming the field.
  TuningRecord bad = record;
  bad.device.name = "H100\xc3";
  try {
    validate_record(bad);
    ADD_FAILURE() << "accepted";
  } catch (const InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find("device.name: not UTF-8: \"H100\\xC3\""), std::string::npos) << e.what();
  }
}

TEST(MakeRecord, TakesTheWinnerCountsEveryOutcomeAndKeepsTheFullTableForTheHistory) {
  TuneResult result = sample_result();
  result.times.total_s = 14.5;
  const TunedRecord tuned = make_tuned_record(result, testing::kH100, testing::kEnv);
  const TuningRecord& record = tuned.record;
  EXPECT_DOUBLE_EQ(record.tune_s, 14.5);  // the whole tune_problem's wall time
  EXPECT_EQ(make_record(result, testing::kH100, testing::kEnv).config, record.config);
  EXPECT_NO_THROW(validate_record(record));
  EXPECT_EQ(record.problem, result.key);
  EXPECT_EQ(record.device, testing::kH100);
  EXPECT_EQ(record.environment, testing::kEnv);
  EXPECT_EQ(record.config, testing::sample_config(128));
  EXPECT_DOUBLE_EQ(record.timing.median_ms, 0.25);
  EXPECT_DOUBLE_EQ(record.timing.p90_ms, 0.275);
  EXPECT_EQ(record.timing.runs, 25);
  EXPECT_DOUBLE_EQ(record.timing.cublas_median_ms, 0.3);
  EXPECT_NEAR(record.tflops, 2.0 * 1024 * 1024 * 1024 / 0.25e9, 1e-9);
  EXPECT_EQ(record.accuracy, (Accuracy{2.5e-7, 4e-7, 2e-7}));
  EXPECT_TRUE(is_utc_timestamp(record.tuned_at)) << record.tuned_at;
  // The record: the counts and the verified candidates, fastest first (the winner).
  EXPECT_EQ(record.candidate_count, 3);
  EXPECT_EQ(record.outcomes.count(CandidateOutcome::Ok), 2);
  EXPECT_EQ(record.outcomes.count(CandidateOutcome::Spills), 1);
  EXPECT_EQ(record.outcomes.unrecorded, 0);
  ASSERT_EQ(record.top.size(), 2u);
  EXPECT_EQ(record.top[0].config, record.config);
  EXPECT_DOUBLE_EQ(record.top[1].median_ms, 0.5);
  // The history entry: every candidate as tried, under the record's key and date.
  EXPECT_EQ(tuned.history.key, record.key());
  EXPECT_EQ(tuned.history.tuned_at, record.tuned_at);
  ASSERT_EQ(tuned.history.candidates.size(), 3u);
  EXPECT_EQ(tuned.history.candidates[2].outcome, CandidateOutcome::Spills);
  EXPECT_EQ(tuned.history.candidates[2].spill_bytes, 96);
  EXPECT_EQ(tuned.history.candidates[2].detail, result.candidates[2].detail);
  EXPECT_EQ(history_mismatch(tuned.history, record), "");
}

// Of many verified candidates the record keeps the kTopCandidates fastest, and the winner
// among them even when its final timing is slower than screening times of others.
TEST(MakeRecord, KeepsTheFastestEightAndTheWinner) {
  TuneResult result = sample_result();
  result.candidates.clear();
  for (int i = 0; i < 20; ++i)  // 20 distinct configs; #13 is sample_config() (128, 3 stages)
    result.candidates.push_back(measurement(testing::sample_config(16 << (i % 5), 1 + i / 5), CandidateOutcome::Ok,
                                            1.0 + 0.01 * i));
  result.candidates[13] = measurement(result.candidates[13].config, CandidateOutcome::Ok, 1.5);  // its final
                                                                                                 // timing: slower
  result.winner = 13;
  const TuningRecord record = make_record(result, testing::kH100, testing::kEnv);
  EXPECT_NO_THROW(validate_record(record));
  ASSERT_EQ(record.top.size(), static_cast<size_t>(kTopCandidates));
  EXPECT_EQ(record.top.back().config, result.candidates[13].config);
  EXPECT_DOUBLE_EQ(record.top.back().median_ms, 1.5);
  for (size_t i = 1; i < record.top.size(); ++i) EXPECT_LE(record.top[i - 1].median_ms, record.top[i].median_ms);
  EXPECT_EQ(record.candidate_count, 20);
  EXPECT_EQ(record.outcomes.count(CandidateOutcome::Ok), 20);
}

TEST(MakeRecord, WithoutAWinnerThrowsNamingTheProblem) {
  TuneResult result = sample_result();
  result.winner = -1;
  try {
    make_record(result, testing::kH100, testing::kEnv);
    FAIL() << "make_record accepted a run without a winner";
  } catch (const InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find(result.key.canonical()), std::string::npos) << e.what();
  }
}

TEST(DeviceKey, ReadOffADeviceInfo) {
  cuda::DeviceInfo info;
  info.name = "NVIDIA H200";
  info.cc_major = 9;
  info.cc_minor = 0;
  info.sm_count = 132;
  info.driver_version = 13000;
  EXPECT_EQ(device_key(info), testing::kH200);
  const EnvironmentKey env = current_environment(info, "tmpl-1234");
  EXPECT_EQ(env, (EnvironmentKey{13000, nvrtc_version(), "tmpl-1234", std::string(version())}));
}

}  // namespace
}  // namespace jitgemm
