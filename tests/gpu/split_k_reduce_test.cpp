// The split-K reduction over every way it shares out the slices: slice counts that give one, two,
// four or eight threads a quad of C, and counts that are not multiples of those; widths whose
// last quad is partial (N = 37, 6, 1); both fills; beta 0 and not. Up to 8 slices the SIMT
// kernel's tiles' last CTAs add them (common/split_k_finish.cuh), beyond that
// fp32/split_k_reduce.cu does; both give the same bits. The workspace is NaN-filled
// (ConfigRunner), so a read of a slice's padding (columns N .. ldw, which no kernel writes)
// shows as a wrong result.
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

TEST(SplitKReduce, EverySliceShareAndPartialQuad) {
  JITGEMM_REQUIRE_GPU();
  ConfigRunner runner(gpu());
  int cases = 0;
  for (auto [m, n, k] : {std::tuple{19, 37, 531}, std::tuple{130, 6, 2048}, std::tuple{5, 1, 600}})
    for (int split : {1, 2, 3, 5, 8, 9, 17})
      for (Fill fill : {Fill::Full, Fill::Lower})
        for (float beta : {0.0f, 0.5f}) {
          GemmProblem p;
          p.m = m, p.n = n, p.k = k;
          p.fill = fill, p.alpha = 1.5f, p.beta = beta;
          KernelConfig config = simt_default_config(make_problem_key(p));
          config.split_k = split;
          const std::optional<CaseResult> r = runner.run(config, p, 900 + cases, RandomKind::SignedNormal);
          ASSERT_TRUE(r.has_value()) << config.name() << " on " << p.to_string();
          // The slices' sums are exact enough in double; what is left is each slice's FP32 chain.
          const double bound = std::max(r->tolerance, std::sqrt(static_cast<double>(k)) * kUnitRoundoff);
          EXPECT_TRUE(r->ours.passes(bound)) << describe_failure(config, p, *r);
          ++cases;
        }
  EXPECT_EQ(cases, 3 * 7 * 2 * 2);
}

// The kernel's own finish and the reduction kernel add the same doubles in the same order: C is
// the same bits either way (JITGEMM_SPLIT_K_FINISH=0 makes a launcher use the reduction kernel).
// Outputs of at least one tile per SM (where plans finish in the kernel), partial last quads
// (N = 1001, 998), both fills, beta 0.5.
TEST(SplitKReduce, TheKernelsFinishGivesTheReductionKernelsBits) {
  JITGEMM_REQUIRE_GPU();
  GpuEnvironment& env = gpu();
  KernelCache kernels(env.compiler(), TemplateStore::active());
  GemmLauncher finishing(env.compiler(), TemplateStore::active(), env.info().sm_count);
  setenv("JITGEMM_SPLIT_K_FINISH", "0", 1);
  GemmLauncher reducing(env.compiler(), TemplateStore::active(), env.info().sm_count);
  unsetenv("JITGEMM_SPLIT_K_FINISH");
  int cases = 0;
  for (const char* name : {"simt_fp32_64x64x8_w2x2_t4x8_s3_k1_g8", "simt_fp32_64x128x16_w1x4_t8x8_s3_k1_g8"})
    for (auto [m, n, k, fill] : {std::tuple{1100, 1001, 2000, Fill::Full}, std::tuple{1500, 998, 1500, Fill::Lower},
                                 std::tuple{1030, 1300, 3000, Fill::Upper}})
      for (int split : {2, 3, 4, 5, 8}) {
        GemmProblem p;
        p.m = m, p.n = n, p.k = k;
        p.fill = fill, p.alpha = -0.75f, p.beta = 0.5f;
        const ProblemKey key = make_problem_key(p);
        KernelConfig config = KernelConfig::parse(name);
        config.split_k = split;
        ASSERT_TRUE(simt_finishes_split_k(config, config.output_tiles(m, n), env.info().sm_count)) << config.name();
        const LoadedKernel& kernel = kernels.get(config, specialization_of(key));
        cuda::DeviceBuffer workspace(finishing.workspace_bytes(config, p));
        TwoRunsFromOneC runs(sizeof(float) * static_cast<size_t>(p.m * p.effective_ldc()));
        ++cases;
        const CaseResult r = env.run_case(p, 700 + cases, RandomKind::SignedNormal, [&](const float* a, const float* b,
                                                                                       float* c) {
          auto with = [&](GemmLauncher& launcher) {
            return [&] {
              launcher.launch(kernel.function, config, p, reinterpret_cast<CUdeviceptr>(a),
                              reinterpret_cast<CUdeviceptr>(b), reinterpret_cast<CUdeviceptr>(c), workspace.get(),
                              env.stream());
            };
          };
          runs.run(reinterpret_cast<CUdeviceptr>(c), env.stream(), with(reducing), with(finishing));  // checked: finishing
        });
        const std::string what = fmt::format("{} on {}", config.name(), p.to_string());
        // As above: the slices' sums are exact enough in double; each slice's FP32 chain is left.
        const double bound = std::max(r.tolerance, std::sqrt(static_cast<double>(k)) * kUnitRoundoff);
        EXPECT_TRUE(r.ours.passes(bound)) << describe_failure(config, p, r);
        JITGEMM_CU(cuda::driver().cuStreamSynchronize(env.stream()), "sync");
        EXPECT_TRUE(runs.same_bits()) << what << ": the kernel's finish and the reduction kernel differ";
      }
  EXPECT_EQ(cases, 2 * 3 * 5);
}

}  // namespace
}  // namespace jitgemm::testing
