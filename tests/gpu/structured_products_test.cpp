// Structured products (issue 11) through the public Runtime API, in every precision mode, with
// an empty database (the untuned defaults serve): symmetric operands stored in either triangle,
// lower / upper triangular ones with and without a unit diagonal, on A, on B or on both, each
// with op N and T, square and trapezoidal, sizes from {1, 17, 64, 65, 257, 1000, 4096}, every
// output fill, alpha/beta in {1, 0}, {-0.5, 1}, {0.75, 0.25}, padded and unaligned leading
// dimensions, uniform, signed-normal and wide-exponent data. run_case (gpu_fixture.hpp) fills
// the unread part of each operand (other triangle, unit diagonal) with NaN before the call and
// checks against float64 of the dense operands with the fill applied, C's padding untouched
// (ErrorStats::padding_written).
// symmetric_both_test.cpp and structured_edge_cases_test.cpp check the rest of issue 11.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <algorithm>
#include <random>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "gpu_fixture.hpp"
#include "jitgemm/runtime.hpp"
#include "problem/operand_structure.hpp"
#include "problem/problem_key.hpp"
#include "support/structured_host.hpp"

namespace jitgemm::testing {
namespace {

constexpr Structure kStructured[] = {Structure::Symmetric, Structure::SymmetricUpper, Structure::Lower,
                                     Structure::Upper,     Structure::LowerUnit,      Structure::UpperUnit};
constexpr int64_t kStructuredSizes[] = {1, 17, 64, 65, 257, 1000, 4096};
constexpr std::pair<float, float> kAlphaBeta[] = {{1.0f, 0.0f}, {-0.5f, 1.0f}, {0.75f, 0.25f}};
constexpr RandomKind kKinds[] = {RandomKind::Uniform01, RandomKind::SignedNormal, RandomKind::WideExponent};

const char* kind_name(RandomKind kind) {
  switch (kind) {
    case RandomKind::Uniform01: return "uniform01";
    case RandomKind::SignedNormal: return "signed-normal";
    case RandomKind::WideExponent: return "wide-exponent";
    case RandomKind::WithSpecials: return "with-specials";
  }
  return "?";
}

// Where the structured operands of a case are.
enum class Placement { A, B, Both };

struct StructuredCase {
  GemmProblem problem;
  RandomKind kind = RandomKind::Uniform01;
  uint64_t seed = 0;
};

bool rectangular_triangular(const GemmProblem& p) {
  return (is_triangular(p.structure_a) && p.m != p.k) || (is_triangular(p.structure_b) && p.k != p.n);
}

// The cases of one mode: every structure on A, on B and on both (B's structure drawn), each op
// combination and fill, twice with sizes drawn (a 4096 only in one case in 16; symmetric
// operands made square), alpha/beta, random kind and leading dimensions cycling; then the
// reference problems and their gradients.
std::vector<StructuredCase> structured_cases(Precision precision) {
  std::vector<StructuredCase> cases;
  std::mt19937_64 rng(0x5eed0011);
  auto draw_size = [&](bool allow_4096) {
    const size_t choices = allow_4096 ? std::size(kStructuredSizes) : std::size(kStructuredSizes) - 1;
    return kStructuredSizes[rng() % choices];
  };
  int i = 0;
  for (Placement placement : {Placement::A, Placement::B, Placement::Both})
    for (Structure s : kStructured)
      for (int ops = 0; ops < 4; ++ops)
        for (Fill fill : kAllFills)
          for (int draw = 0; draw < 2; ++draw, ++i) {
            GemmProblem p;
            p.precision = precision;
            p.trans_a = (ops & 1) ? Op::T : Op::N;
            p.trans_b = (ops & 2) ? Op::T : Op::N;
            p.fill = fill;
            p.structure_a = placement != Placement::B ? s : Structure::General;
            p.structure_b = placement == Placement::A   ? Structure::General
                            : placement == Placement::B ? s
                                                        : kStructured[rng() % std::size(kStructured)];
            const bool allow_4096 = i % 16 == 0;
            p.m = draw_size(allow_4096), p.n = draw_size(allow_4096), p.k = draw_size(allow_4096);
            if (is_symmetric(p.structure_a)) p.k = p.m;
            if (is_symmetric(p.structure_b)) p.n = p.k;
            if (i % 4 == 1) {  // padded, 16-byte rows stay aligned
              p.lda = p.effective_lda() + 4, p.ldb = p.effective_ldb() + 8, p.ldc = p.effective_ldc() + 4;
            } else if (i % 8 == 3) {  // unaligned rows
              p.lda = p.effective_lda() + 3, p.ldb = p.effective_ldb() + 1, p.ldc = p.effective_ldc() + 5;
            }
            const auto [alpha, beta] = kAlphaBeta[(i / 2 + draw) % std::size(kAlphaBeta)];
            p.alpha = alpha, p.beta = beta;
            cases.push_back({p, kKinds[(i / 3 + draw) % std::size(kKinds)], 5000u + static_cast<uint64_t>(i)});
          }
  // The reference problems with structure (reference-problems.md) and the lowertri gradients:
  // dA = tril(dC B^T), dB = tril(A^T dC).
  auto add = [&](int64_t m, int64_t n, int64_t k, Op ta, Structure sa, Op tb, Structure sb, Fill fill,
                 RandomKind kind) {
    GemmProblem p;
    p.precision = precision;
    p.m = m, p.n = n, p.k = k, p.trans_a = ta, p.trans_b = tb, p.structure_a = sa, p.structure_b = sb, p.fill = fill;
    cases.push_back({p, kind, 7000u + cases.size()});
  };
  add(4096, 4096, 4096, Op::N, Structure::Lower, Op::N, Structure::Lower, Fill::Lower, RandomKind::Uniform01);
  add(4096, 4096, 4096, Op::N, Structure::Symmetric, Op::N, Structure::Symmetric, Fill::Full, RandomKind::Uniform01);
  add(1000, 1000, 1000, Op::N, Structure::General, Op::T, Structure::Lower, Fill::Lower, RandomKind::SignedNormal);
  add(1000, 1000, 1000, Op::T, Structure::Lower, Op::N, Structure::General, Fill::Lower, RandomKind::SignedNormal);
  add(1000, 257, 1000, Op::N, Structure::UpperUnit, Op::N, Structure::Lower, Fill::Upper, RandomKind::WideExponent);
  add(65, 1000, 257, Op::T, Structure::LowerUnit, Op::T, Structure::Upper, Fill::Lower, RandomKind::SignedNormal);
  return cases;
}

class StructuredProducts : public ::testing::TestWithParam<Precision> {};

TEST_P(StructuredProducts, EveryStructureOpFillAndSizeAgainstFloat64) {
  JITGEMM_REQUIRE_GPU();
  GpuEnvironment& env = gpu();
  Runtime runtime(isolated_options("structured"));
  const std::vector<StructuredCase> cases = structured_cases(GetParam());
  int count = 0, failures = 0, rectangular = 0, padded = 0, both = 0;
  for (const StructuredCase& tc : cases) {
    const GemmProblem& p = tc.problem;
    ASSERT_NO_THROW(p.validate()) << p.to_string();
    const CaseResult r = env.run_case(p, tc.seed, tc.kind, [&](const float* a, const float* b, float* c) {
      runtime.gemm(p, a, b, c, reinterpret_cast<CUstream_st*>(env.stream()));
    });
    ++count;
    rectangular += rectangular_triangular(p);
    padded += p.lda != 0 || p.ldb != 0 || p.ldc != 0;
    both += p.structure_a != Structure::General && p.structure_b != Structure::General;
    EXPECT_TRUE(r.ours.passes(r.tolerance))
        << fmt::format("case {}: {} ({} data): error {:.3g} (cuBLAS {:.3g}, tolerance {:.3g}), {} unwritten, {} "
                       "NaN/Inf mismatches, {} padding writes",
                       count - 1, p.to_string(), kind_name(tc.kind), r.ours.rel_error, r.cublas_error, r.tolerance,
                       r.ours.unwritten, r.ours.mismatched, r.ours.padding_written);
    failures += !r.ours.passes(r.tolerance);
  }
  std::printf("[ info ] %s: %d structured cases (%d with a trapezoidal operand, %d with both operands structured, "
              "%d padded), %d failures\n",
              std::string(to_string(GetParam())).c_str(), count, rectangular, both, padded, failures);
  EXPECT_GE(count, 400);
}

// Count and spread of the cases, checked without a GPU too: every structure on each side with
// each op and fill, sizes from the list, few 4096s.
TEST_P(StructuredProducts, TheCasesCoverEveryStructureOpAndFill) {
  const std::vector<StructuredCase> cases = structured_cases(GetParam());
  EXPECT_GE(cases.size(), 400u);
  std::set<std::tuple<Structure, Op, Fill>> on_a, on_b;
  std::set<std::pair<float, float>> alpha_beta;
  std::set<RandomKind> kinds;
  std::set<std::string> kinds_of_product;  // keys without sizes: what the kernels are specialized on
  int with_4096 = 0, cubes_4096 = 0, rectangular = 0, both = 0;
  double flop = 0;
  for (const StructuredCase& tc : cases) {
    const GemmProblem& p = tc.problem;
    EXPECT_NO_THROW(p.validate()) << p.to_string();
    ProblemKey key = make_problem_key(p);
    key.m = key.n = key.k = 1;
    kinds_of_product.insert(key.canonical());
    rectangular += rectangular_triangular(p);
    both += p.structure_a != Structure::General && p.structure_b != Structure::General;
    flop += 2.0 * static_cast<double>(p.m) * static_cast<double>(p.n) * static_cast<double>(p.k);
    on_a.insert({p.structure_a, p.trans_a, p.fill});
    on_b.insert({p.structure_b, p.trans_b, p.fill});
    alpha_beta.insert({p.alpha, p.beta});
    kinds.insert(tc.kind);
    for (int64_t size : {p.m, p.n, p.k})
      EXPECT_NE(std::find(std::begin(kStructuredSizes), std::end(kStructuredSizes), size), std::end(kStructuredSizes));
    with_4096 += p.m == 4096 || p.n == 4096 || p.k == 4096;
    cubes_4096 += p.m == 4096 && p.n == 4096 && p.k == 4096;
  }
  std::printf("[ info ] %s: the sweep has %zu cases of %zu kinds (structures, ops, fill, ld classes), %d with a "
              "4096, %d of 4096^3, %.3g dense FLOP in all\n",
              std::string(to_string(GetParam())).c_str(), cases.size(), kinds_of_product.size(), with_4096,
              cubes_4096, flop);
  EXPECT_GE(rectangular, 60);
  EXPECT_GE(both, 100);
  EXPECT_EQ(on_a.size(), std::size(kAllStructures) * 2 * 3);  // general too (structure on B only)
  EXPECT_EQ(on_b.size(), std::size(kAllStructures) * 2 * 3);
  EXPECT_EQ(alpha_beta.size(), std::size(kAlphaBeta));
  EXPECT_EQ(kinds.size(), std::size(kKinds));
  EXPECT_GE(with_4096, 3);
  EXPECT_LE(with_4096, 40);  // runtime
  EXPECT_LE(cubes_4096, 8);
}

INSTANTIATE_TEST_SUITE_P(AllModes, StructuredProducts,
                         ::testing::Values(Precision::FP32, Precision::TF32x3, Precision::TF32),
                         [](const auto& info) { return std::string(to_string(info.param)); });

}  // namespace
}  // namespace jitgemm::testing
