// A finished tuning run (tune/'s TuneResult) turned into what the database stores: the
// TuningRecord (the winner's config, timing and accuracy, the counts by outcome and the
// fastest kTopCandidates) and the history entry with every candidate's outcome, for the
// history file (candidate_history.hpp).
//
//   TunedRecord tuned = make_tuned_record(result, device, environment);
//   TuningDatabase::save_merged(path, {tuned.record}, {tuned.history});
#pragma once

#include "database/candidate_history.hpp"
#include "database/device_key.hpp"
#include "database/tuning_record.hpp"
#include "tune/tuner.hpp"

namespace jitgemm {

struct TunedRecord {
  TuningRecord record;
  CandidateHistory history;  // every candidate of the run, keyed by record.key() and tuned_at
};

// The record and history of `result`, stamped with the current UTC time. Throws
// InvalidArgument naming the problem when no candidate passed verification (result.winner < 0).
TunedRecord make_tuned_record(const TuneResult& result, const DeviceKey& device, const EnvironmentKey& environment);

// make_tuned_record(...).record: for callers that keep no history.
TuningRecord make_record(const TuneResult& result, const DeviceKey& device, const EnvironmentKey& environment);

}  // namespace jitgemm
