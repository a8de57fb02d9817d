#include "tune/event_timer.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <thread>

#include "cuda/driver_api.hpp"

namespace jitgemm {

TimingStats summarize(std::vector<double> samples_ms) {
  TimingStats stats;
  stats.runs = static_cast<int>(samples_ms.size());
  if (samples_ms.empty()) return stats;
  std::vector<double> sorted = samples_ms;
  std::sort(sorted.begin(), sorted.end());
  auto quantile = [&](double q) {
    const double position = q * static_cast<double>(sorted.size() - 1);
    const size_t lo = static_cast<size_t>(std::floor(position)), hi = static_cast<size_t>(std::ceil(position));
    return sorted[lo] + (sorted[hi] - sorted[lo]) * (position - static_cast<double>(lo));
  };
  stats.median_ms = quantile(0.5);
  stats.p10_ms = quantile(0.1);
  stats.p90_ms = quantile(0.9);
  stats.samples_ms = std::move(samples_ms);
  return stats;
}

EventTimer::EventTimer(size_t l2_bytes) : flush_buffer_(std::max<size_t>(2 * l2_bytes, 1 << 20)) {}

TimingStats EventTimer::time(const std::function<void(CUstream)>& launch, CUstream stream, int warmup_runs,
                             int timed_runs, double idle_ratio) {
  const auto& cu = cuda::driver();
  for (int i = 0; i < warmup_runs; ++i) launch(stream);
  std::vector<double> samples;
  samples.reserve(static_cast<size_t>(timed_runs));
  for (int i = 0; i < timed_runs; ++i) {
    // A different value each time so no layer can skip the write.
    JITGEMM_CU(cu.cuMemsetD32Async(flush_buffer_.get(), ++flush_value_, flush_buffer_.size() / 4, stream),
               "L2 flush of {} bytes", flush_buffer_.size());
    start_.record(stream);
    launch(stream);
    stop_.record(stream);
    stop_.synchronize();
    samples.push_back(cuda::elapsed_ms(start_, stop_));
    if (idle_ratio > 0)
      std::this_thread::sleep_for(std::chrono::duration<double, std::milli>(idle_ratio * samples.back()));
  }
  return summarize(std::move(samples));
}

}  // namespace jitgemm
