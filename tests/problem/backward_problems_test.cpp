// backward_problems (jitgemm/backward.hpp): the gradient products of every op combination,
// operand structure and fill, with and without projection, checked two ways on the CPU:
// their fields (shapes, ops, leading dimensions, structures, fills), and what they compute,
// evaluated in float64 with the forward semantics (host_reference) on inputs whose unread
// parts are NaN, against the gradients from their definition (backward_host.hpp).
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "jitgemm/backward.hpp"
#include "jitgemm/error.hpp"
#include "problem/gemm_work.hpp"
#include "problem/operand_structure.hpp"
#include "problem/stored_shape.hpp"
#include "support/backward_host.hpp"
#include "support/structured_host.hpp"

namespace jitgemm::testing {
namespace {

constexpr Op kOps[] = {Op::N, Op::T};

// Every forward problem of the sweep: ops x structures x fill, two shapes each (symmetric
// operands square), leading dimensions tight or padded, alpha cycling.
std::vector<GemmProblem> forward_sweep() {
  std::vector<GemmProblem> out;
  int i = 0;
  for (Op ta : kOps)
    for (Op tb : kOps)
      for (Structure sa : kAllStructures)
        for (Structure sb : kAllStructures)
          for (Fill fill : kAllFills)
            for (int shape = 0; shape < 2; ++shape, ++i) {
              GemmProblem p;
              p.trans_a = ta, p.trans_b = tb, p.structure_a = sa, p.structure_b = sb, p.fill = fill;
              p.m = shape == 0 ? 5 : 4, p.n = shape == 0 ? 3 : 6, p.k = shape == 0 ? 4 : 2;
              if (is_symmetric(sa)) p.k = p.m;
              if (is_symmetric(sb)) p.n = p.k;
              if (i % 3 == 1) p.lda = p.effective_lda() + 2, p.ldb = p.effective_ldb() + 1, p.ldc = p.effective_ldc() + 3;
              p.alpha = i % 2 ? -0.5f : 1.0f;
              p.beta = 0.25f;  // ignored by the gradients
              p.precision = static_cast<Precision>(i % 3);
              out.push_back(p);
            }
  return out;
}

std::vector<BackwardOptions> projections_of(const GemmProblem& p) {
  std::vector<BackwardOptions> out{{false, false}};
  const bool a = p.structure_a != Structure::General, b = p.structure_b != Structure::General;
  if (a) out.push_back({true, false});
  if (b) out.push_back({false, true});
  if (a && b) out.push_back({true, true});
  return out;
}

// A stored matrix holding small multiples of 1/4 (products and sums exact in float64) where
// `read` says the product may read it, NaN elsewhere (the other triangle, padding).
template <class Read>
std::vector<float> stored(int64_t rows, int64_t cols, int64_t ld, int salt, Read read) {
  std::vector<float> x(static_cast<size_t>(rows * ld), NAN);
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t j = 0; j < cols; ++j)
      if (read(i, j)) x[static_cast<size_t>(i * ld + j)] = static_cast<float>((i * 7 + j * 3 + salt) % 11 - 5) / 4.0f;
  return x;
}

// What a GradientProblem computes, by the forward semantics of its products (host_reference):
// its output's m x n values.
HostMatrix evaluate(const GradientProblem& g, const std::vector<float>& dc, const std::vector<float>& other) {
  const GemmProblem& p = g.product;
  const bool dc_first = g.dc_operand == DcOperand::First;
  const std::vector<float>& first = dc_first ? dc : other;
  const std::vector<float>& second = dc_first ? other : dc;
  const int64_t ldc = p.effective_ldc();
  std::vector<double> out =
      host_reference(p, first, second, std::vector<float>(static_cast<size_t>(p.m * ldc), NAN));  // beta = 0
  if (g.transposed_sum) {
    EXPECT_EQ(g.transposed_sum->beta, 1.0f);
    const std::vector<double> t =
        host_reference(*g.transposed_sum, second, first, std::vector<float>(static_cast<size_t>(p.m * ldc), 0.0f));
    for (size_t e = 0; e < out.size(); ++e) out[e] += t[e];
  }
  HostMatrix x(p.m, p.n);
  for (int64_t i = 0; i < p.m; ++i)
    for (int64_t j = 0; j < p.n; ++j) x.at(i, j) = out[static_cast<size_t>(i * ldc + j)];
  if (g.zero_diagonal)
    for (int64_t i = 0; i < std::min(p.m, p.n); ++i) x.at(i, i) = 0.0;
  return x;
}

void expect_same(const HostMatrix& got, const HostMatrix& want, const std::string& what) {
  ASSERT_EQ(got.rows, want.rows) << what;
  ASSERT_EQ(got.cols, want.cols) << what;
  for (int64_t i = 0; i < got.rows; ++i)
    for (int64_t j = 0; j < got.cols; ++j)
      ASSERT_NEAR(got.at(i, j), want.at(i, j), 1e-12) << what << " at (" << i << ", " << j << ")";
}

TEST(BackwardProblems, EveryOpStructureFillAndProjectionComputesTheAutogradGradients) {
  int checked = 0;
  for (const GemmProblem& p : forward_sweep())
    for (const BackwardOptions& options : projections_of(p)) {
      const std::string what = p.to_string() + (options.project_a ? " project_a" : "") +
                               (options.project_b ? " project_b" : "");
      SCOPED_TRACE(what);
      const BackwardProblems grads = backward_problems(p, options);
      const StoredShape sa = stored_shape_a(p), sb = stored_shape_b(p);
      const auto a = stored(sa.rows, sa.cols, p.effective_lda(), 1, [&](int64_t i, int64_t j) {
        return reads(p.structure_a, i, j);
      });
      const auto b = stored(sb.rows, sb.cols, p.effective_ldb(), 4, [&](int64_t i, int64_t j) {
        return reads(p.structure_b, i, j);
      });
      const auto dc = stored(p.m, p.n, p.effective_ldc(), 9, [&](int64_t i, int64_t j) { return kept(p.fill, i, j); });
      const HostGradients want = host_gradients(p, options, dc, a, b);
      expect_same(evaluate(grads.da, dc, b), want.da, "dA");
      expect_same(evaluate(grads.db, dc, a), want.db, "dB");
      ++checked;
    }
  EXPECT_GT(checked, 3000);
}

// The fields of the products, for every combination: the output stored like the operand, dC
// read with ldc as the fill's triangle, the other operand's structure and ld carried over (its
// op is checked by what the products compute, in the test above).
TEST(BackwardProblems, FieldsOfEveryGradientProduct) {
  for (const GemmProblem& p : forward_sweep()) {
    SCOPED_TRACE(p.to_string());
    const BackwardProblems grads = backward_problems(p);
    const Structure g = p.fill == Fill::Lower ? Structure::Lower : p.fill == Fill::Upper ? Structure::Upper
                                                                                          : Structure::General;
    auto check = [&](const GradientProblem& grad, StoredShape shape, int64_t ld, int64_t k, int64_t other_ld,
                     Structure other_structure) {
      const GemmProblem& q = grad.product;
      EXPECT_EQ(q.m, shape.rows);
      EXPECT_EQ(q.n, shape.cols);
      EXPECT_EQ(q.k, k);
      EXPECT_EQ(q.effective_ldc(), ld);
      EXPECT_EQ(q.beta, 0.0f);
      EXPECT_EQ(q.alpha, p.alpha);
      EXPECT_EQ(q.precision, p.precision);
      EXPECT_EQ(q.fill, Fill::Full);
      EXPECT_FALSE(grad.transposed_sum.has_value());
      EXPECT_FALSE(grad.zero_diagonal);
      const bool dc_first = grad.dc_operand == DcOperand::First;
      EXPECT_EQ(dc_first ? q.structure_a : q.structure_b, g);
      EXPECT_EQ(dc_first ? q.effective_lda() : q.effective_ldb(), p.effective_ldc());
      EXPECT_EQ(dc_first ? q.structure_b : q.structure_a, other_structure);
      EXPECT_EQ(dc_first ? q.effective_ldb() : q.effective_lda(), other_ld);
      EXPECT_NO_THROW(q.validate());
    };
    // The gradient is a product over the other dimension pair: dA's K is N, dB's M.
    check(grads.da, stored_shape_a(p), p.effective_lda(), p.n, p.effective_ldb(), p.structure_b);
    check(grads.db, stored_shape_b(p), p.effective_ldb(), p.m, p.effective_lda(), p.structure_a);
  }
}

// The lowertri example of the README: dA = tril(dC) B^T, dB = A^T tril(dC), products with a
// triangular dC and the Lower operands carried over.
TEST(BackwardProblems, LowertriIsTwoProductsWithATriangularDc) {
  GemmProblem p;
  p.m = p.n = p.k = 4096;
  p.structure_a = p.structure_b = Structure::Lower;
  p.fill = Fill::Lower;
  p.precision = Precision::TF32x3;
  const BackwardProblems grads = backward_problems(p);
  const GemmProblem& da = grads.da.product;
  EXPECT_EQ(grads.da.dc_operand, DcOperand::First);
  EXPECT_EQ(da.trans_a, Op::N);
  EXPECT_EQ(da.structure_a, Structure::Lower);  // tril(dC)
  EXPECT_EQ(da.trans_b, Op::T);
  EXPECT_EQ(da.structure_b, Structure::Lower);  // B^T: upper triangular
  EXPECT_EQ(da.fill, Fill::Full);
  EXPECT_EQ(da.precision, Precision::TF32x3);
  const GemmProblem& db = grads.db.product;
  EXPECT_EQ(grads.db.dc_operand, DcOperand::Second);
  EXPECT_EQ(db.trans_a, Op::T);
  EXPECT_EQ(db.structure_a, Structure::Lower);  // A^T
  EXPECT_EQ(db.trans_b, Op::N);
  EXPECT_EQ(db.structure_b, Structure::Lower);  // tril(dC)
  // Projected on the Lower parameters: the fill keeps the triangle, no other step.
  const BackwardProblems projected = backward_problems(p, {true, true});
  EXPECT_EQ(projected.da.product.fill, Fill::Lower);
  EXPECT_EQ(projected.db.product.fill, Fill::Lower);
  EXPECT_FALSE(projected.da.zero_diagonal);
  EXPECT_FALSE(projected.da.transposed_sum.has_value());
}

// transA (A stored K x M): dA is op(B) G^T, K x M with lda; dB = A G (A^T^T), no transposes.
TEST(BackwardProblems, TransAStoresDaTransposedBack) {
  GemmProblem p;
  p.m = 2048, p.n = 4096, p.k = 8192, p.trans_a = Op::T;
  const BackwardProblems grads = backward_problems(p);
  const GemmProblem& da = grads.da.product;
  EXPECT_EQ(da.m, 8192);
  EXPECT_EQ(da.n, 2048);
  EXPECT_EQ(da.k, 4096);
  EXPECT_EQ(da.trans_a, Op::N);  // B, K x N
  EXPECT_EQ(da.trans_b, Op::T);  // dC^T
  EXPECT_EQ(grads.da.dc_operand, DcOperand::Second);
  EXPECT_EQ(da.effective_ldc(), 2048);
  const GemmProblem& db = grads.db.product;
  EXPECT_EQ(db.m, 8192);
  EXPECT_EQ(db.n, 4096);
  EXPECT_EQ(db.k, 2048);
  EXPECT_EQ(db.trans_a, Op::N);  // op(A)^T = A as stored
  EXPECT_EQ(db.trans_b, Op::N);
}

// Unit-diagonal projection: the fill plus the diagonal zeroed; symmetric: alpha / 2 and the
// transposed product added with beta = 1.
TEST(BackwardProblems, UnitAndSymmetricProjections) {
  GemmProblem p;
  p.m = p.k = 64, p.n = 32, p.alpha = 3.0f;
  p.structure_a = Structure::UpperUnit;
  p.trans_a = Op::T;
  BackwardProblems grads = backward_problems(p, {true, false});
  EXPECT_EQ(grads.da.product.fill, Fill::Upper);  // stored like A: its stored triangle
  EXPECT_TRUE(grads.da.zero_diagonal);
  EXPECT_EQ(grads.db.product.fill, Fill::Full);
  p.structure_a = Structure::SymmetricUpper;
  grads = backward_problems(p, {true, false});
  ASSERT_TRUE(grads.da.transposed_sum.has_value());
  EXPECT_EQ(grads.da.product.alpha, 1.5f);
  EXPECT_EQ(grads.da.product.fill, Fill::Full);
  const GemmProblem& t = *grads.da.transposed_sum;
  EXPECT_EQ(t.alpha, 1.5f);
  EXPECT_EQ(t.beta, 1.0f);
  EXPECT_EQ(t.m, grads.da.product.n);
  EXPECT_EQ(t.trans_a, grads.da.product.trans_b == Op::N ? Op::T : Op::N);
  EXPECT_EQ(t.structure_a, grads.da.product.structure_b);
  EXPECT_EQ(t.structure_b, grads.da.product.structure_a);
  EXPECT_EQ(t.effective_ldc(), grads.da.product.effective_ldc());
}

TEST(BackwardProblems, EmptyDimensionsFollowBlas) {
  GemmProblem p;
  p.m = 0, p.n = 8, p.k = 4;  // dA is empty; dB = op(A)^T G over M = 0: zeros
  BackwardProblems g = backward_problems(p);
  EXPECT_EQ(gemm_work(g.da.product), GemmWork::None);
  EXPECT_EQ(gemm_work(g.db.product), GemmWork::ScaleOutput);
  p.m = 8, p.n = 0;  // dA = G op(B)^T over N = 0: zeros; dB empty
  g = backward_problems(p);
  EXPECT_EQ(gemm_work(g.da.product), GemmWork::ScaleOutput);
  EXPECT_EQ(gemm_work(g.db.product), GemmWork::None);
  p.n = 8, p.k = 0;  // both gradients empty
  g = backward_problems(p);
  EXPECT_EQ(gemm_work(g.da.product), GemmWork::None);
  EXPECT_EQ(gemm_work(g.db.product), GemmWork::None);
  p.k = 4, p.alpha = 0.0f;  // zeros, dC not read
  g = backward_problems(p);
  EXPECT_EQ(gemm_work(g.da.product), GemmWork::ScaleOutput);
  EXPECT_EQ(gemm_work(g.db.product), GemmWork::ScaleOutput);
}

void expect_invalid(const GemmProblem& p, const BackwardOptions& options, const std::string& expected) {
  try {
    backward_problems(p, options);
    ADD_FAILURE() << "no error; expected " << expected;
  } catch (const InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find(expected), std::string::npos) << e.what();
  }
}

TEST(BackwardProblems, ProjectingAGeneralOperandOrABadProblemIsAnError) {
  GemmProblem p;
  p.m = p.n = p.k = 16;
  expect_invalid(p, {true, false}, "BackwardOptions.project_a needs a structured operand, but structure_a=general");
  p.structure_a = Structure::Lower;
  expect_invalid(p, {true, true}, "BackwardOptions.project_b needs a structured operand, but structure_b=general");
  p.m = -1;
  expect_invalid(p, {}, "backward_problems: M=-1 must be >= 0");
  // ldc becomes an input's leading dimension in the gradient products: the inputs' limit.
  p.m = 4, p.ldc = int64_t{1} << 30;
  try {
    backward_problems(p);
    ADD_FAILURE() << "no error for ldc = 2^30";
  } catch (const NotSupported& e) {
    EXPECT_NE(std::string(e.what()).find("backward_problems: the dA product: lda=1073741824 is not supported"),
              std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace jitgemm::testing
