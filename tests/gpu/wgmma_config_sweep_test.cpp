// Every config of the tf32x3 and tf32 representative samples, launched directly (not through
// the serving policy) for every op combination, on shapes with partial tiles, with signed,
// wide-exponent and Inf/NaN-planted data, against float64 and the mode's contract (the NaN/Inf
// pattern must match float64's). This is where the layouts of A in registers (K-major and
// MN-major, swapped or not, rounded or truncated) and B made K-major by the transform warps
// (op(A) and op(B) both MN-major) are exercised whatever the tuner picks.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <algorithm>
#include <vector>

#include "codegen/candidate_space.hpp"
#include "codegen/wgmma_family.hpp"
#include "exec/gemm_launch.hpp"
#include "gpu_fixture.hpp"
#include "launch/kernel_cache.hpp"
#include "problem/problem_key.hpp"

namespace jitgemm::testing {
namespace {

class WgmmaConfigSweep : public ::testing::TestWithParam<Precision> {};

TEST_P(WgmmaConfigSweep, SampleConfigsAllOpsPartialTilesSpecialValues) {
  JITGEMM_REQUIRE_GPU();
  GpuEnvironment& env = gpu();
  KernelCache kernels(env.compiler(), TemplateStore::active());
  GemmLauncher launcher(env.compiler(), TemplateStore::active(), env.info().sm_count);
  int cases = 0, in_registers = 0, transforms = 0;
  for (int ops = 0; ops < 4; ++ops)
    for (int shape = 0; shape < 2; ++shape)
      for (bool padded : {false, true}) {
        GemmProblem p;
        p.precision = GetParam();
        std::tie(p.m, p.n, p.k) = shape == 0 ? std::tuple{1000, 777, 1000} : std::tuple{257, 1537, 300};
        p.trans_a = (ops & 1) ? Op::T : Op::N;
        p.trans_b = (ops & 2) ? Op::T : Op::N;
        if (padded) {  // aligned rows with a gap (TMA can still read A and B in place)
          p.lda = (p.effective_lda() + 3) / 4 * 4 + 4;
          p.ldb = (p.effective_ldb() + 3) / 4 * 4 + 4;
          p.ldc = p.effective_ldc() + 3;
        } else {       // tight: lda/ldb of 1000, 777, 257, ... (odd widths cannot be read in place)
          p.lda = p.effective_lda(), p.ldb = p.effective_ldb();
        }
        p.alpha = -0.5f;
        p.beta = padded ? 0.25f : 0.0f;
        const ProblemKey key = make_problem_key(p);
        const KernelSpecialization spec = specialization_of(key);
        for (const KernelConfig& config : representative_sample(key)) {
          if (!wgmma_runs_in_place(config, key)) continue;  // the launcher refuses it
          const LoadedKernel& kernel = kernels.get(config, spec);
          cuda::DeviceBuffer workspace(std::max<size_t>(4, launcher.workspace_bytes(config, p)));
          // A in registers also gets inf and NaN in A alone (B and C finite): the tf32x3 NaN guard
          // then rests on the consumers' vote over A's fragments alone (tf32/mainloop.cuh), where
          // specials in every operand mostly find B's flag set first.
          using Kinds = GpuEnvironment::DataKinds;
          constexpr RandomKind kSigned = RandomKind::SignedNormal, kSpecials = RandomKind::WithSpecials;
          std::vector<Kinds> kinds = {{kSigned, kSigned, kSigned},
                                      {RandomKind::WideExponent, RandomKind::WideExponent, RandomKind::WideExponent},
                                      {kSpecials, kSpecials, kSpecials}};
          if (config.wgmma().a_in_registers()) kinds.push_back({kSpecials, kSigned, kSigned});
          for (const Kinds& kind : kinds) {
            ++cases;
            in_registers += config.wgmma().a_in_registers() ? 1 : 0;
            transforms += config.wgmma().b == WgmmaB::Transformed ? 1 : 0;
            const CaseResult r =
                env.run_case(p, 700 + cases, kind, [&](const float* a, const float* b, float* c) {
                  launcher.launch(kernel.function, config, p, reinterpret_cast<CUdeviceptr>(a),
                                  reinterpret_cast<CUdeviceptr>(b), reinterpret_cast<CUdeviceptr>(c),
                                  workspace.get(), env.stream());
                });
            EXPECT_TRUE(r.ours.passes(r.tolerance))
                << fmt::format("{} on {} ({}), kinds (A B C) {}: error {:.3g} (cuBLAS {:.3g}, tolerance {:.3g}), {} unwritten, "
                               "{} NaN/Inf mismatches",
                               config.name(), p.to_string(), spec.suffix(),
                               fmt::format("{}{}{}", static_cast<int>(kind.a), static_cast<int>(kind.b),
                                           static_cast<int>(kind.c)),
                               r.ours.rel_error,
                               r.cublas_error, r.tolerance, r.ours.unwritten, r.ours.mismatched);
          }
        }
      }
  std::printf("[ info ] %s: %d config x problem x data cases, %d with A in registers, %d with B transformed\n",
              std::string(to_string(GetParam())).c_str(), cases, in_registers, transforms);
  EXPECT_GE(cases, 200);
  EXPECT_GE(in_registers, 60);
  EXPECT_GE(transforms, 30);
}

// tf32x3 blocks of 64 (acc_block_k = 64): an error of about 2.5e-7 whatever the product, so they
// are candidates (and the default) only from K = 2048 on large outputs, where cuBLAS's error and
// so the contract stay above it (wgmma_blocks_of_64_allowed). Each such config at the edge of that
// rule, for every op of A and kind of data, a symmetric pair (the dense copy: no A_SYM in blocks
// of two stages), and the key's default.
TEST(WgmmaBlocksOf64, MeetTheContractWhereAllowed) {
  JITGEMM_REQUIRE_GPU();
  GpuEnvironment& env = gpu();
  KernelCache kernels(env.compiler(), TemplateStore::active());
  GemmLauncher launcher(env.compiler(), TemplateStore::active(), env.info().sm_count);
  struct Shape {
    int64_t m, n, k;
    Op ta, tb;
    bool symmetric = false;
    int64_t ld = 0;     // > 0: B's and C's leading dimension (C's rows padded past an odd N)
    float beta = 0.0f;
  };
  const std::vector<std::string> names = {"wgmma_tf32x3_128x128x32_c2_s4_a64_b1_m0_g8_rst",
                                          "wgmma_tf32x3_128x128x32_c2_s4_a64_b1_m0_g8_rs_swap",
                                          "wgmma_tf32x3_128x128x32_c2_s3_a64_b1_m0_g8",
                                          "wgmma_tf32x3_128x128x16_c2_s6_a64_b1_m0_g8_sk"};
  int cases = 0;
  double worst = 0;  // error / tolerance
  // (TN: the default reads the bigger operand in registers, MN-major, swapped where M < N.)
  for (const Shape& s : {Shape{2048, 2048, 2048, Op::N, Op::N}, Shape{2048, 2048, 2048, Op::T, Op::N},
                         Shape{2048, 4096, 2048, Op::T, Op::N},
                         Shape{4096, 1024, 2048, Op::N, Op::T}, Shape{2048, 2048, 4096, Op::N, Op::N},
                         Shape{2048, 2048, 2048, Op::N, Op::N, true},
                         // swapped and paired: C's rows in 8-byte stores, the last column alone
                         // (N odd), beta read
                         Shape{2048, 2049, 2048, Op::T, Op::N, false, 2052, 0.25f}}) {
    GemmProblem p;
    p.precision = Precision::TF32x3;
    p.m = s.m, p.n = s.n, p.k = s.k, p.trans_a = s.ta, p.trans_b = s.tb;
    if (s.ld > 0) p.ldb = p.ldc = s.ld;
    p.beta = s.beta;
    if (s.symmetric) p.structure_a = p.structure_b = Structure::Symmetric;
    const ProblemKey key = make_problem_key(p);
    ASSERT_TRUE(wgmma_blocks_of_64_allowed(key)) << p.to_string();
    const KernelSpecialization spec = specialization_of(key);
    std::vector<KernelConfig> configs = {default_config(key)};
    for (const std::string& name : names) configs.push_back(KernelConfig::parse(name));
    for (const KernelConfig& config : configs) {
      if (!wgmma_runs_in_place(config, key)) continue;
      const LoadedKernel& kernel = kernels.get(config, spec);
      cuda::DeviceBuffer workspace(std::max<size_t>(4, launcher.workspace_bytes(config, p)));
      for (RandomKind kind : {RandomKind::Uniform01, RandomKind::SignedNormal, RandomKind::WideExponent,
                              RandomKind::WithSpecials}) {
        ++cases;
        const CaseResult r = env.run_case(p, 900 + cases, kind, [&](const float* a, const float* b, float* c) {
          launcher.launch(kernel.function, config, p, reinterpret_cast<CUdeviceptr>(a), reinterpret_cast<CUdeviceptr>(b),
                          reinterpret_cast<CUdeviceptr>(c), workspace.get(), env.stream());
        });
        worst = std::max(worst, r.ours.rel_error / r.tolerance);
        EXPECT_TRUE(r.ours.passes(r.tolerance))
            << fmt::format("{} on {}, data kind {}: error {:.3g} (cuBLAS {:.3g}, tolerance {:.3g}), {} unwritten, {} "
                           "NaN/Inf mismatches",
                           config.name(), p.to_string(), static_cast<int>(kind), r.ours.rel_error, r.cublas_error,
                           r.tolerance, r.ours.unwritten, r.ours.mismatched);
      }
    }
  }
  std::printf("[ info ] blocks of 64: %d config x problem x data cases, worst error %.2f of the tolerance\n", cases, worst);
  EXPECT_GE(cases, 60);
}

INSTANTIATE_TEST_SUITE_P(BothModes, WgmmaConfigSweep, ::testing::Values(Precision::TF32x3, Precision::TF32),
                         [](const auto& info) { return std::string(to_string(info.param)); });

}  // namespace
}  // namespace jitgemm::testing
