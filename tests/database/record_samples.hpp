// Realistic TuningRecords for the database tests: every field set to a non-default value
// so that a round trip that drops or confuses a field fails; their full candidate tables (the
// history file's entries) and the schema-3 JSON a record of an older file had.
#pragma once

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "database/candidate_history.hpp"
#include "database/record_checksum.hpp"
#include "database/record_compaction.hpp"
#include "database/record_json.hpp"
#include "database/tuning_record.hpp"

namespace jitgemm::testing {

inline const DeviceKey kH100{"NVIDIA H100 80GB HBM3", 90, 132};
inline const DeviceKey kH200{"NVIDIA H200", 90, 132};
inline const EnvironmentKey kEnv{12040, 12040, "tmpl-3f9a1c2e", "0.1.0"};

inline ProblemKey sample_problem(int64_t m, int64_t n, int64_t k, Precision precision = Precision::FP32) {
  ProblemKey p;
  p.precision = precision;
  p.m = m;
  p.n = n;
  p.k = k;
  return p;
}

inline KernelConfig sample_config(int block_m = 128, int stages = 3) {
  KernelConfig c;
  c.block_m = block_m;
  c.block_n = 64;
  c.block_k = 16;
  c.simt() = SimtParams{4, 2, 4, 8};
  c.stages = stages;
  c.split_k = 2;
  c.raster_group = 4;
  return c;
}

// The full candidate table of a sample record: two verified (the winner first), and one each
// that spilled, failed to compile and gave a wrong result.
inline std::vector<CandidateResult> sample_candidates(double median_ms = 3.375) {
  return {
      {sample_config(), CandidateOutcome::Ok, median_ms, 2.5e-7, 128, 0, ""},
      {sample_config(64), CandidateOutcome::Ok, median_ms * 1.2, 2.25e-7, 96, 0, ""},
      {sample_config(256, 4), CandidateOutcome::Spills, 0, 0, 255, 96, "ptxas: 96 bytes spill stores"},
      {sample_config(128, 8), CandidateOutcome::CompileFailed, 0, 0, 0, 0, "error: too much shared data"},
      {sample_config(32, 2), CandidateOutcome::WrongResult, 4.5, 0.5, 64, 0, "rel_error 0.5 > 1e-05"},
  };
}

// `r` with `candidates` as its full table: candidate_count, the counts by outcome and the top
// list made from it as make_record makes them.
inline TuningRecord with_candidates(TuningRecord r, const std::vector<CandidateResult>& candidates) {
  r.candidate_count = static_cast<int>(candidates.size());
  r.outcomes = count_outcomes(candidates, r.candidate_count);
  r.top = top_candidates(candidates, r.config, r.accuracy.tolerance);
  return r;
}

inline TuningRecord sample_record(const ProblemKey& problem, const DeviceKey& device = kH100,
                                  std::string tuned_at = "2025-01-15T10:20:30Z", double median_ms = 3.375) {
  TuningRecord r;
  r.problem = problem;
  r.device = device;
  r.environment = kEnv;
  r.config = sample_config();
  r.timing = {median_ms, median_ms * 0.98, median_ms * 1.04, 25, true, median_ms * 1.0625};
  r.tflops = 2.0 * static_cast<double>(problem.m * problem.n * problem.k) / (median_ms * 1e9);
  r.accuracy = {2.5e-7, 1e-5, 3.125e-7};
  r.tuned_at = std::move(tuned_at);
  return with_candidates(std::move(r), sample_candidates(median_ms));
}

// The history entry of a sample record (its full table).
inline CandidateHistory sample_history(const TuningRecord& r) {
  return CandidateHistory{r.key(), r.tuned_at, sample_candidates(r.timing.median_ms)};
}

// `r` as a record of a schema-3 file listed it (every candidate of `candidates`, no counts, no
// top list), and its schema-3 checksum when `checksum`.
inline nlohmann::json legacy_record_json(const TuningRecord& r, const std::vector<CandidateResult>& candidates,
                                         bool checksum = true) {
  nlohmann::json j{{"problem", r.problem.canonical()},
                   {"device", r.device},
                   {"environment", r.environment},
                   {"config", r.config},
                   {"timing", r.timing},
                   {"tflops", r.tflops},
                   {"accuracy", r.accuracy},
                   {"candidate_count", r.candidate_count},
                   {"candidates", candidates},
                   {"tuned_at", r.tuned_at}};
  if (checksum) j["checksum"] = record_checksum(j);
  return j;
}

// Whole-file reads and writes for the damaged-file tests.
inline std::string read_text(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

inline void write_text(const std::filesystem::path& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
}

}  // namespace jitgemm::testing
