// The helper kernels the benchmark's timing leans on: a hold of the stream keeps the GPU busy
// for its time, so work the host enqueues after the start event (however slowly) is timed from
// when the GPU reaches it, not from when the host got there.
#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include "cuda/device_buffer.hpp"
#include "cuda/event.hpp"
#include "gpu_fixture.hpp"

namespace jitgemm::testing {
namespace {

// Milliseconds between a start event recorded after `hold_us` of hold and the end of one small
// kernel that the host enqueues `host_delay` after recording the start.
double span_after_slow_host(GpuEnvironment& env, double hold_us, std::chrono::microseconds host_delay) {
  cuda::DeviceBuffer x(4 * 1024);
  cuda::Event start, stop;
  env.support().fill_value(x.get(), 1024, 0.0f, env.stream());  // module loaded, stream warm
  JITGEMM_CU(cuda::driver().cuStreamSynchronize(env.stream()), "warm-up");
  env.support().hold(hold_us, env.stream());
  start.record(env.stream());
  std::this_thread::sleep_for(host_delay);
  env.support().fill_value(x.get(), 1024, 1.0f, env.stream());
  stop.record(env.stream());
  stop.synchronize();
  return cuda::elapsed_ms(start, stop);
}

TEST(SupportKernels, AHeldStreamTimesTheGpusWorkNotTheHostsEnqueueing) {
  JITGEMM_REQUIRE_GPU();
  GpuEnvironment& env = gpu();
  const auto host_delay = std::chrono::microseconds(2000);
  // No hold: the GPU idles at the start event until the host enqueues the kernel.
  EXPECT_GE(span_after_slow_host(env, 0, host_delay), 1.9);
  // A hold longer than the host's delay: the kernel is queued before the GPU reaches the
  // start event, and the span is the kernel's few microseconds.
  EXPECT_LT(span_after_slow_host(env, 20000, host_delay), 0.5);
}

TEST(SupportKernels, AHoldLastsItsTime) {
  JITGEMM_REQUIRE_GPU();
  GpuEnvironment& env = gpu();
  cuda::Event start, stop;
  start.record(env.stream());
  env.support().hold(3000, env.stream());
  stop.record(env.stream());
  stop.synchronize();
  const double ms = cuda::elapsed_ms(start, stop);
  EXPECT_GE(ms, 2.99);
  EXPECT_LT(ms, 100.0);
}

}  // namespace
}  // namespace jitgemm::testing
