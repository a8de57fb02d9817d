// Runtime::gemm_backward (issue 12, "Backward") in every precision mode, with an empty database
// (the untuned defaults serve the gradient products): dA and dB against float64 gradients of
// the definition (autograd of fill(alpha op(A) @ op(B)) on the dense inputs) with the mode's
// contract against the cuBLAS products they replace (backward_case.hpp). The four reference
// Models at reduced sizes, then a sweep over ops {N, T}^2, structures, fills and sizes {1, 17,
// 65, 257} with projections, skipped gradients, padded and unaligned leading dimensions and
// bases; then the BLAS edge cases (M, N, K or alpha 0).
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <array>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "backward_case.hpp"
#include "gpu_fixture.hpp"
#include "jitgemm/runtime.hpp"
#include "problem/operand_structure.hpp"

namespace jitgemm::testing {
namespace {

constexpr int64_t kSizes[] = {1, 17, 65, 257};
constexpr Structure kSweepStructures[] = {Structure::General, Structure::Lower, Structure::UpperUnit,
                                          Structure::Symmetric, Structure::SymmetricUpper, Structure::Upper};
constexpr RandomKind kKinds[] = {RandomKind::SignedNormal, RandomKind::Uniform01, RandomKind::WideExponent};

GemmProblem model(int64_t m, int64_t n, int64_t k, Precision precision) {
  GemmProblem p;
  p.m = m, p.n = n, p.k = k, p.precision = precision;
  return p;
}

// The four reference Models (reference-problems.md) at reduced sizes, the structured ones also
// with their gradients projected (the parameters kept structured).
std::vector<BackwardCase> reference_cases(Precision precision) {
  std::vector<BackwardCase> cases;
  GemmProblem large_k = model(256, 256, int64_t{1} << 16, precision);
  cases.push_back({"largeK 256x256x65536", large_k, {}, RandomKind::Uniform01, 11});
  GemmProblem symmetric = model(1024, 1024, 1024, precision);
  symmetric.structure_a = symmetric.structure_b = Structure::Symmetric;
  cases.push_back({"symmetric 1024", symmetric, {}, RandomKind::Uniform01, 12});
  cases.push_back({"symmetric 1024, projected", symmetric, {true, true}, RandomKind::SignedNormal, 13});
  GemmProblem lowertri = model(1024, 1024, 1024, precision);
  lowertri.structure_a = lowertri.structure_b = Structure::Lower;
  lowertri.fill = Fill::Lower;
  cases.push_back({"lowertri 1024", lowertri, {}, RandomKind::Uniform01, 14});
  cases.push_back({"lowertri 1024, projected", lowertri, {true, true}, RandomKind::SignedNormal, 15});
  GemmProblem trans_a = model(512, 1024, 2048, precision);
  trans_a.trans_a = Op::T;
  cases.push_back({"transA 512x1024x2048", trans_a, {}, RandomKind::Uniform01, 16});
  return cases;
}

// ops x structure of A x fill, B's structure, sizes, alpha, data and leading dimensions
// cycling; projections, skipped gradients and unaligned bases on some.
std::vector<BackwardCase> sweep_cases(Precision precision) {
  std::vector<BackwardCase> cases;
  std::mt19937_64 rng(0xbac4);
  int i = 0;
  for (int ops = 0; ops < 4; ++ops)
    for (Structure sa : kSweepStructures)
      for (Fill fill : kAllFills) {
        GemmProblem p;
        p.precision = precision;
        p.trans_a = (ops & 1) ? Op::T : Op::N;
        p.trans_b = (ops & 2) ? Op::T : Op::N;
        p.structure_a = sa;
        p.structure_b = kSweepStructures[(i * 5 + ops) % std::size(kSweepStructures)];
        p.fill = fill;
        p.m = kSizes[rng() % 4], p.n = kSizes[rng() % 4], p.k = kSizes[rng() % 4];
        if (is_symmetric(p.structure_a)) p.k = p.m;
        if (is_symmetric(p.structure_b)) p.n = p.k;
        if (i % 3 == 1) p.lda = p.effective_lda() + 4, p.ldb = p.effective_ldb() + 8, p.ldc = p.effective_ldc() + 4;
        if (i % 3 == 2) p.lda = p.effective_lda() + 3, p.ldb = p.effective_ldb() + 1, p.ldc = p.effective_ldc() + 5;
        p.alpha = std::array{1.0f, -0.5f, 0.75f}[i % 3];
        p.beta = 0.5f;  // not a gradient's business
        BackwardCase c{fmt::format("sweep {}", i), p};
        c.kind = kKinds[(i / 3) % std::size(kKinds)];
        c.seed = 100 + static_cast<uint64_t>(i);
        c.options.project_a = sa != Structure::General && i % 2 == 0;
        c.options.project_b = p.structure_b != Structure::General && i % 4 < 2;
        c.compute_da = i % 7 != 3;
        c.compute_db = i % 7 != 5;
        c.base_offset = i % 5 == 4 ? 1 : 0;
        cases.push_back(c);
        ++i;
      }
  return cases;
}

// M, N, K or alpha 0 (structured, projected): zeros of the gradient's shape or nothing, dC
// and the operands not read (null where empty).
std::vector<BackwardCase> edge_cases(Precision precision) {
  std::vector<BackwardCase> cases;
  for (auto [m, n, k, alpha] : {std::tuple{0, 33, 17, 1.0f}, std::tuple{33, 0, 17, 1.0f}, std::tuple{33, 17, 0, 1.0f},
                                std::tuple{33, 17, 21, 0.0f}})
    for (Fill fill : kAllFills) {
      GemmProblem p = model(m, n, k, precision);
      p.alpha = alpha, p.fill = fill, p.structure_a = Structure::LowerUnit, p.trans_b = Op::T;
      cases.push_back({fmt::format("edge {}x{}x{} alpha {}", m, n, k, alpha), p, {fill != Fill::Full, false}});
    }
  return cases;
}

void run_cases(const std::vector<BackwardCase>& cases, Precision precision, const char* what) {
  GpuEnvironment& env = gpu();
  CublasHandle cublas;
  Runtime runtime(isolated_options(fmt::format("backward-{}-{}", what, to_string(precision))));
  int failures = 0;
  for (const BackwardCase& c : cases) {
    const std::string name = fmt::format("{}: {}{}{}{}{}", c.label, c.problem.to_string(),
                                         c.options.project_a ? " project_a" : "", c.options.project_b ? " project_b" : "",
                                         c.compute_da ? "" : " (dA skipped)", c.compute_db ? "" : " (dB skipped)");
    const BackwardResult r = run_backward_case(runtime, env, cublas, c);
    EXPECT_TRUE(r.da.passes()) << name << ": dA " << r.da.describe();
    EXPECT_TRUE(r.db.passes()) << name << ": dB " << r.db.describe();
    // A sane baseline: a gradient formula gone wrong would make cuBLAS far off too, and with it
    // the tolerance.
    EXPECT_LT(r.da.cublas_error, 1e-2) << name << ": dA " << r.da.describe() << "; dB " << r.db.describe();
    EXPECT_LT(r.db.cublas_error, 1e-2) << name << ": dA " << r.da.describe() << "; dB " << r.db.describe();
    failures += !r.da.passes() || !r.db.passes();
    for (const GradientResult* g : {&r.da, &r.db})
      if (g->first_cublas_error >= 0)
        std::printf("[ info ] %s: the cuBLAS baseline took a second try: %s\n", name.c_str(), g->describe().c_str());
  }
  std::printf("[ info ] %s %s: %zu backward cases, %d failures\n", what, std::string(to_string(precision)).c_str(),
              cases.size(), failures);
}

class Backward : public ::testing::TestWithParam<Precision> {};

TEST_P(Backward, ReferenceModelsAgainstFloat64) {
  JITGEMM_REQUIRE_GPU();
  run_cases(reference_cases(GetParam()), GetParam(), "reference");
}

TEST_P(Backward, SweepOfOpsStructuresFillsSizesAndProjections) {
  JITGEMM_REQUIRE_GPU();
  run_cases(sweep_cases(GetParam()), GetParam(), "sweep");
}

TEST_P(Backward, EmptyDimensionsAndAlphaZero) {
  JITGEMM_REQUIRE_GPU();
  run_cases(edge_cases(GetParam()), GetParam(), "edge");
}

// The sweep's spread, checked without a GPU too.
TEST_P(Backward, TheSweepCoversOpsStructuresFillsAndVariants) {
  const std::vector<BackwardCase> cases = sweep_cases(GetParam());
  std::set<std::tuple<Op, Op, Structure, Fill>> kinds;
  std::set<Structure> on_b;
  std::set<int64_t> sizes;
  int projected_a = 0, projected_b = 0, skipped_a = 0, skipped_b = 0, unaligned = 0;
  for (const BackwardCase& c : cases) {
    const GemmProblem& p = c.problem;
    EXPECT_NO_THROW(backward_problems(p, c.options)) << p.to_string();
    kinds.insert({p.trans_a, p.trans_b, p.structure_a, p.fill});
    on_b.insert(p.structure_b);
    sizes.insert({p.m, p.n, p.k});
    projected_a += c.options.project_a, projected_b += c.options.project_b;
    skipped_a += !c.compute_da, skipped_b += !c.compute_db, unaligned += c.base_offset != 0;
  }
  EXPECT_EQ(kinds.size(), 4 * std::size(kSweepStructures) * 3);
  EXPECT_EQ(on_b.size(), std::size(kSweepStructures));
  EXPECT_EQ(sizes, (std::set<int64_t>(std::begin(kSizes), std::end(kSizes))));
  EXPECT_GE(projected_a, 20);
  EXPECT_GE(projected_b, 10);
  EXPECT_GE(skipped_a, 5);
  EXPECT_GE(skipped_b, 5);
  EXPECT_GE(unaligned, 5);
}

INSTANTIATE_TEST_SUITE_P(AllModes, Backward, ::testing::Values(Precision::FP32, Precision::TF32x3, Precision::TF32),
                         [](const auto& info) { return std::string(to_string(info.param)); });

}  // namespace
}  // namespace jitgemm::testing
