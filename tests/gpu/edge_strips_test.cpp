// The edges of an fp32 product that whole SIMT tiles would waste (simt_edge_strips): rows or
// columns 1..8 past a multiple of 64, computed by fp32/edge_strips.cu, launched as the tiles'
// kernel's programmatic dependent. Every op, right and bottom strips and their corner,
// unaligned and padded leading dimensions, beta 0 and not, split-K finished in the kernel and
// by the reduction kernel; against float64, with C's padding checked untouched and the
// workspace NaN-filled (ConfigRunner). Then the same bits with the dependent launch switched
// off (the kernels one after the other) and from run to run.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <tuple>

#include "codegen/simt_family.hpp"
#include "config_cases.hpp"
#include "exec/gemm_launch.hpp"
#include "launch/kernel_cache.hpp"

namespace jitgemm::testing {
namespace {

struct StripCase {
  int64_t m, n, k;
  Op ta, tb;
  int pad;  // added to every leading dimension (0: tight; 1: rows not 16-byte aligned)
};

constexpr StripCase kCases[] = {
    {1537, 1537, 1537, Op::N, Op::N, 0},  // the sweep's row: both strips and the corner
    {1030, 2049, 300, Op::T, Op::N, 0},   // 6 rows and 1 column past
    {2049, 1032, 65, Op::N, Op::T, 1},    // unaligned, K not a multiple of the 8 chains
    {1100, 1025, 333, Op::T, Op::T, 4},   // the right strip alone (1100 = 17 * 64 + 12: whole tiles)
};

GemmProblem problem_of(const StripCase& t, float beta) {
  GemmProblem p;
  p.m = t.m, p.n = t.n, p.k = t.k;
  p.trans_a = t.ta, p.trans_b = t.tb;
  if (t.pad != 0)  // else tight (0): the launcher must not take N for C's row length once the strips shrink it
    p.lda = p.effective_lda() + t.pad, p.ldb = p.effective_ldb() + t.pad, p.ldc = p.effective_ldc() + t.pad;
  p.alpha = -0.75f, p.beta = beta;
  return p;
}

TEST(EdgeStrips, EveryOpSplitAndFinishAgainstFloat64) {
  JITGEMM_REQUIRE_GPU();
  ConfigRunner runner(gpu());
  int cases = 0;
  for (const StripCase& t : kCases)
    for (const char* name : {"simt_fp32_64x128x8_w2x2_t8x8_s4_k1_g8", "simt_fp32_128x256x16_w2x4_t8x16_s3_k1_g8"})
      for (int split : {1, 2, 4})
        for (float beta : {0.0f, 0.5f}) {
          const GemmProblem p = problem_of(t, beta);
          const ProblemKey key = make_problem_key(p);
          ASSERT_TRUE(specialization_of(key).edge_strips) << p.to_string();
          KernelConfig config = KernelConfig::parse(name);
          config.split_k = split;
          const std::optional<CaseResult> r = runner.run(config, p, 1300 + cases, RandomKind::SignedNormal);
          ASSERT_TRUE(r.has_value()) << config.name() << " on " << p.to_string();
          // The strips' sums are 8 FP32 chains of K / 8; the tiles' slices as in SplitKReduce.
          const double bound = std::max(r->tolerance, std::sqrt(static_cast<double>(t.k)) * kUnitRoundoff);
          EXPECT_TRUE(r->ours.passes(bound)) << describe_failure(config, p, *r);
          ++cases;
        }
  EXPECT_EQ(cases, 4 * 2 * 3 * 2);
}

TEST(EdgeStrips, TheSameBitsSideBySideAsOneAfterTheOther) {
  JITGEMM_REQUIRE_GPU();
  GpuEnvironment& env = gpu();
  KernelCache kernels(env.compiler(), TemplateStore::active());
  GemmLauncher side_by_side(env.compiler(), TemplateStore::active(), env.info().sm_count);
  setenv("JITGEMM_DEPENDENT_LAUNCH", "0", 1);
  GemmLauncher in_turn(env.compiler(), TemplateStore::active(), env.info().sm_count);
  unsetenv("JITGEMM_DEPENDENT_LAUNCH");
  int cases = 0;
  for (const StripCase& t : kCases) {
    const GemmProblem p = problem_of(t, 0.5f);
    const ProblemKey key = make_problem_key(p);
    KernelConfig config = KernelConfig::parse("simt_fp32_64x128x8_w2x2_t8x8_s4_k4_g8");
    const LoadedKernel& kernel = kernels.get(config, specialization_of(key));
    cuda::DeviceBuffer workspace(std::max<size_t>(4, side_by_side.workspace_bytes(config, p)));
    auto with = [&](GemmLauncher& launcher, const float* a, const float* b, float* c) {
      return [&launcher, &kernel, &config, &p, &workspace, &env, a, b, c] {
        launcher.launch(kernel.function, config, p, reinterpret_cast<CUdeviceptr>(a), reinterpret_cast<CUdeviceptr>(b),
                        reinterpret_cast<CUdeviceptr>(c), workspace.get(), env.stream());
      };
    };
    // Each pair of runs starts from the same C; run_case checks the second against float64.
    for (bool repeat : {false, true}) {
      TwoRunsFromOneC runs(sizeof(float) * static_cast<size_t>(p.m * p.effective_ldc()));
      ++cases;
      const CaseResult r =
          env.run_case(p, 1400 + cases / 2, RandomKind::SignedNormal, [&](const float* a, const float* b, float* c) {
            runs.run(reinterpret_cast<CUdeviceptr>(c), env.stream(), with(repeat ? side_by_side : in_turn, a, b, c),
                     with(side_by_side, a, b, c));
          });
      EXPECT_TRUE(r.ours.passes(std::max(r.tolerance, std::sqrt(static_cast<double>(t.k)) * kUnitRoundoff)))
          << describe_failure(config, p, r);
      JITGEMM_CU(cuda::driver().cuStreamSynchronize(env.stream()), "sync");
      EXPECT_TRUE(runs.same_bits()) << p.to_string() << (repeat ? ": two runs differ"
                                                                : ": side by side and one after the other differ");
    }
  }
  EXPECT_EQ(cases, 4 * 2);
}

}  // namespace
}  // namespace jitgemm::testing
