// The GPU's SM clock, power and temperature while jitgemm's runs of a bench row execute, read
// through NVML (libnvidia-ml.so.1, opened at run time like libcuda): between start() and stop()
// a thread samples every 2 ms while recording is on (the row turns it on around jitgemm's runs
// only, not the baseline's). Answers whether a kernel ran at full clock or under the power cap
// (NVML's clock event reasons: software power cap, hardware slowdown, thermal slowdowns).
//
//   GpuTelemetry telemetry(device_ordinal);    // unavailable(): no NVML, rows say so
//   telemetry.start();
//   telemetry.record(true);  ... jitgemm's timed run ...  telemetry.record(false);
//   RowTelemetry t = telemetry.stop();
#pragma once

#include <atomic>
#include <cstdint>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace jitgemm {

struct RowTelemetry {
  int samples = 0;            // 0: NVML unavailable or the row was too short to sample
  double sm_clock_mhz = 0;    // median
  double min_sm_clock_mhz = 0;
  double power_w = 0;         // median
  double max_power_w = 0;
  double power_limit_w = 0;   // the enforced limit
  double max_temperature_c = 0;
  double power_capped = 0;    // share of samples slowed by the software power cap
  double thermal_or_hw = 0;   // share slowed by a hardware slowdown or a thermal limit
};

class GpuTelemetry {
 public:
  explicit GpuTelemetry(int cuda_device);
  ~GpuTelemetry();
  GpuTelemetry(const GpuTelemetry&) = delete;
  GpuTelemetry& operator=(const GpuTelemetry&) = delete;

  // Why no figures come (NVML missing, the device not found), or "".
  const std::string& unavailable() const noexcept { return unavailable_; }
  void start();
  void record(bool on) noexcept { recording_ = on; }
  RowTelemetry stop();

 private:
  struct Sample {
    unsigned sm_mhz = 0, power_mw = 0, temperature_c = 0;
    unsigned long long reasons = 0;
  };
  bool read(Sample& s) const;

  struct Nvml;
  Nvml* nvml_ = nullptr;  // the loaded library's entry points and the device handle
  std::string unavailable_;
  unsigned power_limit_mw_ = 0;
  std::atomic<bool> running_{false}, recording_{false};
  std::thread sampler_;
  std::mutex mutex_;
  std::vector<Sample> samples_;
};

}  // namespace jitgemm
