// make_tuned_record: a TuneResult as a TuningRecord and its history entry (see
// record_from_tuning.hpp).
#include "database/record_from_tuning.hpp"

#include <fmt/format.h>

#include <chrono>

#include "database/printable_text.hpp"
#include "database/record_compaction.hpp"
#include "jitgemm/error.hpp"
#include "problem/flop_rate.hpp"

namespace jitgemm {

TunedRecord make_tuned_record(const TuneResult& result, const DeviceKey& device, const EnvironmentKey& environment) {
  const CandidateMeasurement* best = result.best();
  if (best == nullptr)
    throw InvalidArgument(fmt::format("make_record: no candidate of {} passed verification", result.key.canonical()));
  TunedRecord out;
  TuningRecord& record = out.record;
  record.problem = result.key;
  record.device = device;
  record.environment = environment;
  record.config = best->config;
  record.timing = Timing{best->timing.median_ms, best->timing.p10_ms, best->timing.p90_ms, best->timing.runs,
                         best->timing.l2_flushed, result.cublas_timing.median_ms};
  record.tflops = tflops(result.problem, best->timing.median_ms);
  record.accuracy = Accuracy{best->rel_error, result.tolerance, result.cublas_rel_error};
  std::vector<CandidateResult> candidates;
  candidates.reserve(result.candidates.size());
  for (const auto& c : result.candidates)
    candidates.push_back(CandidateResult{c.config, c.outcome, c.timing.median_ms, c.rel_error, c.resources.registers,
                                         c.resources.spill_store_bytes + c.resources.spill_load_bytes,
                                         well_formed_utf8(c.detail)});  // a compiler's words
  record.candidate_count = static_cast<int>(candidates.size());
  record.outcomes = count_outcomes(candidates, record.candidate_count);
  record.top = top_candidates(candidates, record.config, record.accuracy.tolerance);
  record.tuned_at = format_utc_timestamp(std::chrono::system_clock::now());
  record.tune_s = result.times.total_s;
  out.history = CandidateHistory{record.key(), record.tuned_at, std::move(candidates)};
  return out;
}

TuningRecord make_record(const TuneResult& result, const DeviceKey& device, const EnvironmentKey& environment) {
  return make_tuned_record(result, device, environment).record;
}

}  // namespace jitgemm
