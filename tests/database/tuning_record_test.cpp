// TuningRecord text (schema 4): every field round-trips, and every kind of bad value is
// rejected with its field path; the rules of the compact form (counts by outcome, the sorted
// top list) and of the history's full-table candidates.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include <nlohmann/json.hpp>

#include "database/json_cursor.hpp"
#include "database/record_checksum.hpp"
#include "database/record_reader.hpp"
#include "database/record_samples.hpp"
#include "database/record_text.hpp"
#include "database/tuning_record.hpp"
#include "jitgemm/error.hpp"

namespace jitgemm {
namespace {

using nlohmann::json;
using testing::kH100;
using testing::sample_problem;
using testing::sample_record;

// The FieldError message for the sample record's text after `edit` of its JSON, or "" when it
// loads.
template <class Edit>
std::string error_after(Edit edit) {
  json j = json::parse(record_text(sample_record(sample_problem(4096, 4096, 4096)), RecordLayout::Compact));
  edit(j);
  try {
    read_record_text(j.dump());
  } catch (const FieldError& e) {
    return e.what();
  }
  return "";
}

// The same for a full-table candidate (the history file's form).
template <class Edit>
std::string candidate_error_after(const CandidateResult& c, Edit edit) {
  std::string text;
  append_candidate_text(text, c);
  json j = json::parse(text);
  edit(j);
  const std::string edited = j.dump();
  JsonCursor in(edited);
  ConfigNameCache names;
  try {
    read_candidate(in, names);
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
  original.candidate_count = 40;
  original.outcomes.by_outcome[CandidateOutcome::LaunchFailed] = 2;
  original.outcomes.by_outcome[CandidateOutcome::Skipped] = 3;
  original.outcomes.unrecorded = 30;
  original.tune_s = 12.625;
  for (RecordLayout layout : {RecordLayout::Pretty, RecordLayout::Compact}) {
    const std::string text = record_text(original, layout, "0123456789abcdef0123456789abcdef");
    JsonCursor in(text);
    std::string checksum;
    ConfigNameCache names;
    const TuningRecord copy = read_record(in, &checksum, names);
    EXPECT_EQ(copy, original);
    EXPECT_EQ(checksum, "0123456789abcdef0123456789abcdef");
    EXPECT_EQ(record_text(copy, layout, checksum), text);
  }
  EXPECT_NO_THROW(validate_record(original));
}

TEST(TuningRecord, StoresProblemAsCanonicalStringConfigAsFieldsAndTopCandidatesByName) {
  TuningRecord r = sample_record(sample_problem(4096, 4096, 4096));
  const json j = json::parse(record_text(r, RecordLayout::Pretty));
  EXPECT_EQ(j.at("problem").get<std::string>(), r.problem.canonical());
  EXPECT_EQ(j.at("config").at("block_m").get<int>(), 128);
  EXPECT_EQ(j.at("config").at("family").get<std::string>(), "simt");
  EXPECT_EQ(j.at("config").at("precision").get<std::string>(), "fp32");
  EXPECT_EQ(j.at("config").at("params").at("warps_m").get<int>(), 4);
  EXPECT_EQ(j.at("candidate_count"), 5);
  EXPECT_EQ(j.at("outcomes"), (json{{"ok", 2}, {"spills", 1}, {"compile_failed", 1}, {"wrong_result", 1}}));
  ASSERT_EQ(j.at("top").size(), 2u);
  EXPECT_EQ(j.at("top")[0].at("config"), r.config.name());
  EXPECT_EQ(j.at("top")[1].at("config"), testing::sample_config(64).name());
  EXPECT_FALSE(j.contains("candidates"));
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
  EXPECT_EQ(error_after([](json& j) { j["top"][1]["config"] = "simt_fp32_64x64x16_w4x2_t4x8_s9_k2_g4"; }),
            "top[1].config: simt_fp32_64x64x16_w4x2_t4x8_s9_k2_g4: stages: expected 1..8, got 9");
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
  EXPECT_EQ(error_after([](json& j) { j["device"]["sm"] = 5; }), "device.sm: expected 10..999, got 5");
  EXPECT_EQ(error_after([](json& j) { j["top"][0]["registers"] = 256; }), "top[0].registers: expected -1..255, got 256");
  EXPECT_EQ(error_after([](json& j) { j["tune_s"] = 0; }), "tune_s: expected a number > 0, got 0");
  EXPECT_EQ(error_after([](json& j) { j["tune_s"] = -3.5; }), "tune_s: expected a number > 0, got -3.5");
}

// How long the tuning took: optional (records before it have none, and keep their checksums),
// written when known, refused when not a time.
TEST(TuningRecord, TuneSecondsAreOptionalAndChecked) {
  TuningRecord r = sample_record(sample_problem(64, 64, 64));
  const std::string without = record_checksum(r);
  EXPECT_FALSE(json::parse(record_text(r, RecordLayout::Compact)).contains("tune_s"));
  r.tune_s = 19.75;
  EXPECT_EQ(json::parse(record_text(r, RecordLayout::Compact)).at("tune_s"), 19.75);
  EXPECT_NE(record_checksum(r), without);
  EXPECT_EQ(read_record_text(record_text(r, RecordLayout::Compact)).tune_s, 19.75);
  for (double bad : {-1.0, std::nan("")}) {
    r.tune_s = bad;
    EXPECT_THROW(validate_record(r), InvalidArgument) << bad;
  }
}

TEST(TuningRecord, TypeAndPresenceErrorsCarryTheFieldPath) {
  EXPECT_EQ(error_after([](json& j) { j["config"]["stages"] = "3"; }),
            "config.stages: expected integer, got \"3\"");
  EXPECT_EQ(error_after([](json& j) { j["config"]["stages"] = 3.5; }), "config.stages: expected integer, got 3.5");
  EXPECT_EQ(error_after([](json& j) { j["config"]["params"]["warps_m"] = 2.5; }),
            "config.params.warps_m: expected integer, got 2.5");
  EXPECT_EQ(error_after([](json& j) { j["timing"]["l2_flushed"] = 1; }),
            "timing.l2_flushed: expected boolean, got 1");
  EXPECT_EQ(error_after([](json& j) { j.erase("tuned_at"); }), "tuned_at: missing");
  EXPECT_EQ(error_after([](json& j) { j["environment"].erase("nvrtc_version"); }), "environment.nvrtc_version: missing");
  EXPECT_EQ(error_after([](json& j) { j["config"]["params"].erase("warps_n"); }), "config.params.warps_n: missing");
  EXPECT_EQ(error_after([](json& j) { j["timing"] = json::array(); }), "timing: expected object, got array");
  EXPECT_EQ(error_after([](json& j) { j["config"]["blockm"] = 128; }), "config.blockm: unknown field");
  EXPECT_EQ(error_after([](json& j) { j["config"]["params"]["consumers"] = 2; }),
            "config.params.consumers: unknown field");
  EXPECT_EQ(error_after([](json& j) { j["top"] = json::object(); }), "top: expected array, got object");
  EXPECT_EQ(error_after([](json& j) { j["top"][0]["detail"] = ""; }), "top[0].detail: unknown field");
  EXPECT_EQ(error_after([](json& j) { j["checksum"] = "0123456789abcdef0123456789abcdef"; }),
            "checksum: unknown field");  // validate_record's text has none
  EXPECT_EQ(error_after([](json& j) { j["tuned_at"] = "yesterday"; }),
            "tuned_at: expected YYYY-MM-DDTHH:MM:SSZ, got \"yesterday\"");
}

TEST(TuningRecord, EnumAndKeyErrorsCarryTheFieldPath) {
  std::string outcome = error_after([](json& j) { j["outcomes"]["fine"] = 1; });
  EXPECT_EQ(outcome.rfind("outcomes.fine: ", 0), 0u) << outcome;
  std::string family = error_after([](json& j) { j["config"]["family"] = "wgmma_bf16"; });
  EXPECT_EQ(family.rfind("config.family: ", 0), 0u) << family;
  std::string problem = error_after([](json& j) { j["problem"] = "gemm.fp64.NN"; });
  EXPECT_EQ(problem.rfind("problem: ", 0), 0u) << problem;
  EXPECT_EQ(error_after([](json& j) { j["problem"] = 42; }), "problem: expected string, got 42");
  std::string name = error_after([](json& j) { j["top"][0]["config"] = "simt_fp32_banana"; });
  EXPECT_EQ(name.rfind("top[0].config: kernel config name 'simt_fp32_banana'", 0), 0u) << name;
}

// The compact form's own rules: the counts add up, the top list is sorted, short, verified.
TEST(TuningRecord, TheCountsAndTheTopListAreChecked) {
  EXPECT_EQ(error_after([](json& j) { j["candidate_count"] = 6; }),
            "outcomes: the counts add up to 5, expected candidate_count (6)");
  EXPECT_EQ(error_after([](json& j) { j["outcomes"]["spills"] = 2; }),
            "outcomes: the counts add up to 6, expected candidate_count (5)");
  EXPECT_EQ(error_after([](json& j) {
              j["outcomes"]["unrecorded"] = 4;
              j["candidate_count"] = 9;
            }),
            "");
  EXPECT_EQ(error_after([](json& j) { j["outcomes"]["spills"] = 0; }), "outcomes.spills: expected 1..1000000, got 0");
  EXPECT_EQ(error_after([](json& j) { std::swap(j["top"][0], j["top"][1]); }),
            "top[1].median_ms: expected >= the median_ms of top[0] (4.05): the list is sorted fastest first, got 3.375");
  EXPECT_EQ(error_after([](json& j) {
              j["outcomes"]["ok"] = 1;
              j["candidate_count"] = 4;
            }),
            "top: lists 2 candidates, more than the 1 whose outcome is ok");
  EXPECT_EQ(error_after([](json& j) { j["top"][1]["rel_error"] = 2e-5; }),
            "top[1].rel_error: expected <= accuracy.tolerance (1e-05), got 2e-05");
  EXPECT_EQ(error_after([](json& j) {
              for (int i = 0; i < 7; ++i) j["top"].push_back(j["top"][1]);
              j["outcomes"]["ok"] = 9;
              j["candidate_count"] = 12;
            }),
            "top[8]: more than 8 candidates (a record keeps the 8 fastest; the history file keeps every one)");
  EXPECT_EQ(error_after([](json& j) { j["top"] = json::array(); }), "");  // a record of schema 1-3 may list none
}

// A duplicate member is damage wherever it is (nlohmann would keep the last one silently).
TEST(TuningRecord, ADuplicateMemberIsNamed) {
  std::string text = record_text(sample_record(sample_problem(64, 64, 64)), RecordLayout::Compact);
  const size_t runs = text.find("\"runs\": 25");
  ASSERT_NE(runs, std::string::npos);
  text.replace(runs, 10, "\"runs\": 25, \"runs\": 26");
  try {
    read_record_text(text);
    ADD_FAILURE() << "loaded";
  } catch (const FieldError& e) {
    EXPECT_EQ(std::string(e.what()), "timing: duplicate key \"runs\" in one object (the file is damaged)");
    EXPECT_EQ(e.byte(), runs + 13);  // the second "runs", counted from 1
  }
}

// What the writers refuse: values no file may hold, named as the reader names them.
TEST(TuningRecord, ValidateRecordNamesTheField) {
  TuningRecord r = sample_record(sample_problem(64, 64, 64));
  r.timing.median_ms = std::numeric_limits<double>::quiet_NaN();
  try {
    validate_record(r);
    ADD_FAILURE() << "accepted";
  } catch (const InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find("timing.median_ms: expected a number > 0, got nan"), std::string::npos)
        << e.what();
  }
  r = sample_record(sample_problem(64, 64, 64));
  r.top[1].median_ms = 1.0;  // faster than the first
  EXPECT_THROW(validate_record(r), InvalidArgument);
  r = sample_record(sample_problem(64, 64, 64));
  r.outcomes.by_outcome[CandidateOutcome::Ok] = 0;
  EXPECT_THROW(validate_record(r), InvalidArgument);
}

TEST(TuningRecord, NonFiniteCandidateErrorIsStoredAsNull) {
  CandidateResult c = testing::sample_candidates()[4];
  c.rel_error = std::numeric_limits<double>::quiet_NaN();
  c.registers = -1;  // no resource report
  std::string text;
  append_candidate_text(text, c);
  EXPECT_TRUE(json::parse(text).at("rel_error").is_null()) << text;
  JsonCursor in(text);
  ConfigNameCache names;
  const CandidateResult copy = read_candidate(in, names);
  EXPECT_TRUE(std::isinf(copy.rel_error));
  EXPECT_EQ(copy.registers, -1);
  EXPECT_EQ(copy.detail, c.detail);
}

TEST(TuningRecord, FailedCandidatesMayHaveNoTime) {
  const std::vector<CandidateResult> candidates = testing::sample_candidates();
  EXPECT_EQ(candidate_error_after(candidates[2], [](json&) {}), "");
  EXPECT_EQ(candidate_error_after(candidates[0], [](json& j) { j["median_ms"] = 0; }),
            "median_ms: expected a number > 0, got 0");
  const std::string outcome = candidate_error_after(candidates[1], [](json& j) { j["outcome"] = "fine"; });
  EXPECT_EQ(outcome.rfind("outcome: ", 0), 0u) << outcome;
  EXPECT_EQ(candidate_error_after(candidates[1], [](json& j) { j["detail"] = 7; }), "detail: expected string, got 7");
}

}  // namespace
}  // namespace jitgemm
