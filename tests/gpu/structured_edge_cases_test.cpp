// The BLAS edge cases of blas_edge_cases_test.cpp with structured operands and every fill,
// through the public Runtime API in every mode: M or N = 0 touches nothing; K = 0 and alpha = 0
// give C = fill(beta C) (the other strict triangle written as zeros and never read; beta = 0:
// zeros over NaN) without reading A and B, which hold NaN everywhere; C's padding is left as it
// was. Results are compared bit for bit.
#include <gtest/gtest.h>

#include <cstring>
#include <limits>
#include <vector>

#include "cuda/context.hpp"
#include "cuda/device_buffer.hpp"
#include "gpu_fixture.hpp"
#include "jitgemm/runtime.hpp"
#include "support/structured_host.hpp"

namespace jitgemm::testing {
namespace {

constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
constexpr int64_t kRows = 80, kLd = 80;  // room for every case's A, B and C

bool same_bits(float x, float y) { return std::memcmp(&x, &y, sizeof x) == 0; }

struct Edge {
  const char* name;
  bool m0, n0, k0;
  float alpha, beta;
  bool c_nan;  // C is NaN before the call (beta = 0 must not read it)
};

constexpr Edge kEdges[] = {
    {"K = 0, beta 0.5", false, false, true, 1.0f, 0.5f, false},
    {"K = 0, beta 0", false, false, true, 1.0f, 0.0f, true},
    {"alpha 0, beta -3", false, false, false, 0.0f, -3.0f, false},
    {"alpha 0, beta 0", false, false, false, 0.0f, 0.0f, true},
    {"alpha 0, beta 1", false, false, false, 0.0f, 1.0f, false},
    {"M = 0", true, false, false, 1.0f, 0.5f, false},
    {"N = 0", false, true, false, 1.0f, 0.5f, false},
};

constexpr std::pair<Structure, Structure> kStructurePairs[] = {
    {Structure::Lower, Structure::General},          {Structure::General, Structure::UpperUnit},
    {Structure::LowerUnit, Structure::Upper},        {Structure::SymmetricUpper, Structure::Lower},
    {Structure::Upper, Structure::Symmetric},        {Structure::Symmetric, Structure::SymmetricUpper},
};

// The problem of one edge: 70 x 33 x 65 where no operand is symmetric; a symmetric operand
// makes its sides 65 (and a zero side empties both).
GemmProblem edge_problem(const Edge& edge, Structure sa, Structure sb, Fill fill, Op ta, Precision precision) {
  GemmProblem p;
  p.precision = precision;
  p.structure_a = sa, p.structure_b = sb, p.fill = fill, p.trans_a = ta, p.trans_b = Op::T;
  p.alpha = edge.alpha, p.beta = edge.beta;
  const bool symmetric = is_symmetric(sa) || is_symmetric(sb);
  p.m = edge.m0 ? 0 : symmetric ? 65 : 70;
  p.n = edge.n0 ? 0 : symmetric ? 65 : 33;
  p.k = edge.k0 ? 0 : 65;
  for (int pass = 0; pass < 2; ++pass) {  // twice: a side emptied by B can empty A's
    if (is_symmetric(sa) && (p.m == 0 || p.k == 0)) p.m = p.k = 0;
    if (is_symmetric(sb) && (p.k == 0 || p.n == 0)) p.k = p.n = 0;
  }
  p.ldc = p.n + 7;  // padding columns must stay
  return p;
}

// Elements of C (kRows x ldc) that differ from what the edge leaves: `before` outside the
// m x n product, 0 outside the fill, else beta * before (0 for beta = 0).
int wrong_elements(const GemmProblem& p, const std::vector<float>& before, const std::vector<float>& after) {
  int wrong = 0;
  const int64_t ldc = p.effective_ldc();
  for (int64_t i = 0; i < kRows; ++i)
    for (int64_t j = 0; j < ldc; ++j) {
      const size_t at = static_cast<size_t>(i * ldc + j);
      const bool written = i < p.m && j < p.n;
      const float expected = !written                               ? before[at]
                             : !kept(p.fill, i, j) || p.beta == 0.0f ? 0.0f
                                                                     : p.beta * before[at];
      if (!same_bits(after[at], expected) && ++wrong <= 3)
        ADD_FAILURE() << "C[" << i << "][" << j << "] = " << after[at] << ", expected " << expected;
    }
  return wrong;
}

class StructuredEdgeCases : public ::testing::TestWithParam<Precision> {};

TEST_P(StructuredEdgeCases, EmptyProductsAndAlphaZeroWithNanOperandsAndEveryFill) {
  JITGEMM_REQUIRE_GPU();
  Runtime runtime(isolated_options("structured-edge"));
  cuda::PrimaryContext context(0);
  context.make_current();
  const std::vector<float> nan_operand(static_cast<size_t>(kRows * kLd), kNaN);
  cuda::DeviceBuffer a(sizeof(float) * nan_operand.size()), b(sizeof(float) * nan_operand.size());
  cuda::DeviceBuffer c(sizeof(float) * kRows * kLd);
  a.copy_from_host(nan_operand.data(), a.size());
  b.copy_from_host(nan_operand.data(), b.size());
  int cases_run = 0;
  for (const Edge& edge : kEdges)
    for (auto [sa, sb] : kStructurePairs)
      for (Fill fill : kAllFills)
        for (Op ta : {Op::N, Op::T}) {
          const GemmProblem p = edge_problem(edge, sa, sb, fill, ta, GetParam());
          SCOPED_TRACE(::testing::Message() << edge.name << ": " << p.to_string());
          ASSERT_NO_THROW(p.validate());
          std::vector<float> before(static_cast<size_t>(kRows * kLd));
          for (size_t i = 0; i < before.size(); ++i) before[i] = 0.25f * static_cast<float>(i % 97) - 7.0f;
          for (int64_t i = 0; i < p.m; ++i)  // NaN where C must not be read
            for (int64_t j = 0; j < p.n; ++j)
              if (edge.c_nan || !kept(fill, i, j)) before[static_cast<size_t>(i * p.ldc + j)] = kNaN;
          c.copy_from_host(before.data(), c.size());
          runtime.gemm(p, a.as<float>(), b.as<float>(), c.as<float>(), nullptr);
          std::vector<float> after(before.size());
          c.copy_to_host(after.data(), c.size());
          EXPECT_EQ(wrong_elements(p, before, after), 0);
          ++cases_run;
        }
  EXPECT_EQ(cases_run, static_cast<int>(std::size(kEdges) * std::size(kStructurePairs) * 3 * 2));
}

INSTANTIATE_TEST_SUITE_P(AllModes, StructuredEdgeCases,
                         ::testing::Values(Precision::FP32, Precision::TF32x3, Precision::TF32),
                         [](const auto& info) { return std::string(to_string(info.param)); });

}  // namespace
}  // namespace jitgemm::testing
