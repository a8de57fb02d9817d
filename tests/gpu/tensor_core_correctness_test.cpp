// tf32x3 and tf32 through the public Runtime API against float64, per mode: the 343 shape
// triples of the fp32 test ({1, 7, 64, 127, 1000, 1537, 4096}^3, all op combinations, padded
// and unaligned leading dimensions, alpha/beta incl. beta = 0 over NaN) plus 64 products
// large enough for the tensor cores with signed, 2^+-30-scaled, and Inf/NaN-planted data
// (the output's NaN/Inf pattern must match float64's). Contracts (reference-problems.md):
// tf32x3 <= max(2 x cuBLAS SGEMM's error, 4u); tf32 <= 4 x cuBLAS TF32's error.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include "gpu_fixture.hpp"
#include "jitgemm/runtime.hpp"

namespace jitgemm::testing {
namespace {

class TensorCoreModes : public ::testing::TestWithParam<Precision> {};

TEST_P(TensorCoreModes, ShapesOpsLeadingDimensionsAlphaBetaAndSpecialValues) {
  JITGEMM_REQUIRE_GPU();
  GpuEnvironment& env = gpu();
  RuntimeOptions options;
  options.database_path = temp_dir("tc") + "/tuning.json";
  options.cache_dir = temp_dir("tc-cache");
  Runtime runtime(options);
  int cases = 0, failures = 0;
  auto check = [&](const GemmProblem& p, uint64_t seed, RandomKind kind) {
    ++cases;
    const CaseResult r = env.run_case(p, seed, kind, [&](const float* a, const float* b, float* c) {
      runtime.gemm(p, a, b, c, reinterpret_cast<CUstream_st*>(env.stream()));
    });
    if (!r.ours.passes(r.tolerance)) {
      ++failures;
      ADD_FAILURE() << fmt::format("{} kind {}: error {:.3g} (cuBLAS {:.3g}, tolerance {:.3g}), {} unwritten, {} "
                                   "NaN/Inf mismatches",
                                   p.to_string(), static_cast<int>(kind), r.ours.rel_error, r.cublas_error,
                                   r.tolerance, r.ours.unwritten, r.ours.mismatched);
    }
  };
  int i = 0;
  for (int64_t m : kSweepSizes)
    for (int64_t n : kSweepSizes)
      for (int64_t k : kSweepSizes) {
        const GemmProblem p = sweep_case(i, m, n, k, GetParam());
        check(p, 3000 + i, i % 5 == 4 ? RandomKind::SignedNormal : RandomKind::Uniform01);
        ++i;
      }
  for (int j = 0; j < 64; ++j) {
    GemmProblem p;
    p.m = 256 + 61 * j, p.n = 512 + 37 * (j % 7), p.k = 384 + 129 * (j % 5), p.precision = GetParam();
    p.trans_a = (j & 1) ? Op::T : Op::N;
    p.trans_b = (j & 2) ? Op::T : Op::N;
    if (j % 3 == 1) p.lda = p.effective_lda() + 1, p.ldb = p.effective_ldb() + 2, p.ldc = p.effective_ldc() + 3;
    p.beta = j % 4 == 3 ? 0.5f : 0.0f;
    const RandomKind kind = std::array{RandomKind::SignedNormal, RandomKind::WideExponent,
                                       RandomKind::WithSpecials}[j % 3];
    check(p, 9000 + j, kind);
  }
  EXPECT_GE(cases, 400);
  std::printf("[ info ] %s: %d cases, %d failures; served %llu exact, %llu nearest, %llu default\n",
              std::string(to_string(GetParam())).c_str(), cases, failures,
              static_cast<unsigned long long>(runtime.serve_counters().exact),
              static_cast<unsigned long long>(runtime.serve_counters().nearest),
              static_cast<unsigned long long>(runtime.serve_counters().fallback));
}

INSTANTIATE_TEST_SUITE_P(Modes, TensorCoreModes, ::testing::Values(Precision::TF32x3, Precision::TF32),
                         [](const auto& info) { return std::string(to_string(info.param)); });

}  // namespace
}  // namespace jitgemm::testing
