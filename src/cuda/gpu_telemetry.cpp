#include "cuda/gpu_telemetry.hpp"

#include <dlfcn.h>
#include <fmt/format.h>

#include <algorithm>
#include <chrono>

#include "cuda/driver_api.hpp"

namespace jitgemm {
namespace {

// The few NVML declarations used (nvml.h's C ABI; the toolkit here ships no nvml.h).
using nvmlReturn = int;  // 0: NVML_SUCCESS
using nvmlDevice = struct nvmlDevice_st*;
constexpr int kClockSm = 1;            // NVML_CLOCK_SM
constexpr int kTemperatureGpu = 0;     // NVML_TEMPERATURE_GPU
constexpr unsigned long long kSwPowerCap = 0x4;
constexpr unsigned long long kHwOrThermal = 0x8 | 0x20 | 0x40 | 0x80;  // HW slowdown, SW/HW thermal, power brake

template <class T>
T median_of(std::vector<T> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? T{} : v[v.size() / 2];
}

}  // namespace

struct GpuTelemetry::Nvml {
  void* library = nullptr;
  nvmlDevice device = nullptr;
  nvmlReturn (*shutdown)() = nullptr;
  nvmlReturn (*clock)(nvmlDevice, int, unsigned*) = nullptr;
  nvmlReturn (*power)(nvmlDevice, unsigned*) = nullptr;
  nvmlReturn (*temperature)(nvmlDevice, int, unsigned*) = nullptr;
  nvmlReturn (*reasons)(nvmlDevice, unsigned long long*) = nullptr;
};

std::string describe_slowdown(const GpuConditions& c) {
  if (c.samples == 0 || std::max(c.power_capped, c.thermal_or_hw) < kThrottledShare) return "";
  if (c.max_sm_clock_mhz > 0 && c.sm_clock_mhz >= kThrottledClock * c.max_sm_clock_mhz) return "";
  const std::string cause = c.power_capped >= c.thermal_or_hw
                                ? fmt::format("the software power cap in {:.0f}%", 100 * c.power_capped)
                                : fmt::format("a hardware or thermal slowdown in {:.0f}%", 100 * c.thermal_or_hw);
  const std::string of_max = c.max_sm_clock_mhz > 0 ? fmt::format(" of {:.0f}", c.max_sm_clock_mhz) : "";
  return fmt::format("slowed by {} of {} samples (SM clock {:.0f} MHz median{}, {:.0f} lowest; {:.0f} W median of "
                     "{:.0f} W; {:.0f} C at most)",
                     cause, c.samples, c.sm_clock_mhz, of_max, c.min_sm_clock_mhz, c.power_w, c.power_limit_w,
                     c.max_temperature_c);
}

GpuTelemetry::GpuTelemetry(int cuda_device) {
  void* lib = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
  if (lib == nullptr) {
    unavailable_ = "libnvidia-ml.so.1 not found";
    return;
  }
  auto nvml = std::make_unique<Nvml>();
  nvml->library = lib;
  auto sym = [&](const char* name) { return dlsym(lib, name); };
  auto init = reinterpret_cast<nvmlReturn (*)()>(sym("nvmlInit_v2"));
  auto by_bus = reinterpret_cast<nvmlReturn (*)(const char*, nvmlDevice*)>(sym("nvmlDeviceGetHandleByPciBusId_v2"));
  auto limit = reinterpret_cast<nvmlReturn (*)(nvmlDevice, unsigned*)>(sym("nvmlDeviceGetEnforcedPowerLimit"));
  auto max_clock = reinterpret_cast<nvmlReturn (*)(nvmlDevice, int, unsigned*)>(sym("nvmlDeviceGetMaxClockInfo"));
  nvml->shutdown = reinterpret_cast<nvmlReturn (*)()>(sym("nvmlShutdown"));
  nvml->clock = reinterpret_cast<nvmlReturn (*)(nvmlDevice, int, unsigned*)>(sym("nvmlDeviceGetClockInfo"));
  nvml->power = reinterpret_cast<nvmlReturn (*)(nvmlDevice, unsigned*)>(sym("nvmlDeviceGetPowerUsage"));
  nvml->temperature = reinterpret_cast<nvmlReturn (*)(nvmlDevice, int, unsigned*)>(sym("nvmlDeviceGetTemperature"));
  void* reasons = sym("nvmlDeviceGetCurrentClocksEventReasons");
  if (reasons == nullptr) reasons = sym("nvmlDeviceGetCurrentClocksThrottleReasons");
  nvml->reasons = reinterpret_cast<nvmlReturn (*)(nvmlDevice, unsigned long long*)>(reasons);
  if (!init || !by_bus || !limit || !nvml->shutdown || !nvml->clock || !nvml->power || !nvml->temperature ||
      !nvml->reasons || init() != 0) {
    unavailable_ = "NVML lacks an entry point or did not initialize";
    dlclose(lib);
    return;
  }
  // The CUDA device's PCI address names it to NVML (their orders may differ).
  const auto& cu = cuda::driver();
  CUdevice dev = 0;
  int domain = 0, bus = 0, slot = 0;
  JITGEMM_CU(cu.cuDeviceGet(&dev, cuda_device), "device {}", cuda_device);
  JITGEMM_CU(cu.cuDeviceGetAttribute(&domain, CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID, dev), "PCI domain");
  JITGEMM_CU(cu.cuDeviceGetAttribute(&bus, CU_DEVICE_ATTRIBUTE_PCI_BUS_ID, dev), "PCI bus");
  JITGEMM_CU(cu.cuDeviceGetAttribute(&slot, CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID, dev), "PCI device");
  const std::string address = fmt::format("{:08x}:{:02x}:{:02x}.0", domain, bus, slot);
  if (by_bus(address.c_str(), &nvml->device) != 0 || limit(nvml->device, &power_limit_mw_) != 0) {
    unavailable_ = fmt::format("NVML does not know the device at {}", address);
    nvml->shutdown();
    dlclose(lib);
    return;
  }
  // Optional: without it a slowdown is judged by NVML's reasons alone.
  if (max_clock == nullptr || max_clock(nvml->device, kClockSm, &max_sm_clock_mhz_) != 0) max_sm_clock_mhz_ = 0;
  nvml_ = nvml.release();
}

GpuTelemetry::~GpuTelemetry() {
  if (running_) stop();
  if (nvml_ == nullptr) return;
  nvml_->shutdown();
  dlclose(nvml_->library);
  delete nvml_;
}

bool GpuTelemetry::read(Sample& s) const {
  return nvml_->clock(nvml_->device, kClockSm, &s.sm_mhz) == 0 && nvml_->power(nvml_->device, &s.power_mw) == 0 &&
         nvml_->temperature(nvml_->device, kTemperatureGpu, &s.temperature_c) == 0 &&
         nvml_->reasons(nvml_->device, &s.reasons) == 0;
}

void GpuTelemetry::start() {
  if (nvml_ == nullptr || running_) return;
  samples_.clear();
  running_ = true;
  sampler_ = std::thread([this] {
    while (running_) {
      Sample s;
      if (recording_ && read(s)) {
        std::lock_guard lock(mutex_);
        samples_.push_back(s);
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
  });
}

GpuConditions GpuTelemetry::stop() {
  GpuConditions t;
  if (!running_) return t;
  running_ = false;
  recording_ = false;
  sampler_.join();
  std::lock_guard lock(mutex_);
  if (samples_.empty()) return t;
  std::vector<double> clock, power;
  for (const Sample& s : samples_) {
    clock.push_back(s.sm_mhz);
    power.push_back(s.power_mw / 1000.0);
    t.max_temperature_c = std::max<double>(t.max_temperature_c, s.temperature_c);
    t.power_capped += (s.reasons & kSwPowerCap) != 0;
    t.thermal_or_hw += (s.reasons & kHwOrThermal) != 0;
  }
  t.samples = static_cast<int>(samples_.size());
  t.sm_clock_mhz = median_of(clock);
  t.min_sm_clock_mhz = *std::min_element(clock.begin(), clock.end());
  t.max_sm_clock_mhz = max_sm_clock_mhz_;
  t.power_w = median_of(power);
  t.max_power_w = *std::max_element(power.begin(), power.end());
  t.power_limit_w = power_limit_mw_ / 1000.0;
  t.power_capped /= t.samples;
  t.thermal_or_hw /= t.samples;
  return t;
}

}  // namespace jitgemm
