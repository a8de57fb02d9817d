// One tuning result as a typed struct: the winning KernelConfig for a (device, problem),
// its measurements, the environment it was tuned in, how many candidates ended how, and the
// fastest few (schema 4). Its JSON text is written by record_text.hpp and read by
// record_reader.hpp (every field checked, errors with the field path and byte); the full
// candidate table of a tuning (CandidateResult, every candidate) lives in the history file
// (candidate_history.hpp). The nlohmann forms of the parts, which files of schema 1-3 use,
// are in record_json.hpp.
#pragma once

#include <chrono>
#include <map>
#include <string>
#include <string_view>
#include <vector>

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

// One of a record's fastest verified candidates: its outcome is ok, so it has a time and a
// finite error (the history file keeps every candidate with its outcome and detail).
struct RankedCandidate {
  KernelConfig config;   // JSON: its name()
  double median_ms = 0;  // > 0
  double rel_error = 0;  // finite, >= 0
  int registers = 0;     // -1: not reported
  int spill_bytes = 0;

  friend bool operator==(const RankedCandidate&, const RankedCandidate&) = default;
};

// How many candidates of a tuning ended with each outcome. JSON: {"ok": 612, "spills": 40},
// outcomes by name, counts >= 1 (an outcome no candidate had is left out), and "unrecorded":
// candidates whose outcome no file kept (a record of schema 1-3 listed only some of the
// candidates it counted).
struct OutcomeCounts {
  std::map<CandidateOutcome, int> by_outcome;  // no zero counts
  int unrecorded = 0;

  int count(CandidateOutcome outcome) const noexcept;
  int total() const noexcept;  // the sum of every count and unrecorded
  friend bool operator==(const OutcomeCounts&, const OutcomeCounts&) = default;
};

// A record keeps the winner and at most this many of the fastest verified candidates.
inline constexpr int kTopCandidates = 8;

struct TuningRecord {
  ProblemKey problem;          // JSON: the canonical() string
  DeviceKey device;
  EnvironmentKey environment;  // differs from the current one: the record is stale
  KernelConfig config;         // JSON: an object of named fields
  Timing timing;
  double tflops = 0;
  Accuracy accuracy;
  int candidate_count = 0;     // candidates tried: outcomes.total()
  OutcomeCounts outcomes;
  // The fastest candidates whose outcome is ok, by median_ms (ascending), the winner among
  // them: at most kTopCandidates and at most outcomes.count(Ok). The full table of every
  // candidate is in the history file (candidate_history.hpp).
  std::vector<RankedCandidate> top;
  std::string tuned_at;        // "2025-01-31T12:00:00Z" (UTC, orders as text)
  // Wall seconds the tuning that chose this record took (TuneTimes::total_s: cold or warm,
  // budgeted or exhaustive, as it ran). JSON "tune_s", written when not 0 (the reader refuses one
  // that is not > 0); 0: not recorded (records tuned before it was, and those migrated from
  // schema 1-3).
  double tune_s = 0;

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
// got nan") unless `r` passes the checks load() applies to its JSON (it writes the record's
// text and reads it back with load()'s reader): every writer calls this first, so a file on
// disk is never one that load() rejects.
void validate_record(const TuningRecord& r);

}  // namespace jitgemm
