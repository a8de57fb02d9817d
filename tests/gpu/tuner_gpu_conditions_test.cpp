// The tuner samples the GPU (NVML) over its final round and reports how it ran there
// (TuneResult::final_round_gpu): a round slowed by the power cap or heat times every finalist
// slow, which jitgemm-tune then says.
#include <gtest/gtest.h>

#include "codegen/candidate_space.hpp"
#include "cuda/gpu_telemetry.hpp"
#include "gpu_fixture.hpp"
#include "problem/problem_key.hpp"
#include "tune/tuner.hpp"

namespace jitgemm::testing {
namespace {

TEST(TunerGpuConditions, TheFinalRoundIsSampledWhereNvmlIs) {
  JITGEMM_REQUIRE_GPU();
  GpuEnvironment& env = gpu();
  GemmProblem p;
  p.m = p.n = p.k = 1024;
  TuneSettings settings;
  for (const KernelConfig& c : tuning_candidates(make_problem_key(p))) {
    if (c.family() == KernelFamily::Simt) settings.candidates.push_back(c);
    if (settings.candidates.size() == 4) break;
  }
  settings.search = TuneSearch::Exhaustive;
  settings.finalists = 4;
  settings.timing_runs = 200;  // 4 x 200 runs: tens of milliseconds, many 2 ms samples
  const TuneResult result = tune_problem(p, env.info(), env.compiler(), TemplateStore::active(), settings);
  ASSERT_NE(result.best(), nullptr);
  const GpuConditions& gpu = result.final_round_gpu;
  const GpuTelemetry probe(env.info().ordinal);
  if (!probe.unavailable().empty()) {
    EXPECT_EQ(gpu.samples, 0) << "no NVML here (" << probe.unavailable() << "), yet samples";
    GTEST_SKIP() << "NVML unavailable: " << probe.unavailable();
  }
  EXPECT_GE(gpu.samples, 5);
  EXPECT_GT(gpu.sm_clock_mhz, 100);
  EXPECT_LE(gpu.min_sm_clock_mhz, gpu.sm_clock_mhz);
  EXPECT_GT(gpu.power_w, 0);
  EXPECT_LE(gpu.power_w, gpu.max_power_w);
  EXPECT_GT(gpu.power_limit_w, 0);
  EXPECT_GE(gpu.power_capped, 0);
  EXPECT_LE(gpu.power_capped, 1);
  EXPECT_GE(gpu.thermal_or_hw, 0);
  EXPECT_LE(gpu.thermal_or_hw, 1);
  std::printf("[ info ] final round: %d samples, %.0f MHz median, %.0f W median of %.0f W, power-capped %.0f%%\n",
              gpu.samples, gpu.sm_clock_mhz, gpu.power_w, gpu.power_limit_w, 100 * gpu.power_capped);
}

}  // namespace
}  // namespace jitgemm::testing
