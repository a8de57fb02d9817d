// TuningRecord JSON: every field round-trips, and every kind of bad value is rejected
// with its field path.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include <nlohmann/json.hpp>

#include "database/json_reader.hpp"
#include "database/record_samples.hpp"
#include "database/tuning_record.hpp"

namespace jitgemm {
namespace {

using nlohmann::json;
using testing::kH100;
using testing::sample_problem;
using testing::sample_record;

TuningRecord from_text(const std::string& text) {
  TuningRecord r;
  from_json(json::parse(text), r);
  return r;
}

// The FieldError message for `j` after `edit`, or "" when it loads.
template <class Edit>
std::string error_after(Edit edit) {
  json j = sample_record(sample_problem(4096, 4096, 4096));
  edit(j);
  try {
    TuningRecord r;
    from_json(j, r);
  } catch (const FieldError& e) {
    return e.what();
  }
  return "";
}

TEST(TuningRecord, RoundTripsEveryField) {
  ProblemKey p = sample_problem(4096, 2048, 1024, Precision::TF32x3);
  p.trans_a = Op::T;
  p.ld_b = LdClass::Padded;
  p.vec_c = 1;
  p.ld_c = LdClass::Unaligned;
  TuningRecord original = sample_record(p, testing::kH200, "2024-12-31T23:59:59Z", 1.234567890123);
  original.candidates.push_back({testing::sample_config(16, 1), CandidateOutcome::LaunchFailed, 0, 0, 40, 0,
                                 "CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES"});
  original.candidates.push_back({testing::sample_config(), CandidateOutcome::Skipped, 0, 0, 0, 0, "pruned"});
  original.candidate_count = 40;
  TuningRecord copy = from_text(json(original).dump(2));
  EXPECT_EQ(copy, original);
  EXPECT_EQ(json(copy).dump(), json(original).dump());
}

TEST(TuningRecord, StoresProblemAsCanonicalStringAndConfigAsFields) {
  TuningRecord r = sample_record(sample_problem(4096, 4096, 4096));
  json j = r;
  EXPECT_EQ(j.at("problem").get<std::string>(), r.problem.canonical());
  EXPECT_EQ(j.at("config").at("block_m").get<int>(), 128);
  EXPECT_EQ(j.at("config").at("family").get<std::string>(), "simt");
  EXPECT_EQ(j.at("config").at("precision").get<std::string>(), "fp32");
  EXPECT_EQ(j.at("config").at("params").at("warps_m").get<int>(), 4);
  EXPECT_EQ(j.at("candidates").at(2).at("outcome").get<std::string>(), "spills");
}

TEST(TuningRecord, KeyIsDeviceSmAndCanonicalProblem) {
  TuningRecord r = sample_record(sample_problem(64, 128, 256));
  EXPECT_EQ(r.key(), "NVIDIA H100 80GB HBM3|sm90|" + r.problem.canonical());
}

TEST(TuningRecord, Timestamps) {
  EXPECT_EQ(format_utc_timestamp(std::chrono::system_clock::time_point{}), "1970-01-01T00:00:00Z");
  EXPECT_TRUE(is_utc_timestamp(format_utc_timestamp(std::chrono::system_clock::now())));
  EXPECT_FALSE(is_utc_timestamp("2025-13-01T00:00:00Z"));
  EXPECT_FALSE(is_utc_timestamp("2025-01-01 00:00:00Z"));
  EXPECT_FALSE(is_utc_timestamp("2025-01-01T00:00:00+01:00"));
}

TEST(TuningRecord, RangeErrorsCarryTheFieldPath) {
  EXPECT_EQ(error_after([](json& j) { j["config"]["stages"] = 0; }), "config.stages: expected 1..8, got 0");
  EXPECT_EQ(error_after([](json& j) { j["candidates"][3]["config"]["stages"] = 9; }),
            "candidates[3].config.stages: expected 1..8, got 9");
  EXPECT_EQ(error_after([](json& j) { j["config"]["block_m"] = 96; }),
            "config.block_m: expected a power of two in 16..256, got 96");
  EXPECT_EQ(error_after([](json& j) { j["config"]["block_k"] = 2; }), "config.block_k: expected 4..64, got 2");
  EXPECT_EQ(error_after([](json& j) { j["timing"]["median_ms"] = 0; }),
            "timing.median_ms: expected a number > 0, got 0");
  EXPECT_EQ(error_after([](json& j) { j["accuracy"]["rel_error"] = -1e-7; }),
            "accuracy.rel_error: expected a number >= 0, got -1e-07");
  EXPECT_EQ(error_after([](json& j) { j["accuracy"]["rel_error"] = 1e-3; }),
            "accuracy.rel_error: expected <= tolerance (1e-05), got 0.001");
  EXPECT_EQ(error_after([](json& j) { j["timing"]["p10_ms"] = 100.0; }),
            "timing.p10_ms: expected <= median_ms (3.375), got 100");
  EXPECT_EQ(error_after([](json& j) { j["candidate_count"] = 2; }),
            "candidate_count: expected >= the 5 candidates listed, got 2");
  EXPECT_EQ(error_after([](json& j) { j["device"]["sm"] = 5; }), "device.sm: expected 10..999, got 5");
}

TEST(TuningRecord, TypeAndPresenceErrorsCarryTheFieldPath) {
  EXPECT_EQ(error_after([](json& j) { j["config"]["stages"] = "3"; }),
            "config.stages: expected integer, got \"3\"");
  EXPECT_EQ(error_after([](json& j) { j["config"]["stages"] = 3.5; }), "config.stages: expected integer, got 3.5");
  EXPECT_EQ(error_after([](json& j) { j["timing"]["l2_flushed"] = 1; }),
            "timing.l2_flushed: expected boolean, got 1");
  EXPECT_EQ(error_after([](json& j) { j.erase("tuned_at"); }), "tuned_at: missing");
  EXPECT_EQ(error_after([](json& j) { j["environment"].erase("nvrtc_version"); }), "environment.nvrtc_version: missing");
  EXPECT_EQ(error_after([](json& j) { j["timing"] = json::array(); }), "timing: expected object, got array");
  EXPECT_EQ(error_after([](json& j) { j["config"]["blockm"] = 128; }), "config.blockm: unknown field");
  EXPECT_EQ(error_after([](json& j) { j["candidates"] = json::object(); }), "candidates: expected array, got object");
  EXPECT_EQ(error_after([](json& j) { j["tuned_at"] = "yesterday"; }),
            "tuned_at: expected YYYY-MM-DDTHH:MM:SSZ, got \"yesterday\"");
}

TEST(TuningRecord, EnumAndKeyErrorsCarryTheFieldPath) {
  std::string outcome = error_after([](json& j) { j["candidates"][1]["outcome"] = "fine"; });
  EXPECT_EQ(outcome.rfind("candidates[1].outcome: ", 0), 0u) << outcome;
  EXPECT_NE(outcome.find("fine"), std::string::npos) << outcome;
  std::string family = error_after([](json& j) { j["config"]["family"] = "wgmma_bf16"; });
  EXPECT_EQ(family.rfind("config.family: ", 0), 0u) << family;
  std::string problem = error_after([](json& j) { j["problem"] = "gemm.fp64.NN"; });
  EXPECT_EQ(problem.rfind("problem: ", 0), 0u) << problem;
  EXPECT_EQ(error_after([](json& j) { j["problem"] = 42; }), "problem: expected string, got 42");
}

TEST(TuningRecord, NonFiniteCandidateErrorIsStoredAsNull) {
  TuningRecord r = sample_record(sample_problem(64, 64, 64));
  r.candidates[4].rel_error = std::numeric_limits<double>::quiet_NaN();
  r.candidates[3].registers = -1;  // compile failed: no resource report
  json j = r;
  EXPECT_TRUE(j["candidates"][4]["rel_error"].is_null());
  TuningRecord copy = from_text(j.dump());
  EXPECT_TRUE(std::isinf(copy.candidates[4].rel_error));
  EXPECT_EQ(copy.candidates[3].registers, -1);
}

TEST(TuningRecord, FailedCandidatesMayHaveNoTime) {
  EXPECT_EQ(error_after([](json& j) { j["candidates"][2]["median_ms"] = 0; }), "");
  EXPECT_EQ(error_after([](json& j) { j["candidates"][0]["median_ms"] = 0; }),
            "candidates[0].median_ms: expected a number > 0, got 0");
}

}  // namespace
}  // namespace jitgemm
