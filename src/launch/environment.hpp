// The device and environment layers of a tuning record's key, read off this machine,
// and the conversion of a tuning run's measurements into a TuningRecord.
#pragma once

#include "cuda/device_info.hpp"
#include "database/device_key.hpp"
#include "database/tuning_record.hpp"
#include "tune/tuner.hpp"

namespace jitgemm {

DeviceKey device_key(const cuda::DeviceInfo& info);
// `template_hash`: hash of the kernel template that served or was tuned.
EnvironmentKey current_environment(const cuda::DeviceInfo& info, const std::string& template_hash);

// The record of a finished tuning run; requires result.winner >= 0.
TuningRecord make_record(const TuneResult& result, const DeviceKey& device, const EnvironmentKey& environment);

// "H200" / "H100" / the device name with spaces replaced: used in result file names.
std::string short_gpu_name(const std::string& device_name);

// 2 * M * N * K / time: the useful work rate of a dense product.
double tflops(const GemmProblem& p, double ms);

}  // namespace jitgemm
