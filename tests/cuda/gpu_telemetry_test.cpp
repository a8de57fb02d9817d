// What the tuner and the bench say about the GPU's state over timed runs (no device needed:
// the conditions are given; GpuTelemetry's sampling itself runs in the GPU tests' tunes).
#include "cuda/gpu_telemetry.hpp"

#include <gtest/gtest.h>

namespace jitgemm {
namespace {

GpuConditions sampled(double power_capped, double thermal_or_hw) {
  GpuConditions c;
  c.samples = 400;
  c.sm_clock_mhz = 1725;
  c.min_sm_clock_mhz = 1680;
  c.max_sm_clock_mhz = 1980;
  c.power_w = 530.4;
  c.max_power_w = 631;
  c.power_limit_w = 700;
  c.max_temperature_c = 42;
  c.power_capped = power_capped;
  c.thermal_or_hw = thermal_or_hw;
  return c;
}

TEST(DescribeSlowdown, NothingToSayWithoutSamplesOrBelowAQuarterOfThem) {
  EXPECT_EQ(describe_slowdown(GpuConditions{}), "");
  GpuConditions unsampled = sampled(1.0, 1.0);
  unsampled.samples = 0;
  EXPECT_EQ(describe_slowdown(unsampled), "");
  EXPECT_EQ(describe_slowdown(sampled(0, 0)), "");
  EXPECT_EQ(describe_slowdown(sampled(0.24, 0.2)), "");
  // Flagged, but at full clock (the H200's lowertri tf32x3 at 466 W): nothing lost.
  GpuConditions full_clock = sampled(1.0, 0);
  full_clock.sm_clock_mhz = full_clock.min_sm_clock_mhz = 1965;
  EXPECT_EQ(describe_slowdown(full_clock), "");
}

TEST(DescribeSlowdown, NamesTheCauseOfMostSamplesAndHowTheGpuRan) {
  EXPECT_EQ(describe_slowdown(sampled(0.8, 0.1)),
            "slowed by the software power cap in 80% of 400 samples (SM clock 1725 MHz median of 1980, 1680 "
            "lowest; 530 W median of 700 W; 42 C at most)");
  EXPECT_EQ(describe_slowdown(sampled(0.0, 0.25)),
            "slowed by a hardware or thermal slowdown in 25% of 400 samples (SM clock 1725 MHz median of 1980, "
            "1680 lowest; 530 W median of 700 W; 42 C at most)");
  // The card's highest clock unknown: NVML's reasons alone decide.
  GpuConditions unknown_max = sampled(1.0, 0);
  unknown_max.sm_clock_mhz = 1965;
  unknown_max.max_sm_clock_mhz = 0;
  EXPECT_NE(describe_slowdown(unknown_max), "");
}

}  // namespace
}  // namespace jitgemm
