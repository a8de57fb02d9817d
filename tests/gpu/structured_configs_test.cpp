// Structured products on every code path: each mode's representative sample of configs (and
// the mma.sync one in the tensor-core modes, the SIMT one in fp32), not only the configs the
// Runtime serves, on triangular operands (lower, upper, unit diagonal; op N and T; NaN in the
// unread part), upper-stored symmetric ones and every fill, against float64 of the dense
// operands (gpu_fixture.hpp run_case). This covers the masked pre-pass, the dense copies of
// operands read in place, the work-list walk (persistent wgmma CTAs and one-tile-per-CTA
// SIMT / mma.sync), the fill epilogues, swapped wgmma (the kernel's triangles transposed) and
// the split-K reduction's fill.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <algorithm>

#include "codegen/candidate_space.hpp"
#include "codegen/mma_sync_family.hpp"
#include "codegen/split_k_policy.hpp"
#include "exec/gemm_launch.hpp"
#include "gpu_fixture.hpp"
#include "launch/kernel_cache.hpp"
#include "problem/problem_key.hpp"

namespace jitgemm::testing {
namespace {

class StructuredConfigs : public ::testing::TestWithParam<Precision> {};

TEST_P(StructuredConfigs, EverySampleConfigOnTriangularOperandsAndFills) {
  JITGEMM_REQUIRE_GPU();
  GpuEnvironment& env = gpu();
  KernelCache kernels(env.compiler(), TemplateStore::active());
  GemmLauncher launcher(env.compiler(), TemplateStore::active(), env.info().sm_count);
  struct Case {
    int64_t m, n, k;
    Op ta, tb;
    Structure sa, sb;
    Fill fill;
    float alpha, beta;
    int64_t pad;  // added to every leading dimension
  };
  const Case cases[] = {
      {1000, 1000, 1000, Op::N, Op::N, Structure::Lower, Structure::Lower, Fill::Lower, 1.0f, 0.0f, 0},  // lowertri
      {777, 520, 777, Op::T, Op::N, Structure::UpperUnit, Structure::General, Fill::Full, -0.5f, 1.0f, 3},
      {300, 641, 641, Op::N, Op::T, Structure::General, Structure::LowerUnit, Fill::Upper, 0.75f, 0.25f, 4},
      {513, 513, 300, Op::N, Op::N, Structure::Lower, Structure::Upper, Fill::Full, 1.0f, 0.0f, 0},  // trapezoidal
      {640, 640, 640, Op::T, Op::T, Structure::SymmetricUpper, Structure::Upper, Fill::Lower, 1.0f, 1.0f, 0},
  };
  int launched = 0;
  for (const Case& s : cases) {
    GemmProblem p;
    p.precision = GetParam();
    p.m = s.m, p.n = s.n, p.k = s.k, p.trans_a = s.ta, p.trans_b = s.tb;
    p.structure_a = s.sa, p.structure_b = s.sb, p.fill = s.fill;
    p.alpha = s.alpha, p.beta = s.beta;
    if (s.pad != 0) p.lda = p.effective_lda() + s.pad, p.ldb = p.effective_ldb() + s.pad, p.ldc = p.effective_ldc() + s.pad;
    const ProblemKey key = make_problem_key(p);
    const KernelSpecialization spec = specialization_of(key);
    std::vector<KernelConfig> configs = tuning_sample(key);
    configs.push_back(untuned_config(key));
    if (p.precision != Precision::FP32) {
      KernelConfig mma = mma_representative_sample(key).front();
      configs.push_back(mma);
      mma.split_k = 4;  // the split-K reduction applies the fill
      configs.push_back(mma);
    }
    // SIMT tiles with the K split that keeps the fp32 contract on small outputs (as served:
    // shorter FMA chains, the slices added in double), and one more split for the reduction.
    for (KernelConfig& c : configs)
      if (c.family() == KernelFamily::Simt) c.split_k = default_split_k(key, c);
    if (p.precision == Precision::FP32) {
      KernelConfig split = configs.front();
      split.split_k = 4;
      configs.push_back(split);
    }
    for (const KernelConfig& config : configs) {
      if (!rules_of(config).runs_in_place(config, key)) continue;  // alignment: the launcher refuses it
      const LoadedKernel& kernel = kernels.get(config, spec);
      cuda::DeviceBuffer workspace(std::max<size_t>(4, launcher.workspace_bytes(config, p)));
      ++launched;
      const CaseResult r = env.run_case(p, 900 + launched, RandomKind::SignedNormal,
                                        [&](const float* a, const float* b, float* c) {
                                          launcher.launch(kernel.function, config, p, reinterpret_cast<CUdeviceptr>(a),
                                                          reinterpret_cast<CUdeviceptr>(b),
                                                          reinterpret_cast<CUdeviceptr>(c), workspace.get(),
                                                          env.stream());
                                        });
      EXPECT_TRUE(r.ours.passes(r.tolerance)) << fmt::format(
          "{} on {}: error {:.3g} (cuBLAS {:.3g}, tolerance {:.3g}), {} unwritten, {} NaN/Inf mismatches, {} padding "
          "writes",
          config.name(), p.to_string(), r.ours.rel_error, r.cublas_error, r.tolerance, r.ours.unwritten,
          r.ours.mismatched, r.ours.padding_written);
    }
  }
  std::printf("[ info ] %s: %d structured config launches\n", std::string(to_string(GetParam())).c_str(), launched);
  EXPECT_GE(launched, 5 * 8);
}

INSTANTIATE_TEST_SUITE_P(AllModes, StructuredConfigs,
                         ::testing::Values(Precision::FP32, Precision::TF32x3, Precision::TF32),
                         [](const auto& info) { return std::string(to_string(info.param)); });

}  // namespace
}  // namespace jitgemm::testing
