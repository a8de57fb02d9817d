// Structured products on every code path: each mode's representative sample of configs (and
// the mma.sync one in the tensor-core modes, the SIMT one in fp32), not only the configs the
// Runtime serves, on triangular operands (lower, upper, unit diagonal; op N and T; NaN in the
// unread part), symmetric ones stored in either triangle (which the SIMT kernel reads from a
// dense copy, M- and N-contiguous) and every fill, against float64 of the dense operands
// (gpu_fixture.hpp run_case). This covers the masked pre-pass, the dense copies of
// operands read in place, the work-list walk (persistent wgmma CTAs and one-tile-per-CTA
// SIMT / mma.sync), the fill epilogues, swapped wgmma (the kernel's triangles transposed) and
// the split-K reduction's fill; and the wgmma kernels that read a triangular operand raw (A in
// registers, B transformed or rounded in shared memory) and mask it themselves.
#include <gtest/gtest.h>

#include <set>
#include <tuple>

#include "codegen/candidate_space.hpp"
#include "codegen/wgmma_family.hpp"
#include "config_cases.hpp"

namespace jitgemm::testing {
namespace {

// Whether `c` masks a triangular operand of `key` in the kernel (wgmma, an operand read raw).
bool masks_in_kernel(const KernelConfig& c, const ProblemKey& key) {
  return c.if_wgmma() != nullptr && wgmma_operand_masks(c, specialization_of(key)) != WgmmaOperandMasks{};
}

// The candidates that mask a triangular operand in the kernel, the first of each kind (where
// B comes from, swapped or not, A rounded or truncated): code paths the sample may miss.
std::vector<KernelConfig> masked_raw_configs(const ProblemKey& key) {
  std::vector<KernelConfig> out;
  std::set<std::tuple<int, bool, int>> kinds;
  for (const KernelConfig& c : tuning_candidates(key)) {
    if (!masks_in_kernel(c, key)) continue;
    const WgmmaParams& w = c.wgmma();
    if (kinds.insert({static_cast<int>(w.b), w.swap_ab, static_cast<int>(w.a)}).second) out.push_back(c);
  }
  return out;
}

class StructuredConfigs : public ::testing::TestWithParam<Precision> {};

TEST_P(StructuredConfigs, EverySampleConfigOnTriangularOperandsAndFills) {
  JITGEMM_REQUIRE_GPU();
  ConfigRunner runner(gpu());
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
      // Symmetric operands, whose dense copies the SIMT kernel reads M- and N-contiguous: both,
      // in either triangle, a fill's work list, unaligned callers (pad 1), an edge tile on the
      // diagonal.
      {1000, 1000, 1000, Op::N, Op::N, Structure::Symmetric, Structure::SymmetricUpper, Fill::Full, 1.0f, 0.0f, 0},
      {777, 777, 777, Op::T, Op::N, Structure::SymmetricUpper, Structure::Symmetric, Fill::Upper, -1.5f, 0.5f, 1},
      {321, 450, 321, Op::N, Op::T, Structure::Symmetric, Structure::General, Fill::Full, 1.0f, 0.0f, 0},
  };
  int launched = 0, masked = 0;
  for (const Case& s : cases) {
    GemmProblem p;
    p.precision = GetParam();
    p.m = s.m, p.n = s.n, p.k = s.k, p.trans_a = s.ta, p.trans_b = s.tb;
    p.structure_a = s.sa, p.structure_b = s.sb, p.fill = s.fill;
    p.alpha = s.alpha, p.beta = s.beta;
    if (s.pad != 0) p.lda = p.effective_lda() + s.pad, p.ldb = p.effective_ldb() + s.pad, p.ldc = p.effective_ldc() + s.pad;
    const ProblemKey key = make_problem_key(p);
    std::vector<KernelConfig> configs = code_path_configs(key);
    const std::vector<KernelConfig> raw = masked_raw_configs(key);
    configs.insert(configs.end(), raw.begin(), raw.end());
    // A split K: each slice's loaders start at its own k (the symmetric loader's diagonal).
    if (p.precision == Precision::FP32) configs.push_back(KernelConfig::parse("simt_fp32_64x128x16_w1x4_t8x8_s3_k4_g8"));
    for (const KernelConfig& config : configs) {
      const std::optional<CaseResult> r = runner.run(config, p, 900 + launched, RandomKind::SignedNormal);
      if (!r) continue;  // alignment: the launcher refuses it
      ++launched;
      masked += masks_in_kernel(config, key);
      EXPECT_TRUE(r->ours.passes(r->tolerance)) << describe_failure(config, p, *r);
    }
  }
  std::printf("[ info ] %s: %d structured config launches, %d with operands masked in the kernel\n",
              std::string(to_string(GetParam())).c_str(), launched, masked);
  EXPECT_GE(launched, 5 * 8);
  if (GetParam() != Precision::FP32) EXPECT_GE(masked, 10);
}

INSTANTIATE_TEST_SUITE_P(AllModes, StructuredConfigs,
                         ::testing::Values(Precision::FP32, Precision::TF32x3, Precision::TF32),
                         [](const auto& info) { return std::string(to_string(info.param)); });

}  // namespace
}  // namespace jitgemm::testing
