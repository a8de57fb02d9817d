#include "launch/environment.hpp"

#include <fmt/chrono.h>
#include <fmt/format.h>

#include <chrono>
#include <ctime>

#include "compile/compiler.hpp"
#include "jitgemm/error.hpp"
#include "jitgemm/runtime.hpp"

namespace jitgemm {
namespace {

std::string utc_now_iso8601() {
  const std::time_t now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm tm{};
  gmtime_r(&now, &tm);
  return fmt::format("{:%Y-%m-%dT%H:%M:%SZ}", tm);
}

}  // namespace

DeviceKey device_key(const cuda::DeviceInfo& info) {
  return DeviceKey{info.name, info.cc_major * 10 + info.cc_minor, info.sm_count};
}

EnvironmentKey current_environment(const cuda::DeviceInfo& info, const std::string& template_hash) {
  return EnvironmentKey{info.driver_version, nvrtc_version(), template_hash, std::string(version())};
}

double tflops(const GemmProblem& p, double ms) {
  return ms > 0 ? 2.0 * static_cast<double>(p.m) * static_cast<double>(p.n) * static_cast<double>(p.k) / (ms * 1e9)
                : 0.0;
}

std::string short_gpu_name(const std::string& device_name) {
  for (const char* known : {"H200", "H100", "H20", "GH200", "B200"})
    if (device_name.find(known) != std::string::npos) return known;
  std::string name = device_name;
  for (char& ch : name)
    if (ch == ' ' || ch == '/') ch = '_';
  return name;
}

TuningRecord make_record(const TuneResult& result, const DeviceKey& device, const EnvironmentKey& environment) {
  const CandidateMeasurement* best = result.best();
  if (best == nullptr)
    throw InvalidArgument(fmt::format("make_record: no candidate of {} passed verification", result.key.canonical()));
  TuningRecord record;
  record.problem = result.key;
  record.device = device;
  record.environment = environment;
  record.config = best->config;
  record.timing = Timing{best->timing.median_ms, best->timing.p10_ms, best->timing.p90_ms, best->timing.runs,
                         best->timing.l2_flushed, result.cublas_timing.median_ms};
  record.tflops = tflops(result.problem, best->timing.median_ms);
  record.accuracy = Accuracy{best->rel_error, result.tolerance, result.cublas_rel_error};
  record.candidate_count = static_cast<int>(result.candidates.size());
  for (const auto& c : result.candidates)
    record.candidates.push_back(CandidateResult{c.config, c.outcome, c.timing.median_ms,
                                                c.rel_error, c.resources.registers,
                                                c.resources.spill_store_bytes + c.resources.spill_load_bytes,
                                                c.detail});
  record.tuned_at = utc_now_iso8601();
  return record;
}

}  // namespace jitgemm
