// fp32 correctness through the public Runtime API against float64, on fresh random data:
// M, N, K from {1, 7, 64, 127, 1000, 1537, 4096} (all 343 triples), the four op
// combinations, padded and unaligned leading dimensions, alpha in {1, -0.5}, beta in
// {0 with NaN-filled C, 1, 0.25}. The contract: error <= max(2 x cuBLAS SGEMM's, 4u),
// no unwritten element, the NaN/Inf pattern of float64. The large ones read A or B from a
// copy in the layout its loader takes in 16-byte units (simt_operand_copies), aligned or not.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <filesystem>

#include "codegen/kernel_family.hpp"
#include "codegen/simt_family.hpp"
#include "gpu_fixture.hpp"
#include "jitgemm/error.hpp"
#include "jitgemm/runtime.hpp"

namespace jitgemm::testing {

GpuEnvironment& gpu() {
  static GpuEnvironment env;
  return env;
}

namespace {

TEST(GemmCorrectness, Fp32AllShapesOpsLeadingDimensionsAlphaBeta) {
  JITGEMM_REQUIRE_GPU();
  GpuEnvironment& env = gpu();
  Runtime runtime(isolated_options("correctness"));
  int index = 0, failures = 0, copied = 0;
  for (int64_t m : kSweepSizes)
    for (int64_t n : kSweepSizes)
      for (int64_t k : kSweepSizes) {
        const int i = index++;
        const GemmProblem p = sweep_case(i, m, n, k, Precision::FP32);
        const SimtCopies copies = simt_operand_copies(make_problem_key(p));
        copied += copies.a || copies.b;
        const RandomKind kind = (i % 5 == 4) ? RandomKind::SignedNormal : RandomKind::Uniform01;
        const CaseResult r = env.run_case(p, 1000 + i, kind, [&](const float* a, const float* b, float* c) {
          runtime.gemm(p, a, b, c, reinterpret_cast<CUstream_st*>(env.stream()));
        });
        if (!r.ours.passes(r.tolerance)) {
          ++failures;
          ADD_FAILURE() << fmt::format("case {}: {}: error {:.3g} (cuBLAS {:.3g}, tolerance {:.3g}), {} unwritten, {} "
                                       "NaN/Inf mismatches",
                                       i, p.to_string(), r.ours.rel_error, r.cublas_error, r.tolerance,
                                       r.ours.unwritten, r.ours.mismatched);
        }
      }
  EXPECT_GE(index, 300);
  const auto counters = runtime.serve_counters();
  EXPECT_EQ(counters.fallback, static_cast<uint64_t>(index));  // an empty database: never tuned, never exact
  EXPECT_EQ(counters.exact + counters.nearest, 0u);
  EXPECT_GE(copied, 8);
  std::printf("[ info ] %d cases (%d with a transposed copy), %d failures\n", index, copied, failures);
}

TEST(GemmCorrectness, WideExponentRangeAndSignedData) {
  JITGEMM_REQUIRE_GPU();
  GpuEnvironment& env = gpu();
  Runtime runtime(isolated_options("wide"));
  for (int i = 0; i < 8; ++i) {
    GemmProblem p;
    p.m = 1000 + 37 * i, p.n = 777, p.k = 1537;
    p.trans_a = (i & 1) ? Op::T : Op::N;
    p.trans_b = (i & 2) ? Op::T : Op::N;
    const auto kind = i < 4 ? RandomKind::WideExponent : RandomKind::SignedNormal;
    const CaseResult r = env.run_case(p, 77 + i, kind, [&](const float* a, const float* b, float* c) {
      runtime.gemm(p, a, b, c, reinterpret_cast<CUstream_st*>(env.stream()));
    });
    EXPECT_TRUE(r.ours.passes(r.tolerance)) << p.to_string() << " error " << r.ours.rel_error << " tolerance "
                                            << r.tolerance;
  }
}

TEST(ServeRules, TuneThenExactNearestDefault) {
  JITGEMM_REQUIRE_GPU();
  GpuEnvironment& env = gpu();
  const RuntimeOptions options = isolated_options("serve");
  Runtime runtime(options);
  GemmProblem tuned;
  tuned.m = 384, tuned.n = 256, tuned.k = 512;
  auto run = [&](const GemmProblem& p) {
    const CaseResult r = env.run_case(p, 5, RandomKind::Uniform01, [&](const float* a, const float* b, float* c) {
      runtime.gemm(p, a, b, c, reinterpret_cast<CUstream_st*>(env.stream()));
    });
    EXPECT_TRUE(r.ours.passes(r.tolerance)) << p.to_string();
  };
  // Served (and its selection memoized) before it is tuned: the default heuristic.
  run(tuned);
  EXPECT_EQ(runtime.last_serve_rule(), ServeRule::Default);

  TuneOptions tune_options;
  tune_options.jobs = 0;
  const double ms = runtime.tune(tuned, tune_options);
  EXPECT_GT(ms, 0.0);
  ASSERT_TRUE(std::filesystem::exists(options.database_path));

  // The new record serves at once, on every call (the memo was forgotten with the change).
  run(tuned);
  EXPECT_EQ(runtime.last_serve_rule(), ServeRule::Exact);
  run(tuned);
  EXPECT_EQ(runtime.last_serve_rule(), ServeRule::Exact);
  GemmProblem near = tuned;
  near.m = 500;
  run(near);
  EXPECT_EQ(runtime.last_serve_rule(), ServeRule::Nearest);
  GemmProblem other = tuned;
  other.trans_a = Op::T;
  run(other);
  EXPECT_EQ(runtime.last_serve_rule(), ServeRule::Default);
  const auto counters = runtime.serve_counters();
  EXPECT_EQ(counters.exact, 2u);
  EXPECT_EQ(counters.nearest, 1u);
  EXPECT_EQ(counters.fallback, 2u);
  EXPECT_EQ(counters.stale, 0u);

  // A second Runtime reads the record back from the file.
  Runtime again(options);
  const CaseResult r = env.run_case(tuned, 9, RandomKind::Uniform01, [&](const float* a, const float* b, float* c) {
    again.gemm(tuned, a, b, c, reinterpret_cast<CUstream_st*>(env.stream()));
  });
  EXPECT_TRUE(r.ours.passes(r.tolerance));
  EXPECT_EQ(again.last_serve_rule(), ServeRule::Exact);
  // Bad input through the live runtime: a clear error, nothing launched.
  EXPECT_THROW(again.gemm(tuned, nullptr, nullptr, nullptr), InvalidArgument);
}

}  // namespace
}  // namespace jitgemm::testing
