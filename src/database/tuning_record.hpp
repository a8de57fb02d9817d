// One tuning result as a typed struct: the winning KernelConfig for a (device, problem),
// its measurements, the environment it was tuned in and what happened to every other
// candidate. JSON conversion is hand-written: at() semantics for every field, enums by
// name, range checks, errors with the field path (FieldError, database/json_reader.hpp).
#pragma once

#include <chrono>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "codegen/kernel_config.hpp"
#include "database/device_key.hpp"
#include "problem/problem_key.hpp"
#include "tune/candidate_outcome.hpp"  // CandidateOutcome, stored by name

namespace jitgemm {

struct CandidateResult {
  KernelConfig config;
  CandidateOutcome outcome = CandidateOutcome::Ok;
  double median_ms = 0;  // > 0 when ok; 0 when never timed
  double rel_error = 0;  // against the float64 reference; 0 when never run; a non-finite
                         // error is stored as null and read back as +infinity
  int registers = 0;     // per thread, from the compiler's resource report; -1: not reported
  int spill_bytes = 0;
  std::string detail;    // first line of a compile log, the failing check, ...

  friend bool operator==(const CandidateResult&, const CandidateResult&) = default;
};

struct Timing {
  double median_ms = 0;  // all times > 0, p10 <= median <= p90
  double p10_ms = 0;
  double p90_ms = 0;
  int runs = 0;
  bool l2_flushed = false;
  double cublas_median_ms = 0;  // cuBLAS on the same problem, in the same run

  friend bool operator==(const Timing&, const Timing&) = default;
};

struct Accuracy {
  double rel_error = 0;  // relative Frobenius error against float64; <= tolerance
  double tolerance = 0;
  double cublas_rel_error = 0;

  friend bool operator==(const Accuracy&, const Accuracy&) = default;
};

struct TuningRecord {
  ProblemKey problem;          // JSON: the canonical() string
  DeviceKey device;
  EnvironmentKey environment;  // differs from the current one: the record is stale
  KernelConfig config;         // JSON: an object of named fields
  Timing timing;
  double tflops = 0;
  Accuracy accuracy;
  int candidate_count = 0;              // candidates tried, >= candidates.size()
  std::vector<CandidateResult> candidates;
  std::string tuned_at;                 // "2025-01-31T12:00:00Z" (UTC, orders as text)

  // "NVIDIA H100 80GB HBM3|sm90|gemm.fp32.NN.general.general.full.4096x4096x4096...."
  std::string key() const;

  friend bool operator==(const TuningRecord&, const TuningRecord&) = default;
};

// "YYYY-MM-DDTHH:MM:SSZ" for `t` (to the second, UTC).
std::string format_utc_timestamp(std::chrono::system_clock::time_point t);
// True when `text` has exactly that form with fields in range.
bool is_utc_timestamp(std::string_view text) noexcept;

// How far a record's tuned_at may lie ahead of this machine's clock (clocks a day apart).
inline constexpr std::chrono::hours kFutureDateTolerance{24};
// True when r.tuned_at is later than now + kFutureDateTolerance: a date nobody tuned at (a
// clock far off, a hand edit, "9999-12-31T23:59:59Z"). Such a record loads, lists and serves
// as any other; TuningDatabase::merge does not let it win by its date.
bool is_future_dated(const TuningRecord& r, std::chrono::system_clock::time_point now);

// Throws InvalidArgument ("tuning record <key>: timing.median_ms: expected a number > 0,
// got nan") unless `r` passes the checks load() applies to its JSON: every writer
// calls this first, so a file on disk is never one that load() rejects.
void validate_record(const TuningRecord& r);

// The JSON layer. from_json throws FieldError naming the field path.
void to_json(nlohmann::json& j, const KernelConfig& c);
void from_json(const nlohmann::json& j, KernelConfig& c);
void to_json(nlohmann::json& j, const CandidateResult& c);
void from_json(const nlohmann::json& j, CandidateResult& c);
void to_json(nlohmann::json& j, const Timing& t);
void from_json(const nlohmann::json& j, Timing& t);
void to_json(nlohmann::json& j, const Accuracy& a);
void from_json(const nlohmann::json& j, Accuracy& a);
void to_json(nlohmann::json& j, const TuningRecord& r);
void from_json(const nlohmann::json& j, TuningRecord& r);

}  // namespace jitgemm
