// A finished tuning run (tune/'s TuneResult) turned into the TuningRecord the database
// stores: the winner's config, timing and accuracy, and every candidate's outcome.
#pragma once

#include "database/device_key.hpp"
#include "database/tuning_record.hpp"
#include "tune/tuner.hpp"

namespace jitgemm {

// The record of `result`, stamped with the current UTC time. Throws InvalidArgument
// naming the problem when no candidate passed verification (result.winner < 0).
TuningRecord make_record(const TuneResult& result, const DeviceKey& device, const EnvironmentKey& environment);

}  // namespace jitgemm
