// Event timing as METHOD.md says: warm-up runs, then many runs each preceded by an L2
// flush (a write over a buffer twice the L2's size), each timed by a pair of events on
// the stream; the median is the figure, p10/p90 show the spread.
#pragma once

#include <functional>
#include <vector>

#include <cuda.h>

#include "cuda/device_buffer.hpp"
#include "cuda/event.hpp"

namespace jitgemm {

struct TimingStats {
  double median_ms = 0;
  double p10_ms = 0;
  double p90_ms = 0;
  int runs = 0;
  bool l2_flushed = true;
  std::vector<double> samples_ms;
};

// Median and percentiles of a sample set.
TimingStats summarize(std::vector<double> samples_ms);

class EventTimer {
 public:
  // `l2_bytes`: the device's L2 size; the flush buffer is twice that.
  explicit EventTimer(size_t l2_bytes);

  // Runs `launch(stream)` warmup_runs times, then timed_runs times with an L2 flush
  // before each; synchronizes the stream. After each timed run the GPU is left idle (the host
  // sleeps) idle_ratio times that run's time. Launch errors propagate.
  TimingStats time(const std::function<void(CUstream)>& launch, CUstream stream, int warmup_runs,
                   int timed_runs, double idle_ratio = 0);

 private:
  cuda::DeviceBuffer flush_buffer_;
  cuda::Event start_, stop_;
  unsigned flush_value_ = 0;
};

}  // namespace jitgemm
