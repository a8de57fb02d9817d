// gpu_telemetry.hpp — the GPU's SM clock, power and temperature while timed runs execute,
// read through NVML (libnvidia-ml.so.1, opened at run time like libcuda): between start() and
// stop() a thread samples every 2 ms while recording is on. Says whether a kernel ran at full
// clock or slowed (NVML's clock event reasons: software power cap, hardware slowdown, thermal
// slowdowns). The bench records it around jitgemm's runs of each row; the tuner around its
// final round (TuneResult::final_round_gpu).
//
//   GpuTelemetry telemetry(device_ordinal);    // unavailable(): no NVML, nothing is sampled
//   telemetry.start();
//   telemetry.record(true);  ... timed runs ...  telemetry.record(false);
//   GpuConditions c = telemetry.stop();
#pragma once

#include <atomic>
#include <cstdint>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace jitgemm {

struct GpuConditions {
  int samples = 0;            // 0: NVML unavailable or nothing recorded long enough to sample
  double sm_clock_mhz = 0;    // median
  double min_sm_clock_mhz = 0;
  double max_sm_clock_mhz = 0; // the card's highest SM clock (0: not known)
  double power_w = 0;         // median
  double max_power_w = 0;
  double power_limit_w = 0;   // the enforced limit
  double max_temperature_c = 0;
  double power_capped = 0;    // share of samples slowed by the software power cap
  double thermal_or_hw = 0;   // share slowed by a hardware slowdown or a thermal limit
};

// A share of slowed samples at or above which, with a median SM clock under kThrottledClock of
// the card's highest, a timing is called throttled. (NVML flags the power cap at 1965 MHz of
// 1980 too, 466 W of 700, which costs nothing.)
inline constexpr double kThrottledShare = 0.25;
inline constexpr double kThrottledClock = 0.98;

// "" when the GPU ran unslowed (or nothing was sampled); else one line saying how it ran:
// "slowed by the software power cap in 80% of 412 samples (SM clock 1725 MHz median of 1980,
// 1680 lowest; 695 W median of 700 W; 52 C at most)".
std::string describe_slowdown(const GpuConditions& c);

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
  GpuConditions stop();

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
  unsigned max_sm_clock_mhz_ = 0;
  std::atomic<bool> running_{false}, recording_{false};
  std::thread sampler_;
  std::mutex mutex_;
  std::vector<Sample> samples_;
};

}  // namespace jitgemm
