// Symmetric operands (structure Symmetric, or SymmetricUpper): every family reads only the
// stored triangle. The other one is NaN when the kernels run (gpu_fixture.hpp), so a kernel
// that reads it fails; the result must meet the mode's contract against float64 of the full
// symmetric product. Covers the pre-pass that expands while it rounds (wgmma planes), the wgmma
// A' in registers read from its stored triangle (A_SYM: mirrored 32 x 32 boxes, the diagonal
// box read both ways, blocks of 64 whose two stages lie on two sides), the raw copy for operands
// read in place otherwise (SIMT, mma.sync, B' transformed or rounded, the converter's source),
// every op combination, sizes off the 32-row boxes, and padded leading dimensions.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <algorithm>

#include "codegen/candidate_space.hpp"
#include "codegen/mma_sync_family.hpp"
#include "codegen/wgmma_family.hpp"
#include "exec/gemm_launch.hpp"
#include "gpu_fixture.hpp"
#include "launch/kernel_cache.hpp"
#include "problem/problem_key.hpp"

namespace jitgemm::testing {
namespace {

class SymmetricOperands : public ::testing::TestWithParam<Precision> {};

TEST_P(SymmetricOperands, OnlyTheLowerTriangleIsRead) {
  JITGEMM_REQUIRE_GPU();
  GpuEnvironment& env = gpu();
  KernelCache kernels(env.compiler(), TemplateStore::active());
  GemmLauncher launcher(env.compiler(), TemplateStore::active(), env.info().sm_count);
  struct Case {
    int64_t m, n, k;
    Op ta, tb;
    bool sym_a, sym_b;
    int64_t pad;         // added to both leading dimensions
    bool upper = false;  // the upper triangle stored (symmetric_upper) instead of the lower
  };
  int cases = 0, expanded = 0;
  for (const Case& s : {Case{300, 257, 257, Op::N, Op::N, false, true, 0}, Case{513, 200, 513, Op::T, Op::T, true, false, 7},
                        Case{384, 384, 384, Op::N, Op::T, true, true, 4}, Case{1000, 1000, 1000, Op::T, Op::N, true, true, 0},
                        Case{513, 513, 513, Op::N, Op::N, true, true, 0, true},
                        Case{257, 300, 257, Op::T, Op::N, true, false, 3, true},
                        // Big enough for tf32x3's blocks of 64 (K >= 2048), off the 64-K blocks
                        // so that blocks straddle the diagonal's 32 x 32 sub-blocks.
                        Case{2080, 2080, 2080, Op::N, Op::N, true, true, 0},
                        Case{2112, 2112, 2112, Op::T, Op::T, true, true, 1, true}}) {
    GemmProblem p;
    p.precision = GetParam();
    p.m = s.m, p.n = s.n, p.k = s.k, p.trans_a = s.ta, p.trans_b = s.tb;
    const Structure sym = s.upper ? Structure::SymmetricUpper : Structure::Symmetric;
    p.structure_a = s.sym_a ? sym : Structure::General;
    p.structure_b = s.sym_b ? sym : Structure::General;
    if (s.pad != 0) p.lda = p.effective_lda() + s.pad, p.ldb = p.effective_ldb() + s.pad;
    p.alpha = 0.75f;
    const ProblemKey key = make_problem_key(p);
    const KernelSpecialization spec = specialization_of(key);
    std::vector<KernelConfig> configs = tuning_sample(key);
    if (p.precision != Precision::FP32) configs.push_back(mma_representative_sample(key).front());
    // tf32x3's A' in registers in blocks of 64, two stages of 32 each read from its own side
    // (rounded and truncated; swapped, A' is op(B)^T).
    if (p.precision == Precision::TF32x3 && wgmma_blocks_of_64_allowed(key))
      for (const char* name : {"wgmma_tf32x3_128x128x32_c2_s4_a64_b1_m0_g8_rst", "wgmma_tf32x3_128x128x32_c2_s4_a64_b1_m0_g8_rs",
                               "wgmma_tf32x3_128x128x32_c2_s4_a64_b1_m0_g8_rs_swap"})
        configs.push_back(KernelConfig::parse(name));
    // SIMT tiles with the K split that keeps the fp32 contract on small outputs (as served).
    for (KernelConfig& c : configs)
      if (c.family() == KernelFamily::Simt) c.split_k = default_split_k(key, c);
    for (const KernelConfig& config : configs) {
      if (!rules_of(config).runs_in_place(config, key)) continue;  // the launcher refuses it
      const LoadedKernel& kernel = kernels.get(config, spec);
      cuda::DeviceBuffer workspace(std::max<size_t>(4, launcher.workspace_bytes(config, p)));
      // NaN everywhere first: what a pre-pass leaves unwritten and a kernel reads reaches C.
      JITGEMM_CU(cuda::driver().cuMemsetD32(workspace.get(), 0x7fc00000u, workspace.size() / 4), "NaN workspace");
      ++cases;
      KernelConfig general_config = config;
      GemmProblem general = p;
      general.structure_a = general.structure_b = Structure::General;
      expanded += launcher.workspace_bytes(config, p) > launcher.workspace_bytes(general_config, general);
      const CaseResult r = env.run_case(p, 300 + cases, RandomKind::SignedNormal, [&](const float* a, const float* b,
                                                                                       float* c) {
        launcher.launch(kernel.function, config, p, reinterpret_cast<CUdeviceptr>(a), reinterpret_cast<CUdeviceptr>(b),
                        reinterpret_cast<CUdeviceptr>(c), workspace.get(), env.stream());
      });
      EXPECT_TRUE(r.ours.passes(r.tolerance))
          << fmt::format("{} on {}: error {:.3g} (cuBLAS {:.3g}, tolerance {:.3g}), {} unwritten, {} NaN/Inf mismatches",
                         config.name(), p.to_string(), r.ours.rel_error, r.cublas_error, r.tolerance, r.ours.unwritten,
                         r.ours.mismatched);
    }
  }
  std::printf("[ info ] %s: %d symmetric-operand cases, %d with an operand copied full first\n",
              std::string(to_string(GetParam())).c_str(), cases, expanded);
  EXPECT_GE(cases, 12);
  EXPECT_GE(expanded, 4);
}

INSTANTIATE_TEST_SUITE_P(AllModes, SymmetricOperands,
                         ::testing::Values(Precision::FP32, Precision::TF32x3, Precision::TF32),
                         [](const auto& info) { return std::string(to_string(info.param)); });

}  // namespace
}  // namespace jitgemm::testing
