// problem/operand_structure.hpp: the classes of each Structure, the triangle of op(X) a
// triangular operand leaves nonzero (a Lower operand used with op T is upper triangular, also
// when it is not square), the triangles of a product and of the same product with its
// operands swapped (C^T = op(B)^T op(A)^T).
#include "problem/operand_structure.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "support/structured_host.hpp"

namespace jitgemm {
namespace {

using testing::kAllFills;
using testing::kAllStructures;

Op flip(Op op) { return op == Op::N ? Op::T : Op::N; }

// Compile-time: the rules the kernels and the work lists are built on.
static_assert(op_triangle(Structure::Lower, Op::N) == Triangle::Lower);
static_assert(op_triangle(Structure::Lower, Op::T) == Triangle::Upper);
static_assert(op_triangle(Structure::UpperUnit, Op::T) == Triangle::Lower);
static_assert(op_triangle(Structure::Symmetric, Op::N) == Triangle::None);
static_assert(op_triangle(Structure::SymmetricUpper, Op::T) == Triangle::None);
static_assert(stored_triangle(Structure::SymmetricUpper) == Triangle::Upper);
static_assert(product_triangles(Structure::Lower, Op::N, Structure::Lower, Op::N, Fill::Lower) ==
              ProductTriangles{Triangle::Lower, Triangle::Lower, Triangle::Lower});

TEST(OperandStructure, ClassesOfEveryStructure) {
  struct Row {
    Structure s;
    bool symmetric, triangular, unit;
    Triangle stored;
  };
  const Row rows[] = {
      {Structure::General, false, false, false, Triangle::None},
      {Structure::Symmetric, true, false, false, Triangle::Lower},
      {Structure::Lower, false, true, false, Triangle::Lower},
      {Structure::Upper, false, true, false, Triangle::Upper},
      {Structure::SymmetricUpper, true, false, false, Triangle::Upper},
      {Structure::LowerUnit, false, true, true, Triangle::Lower},
      {Structure::UpperUnit, false, true, true, Triangle::Upper},
  };
  ASSERT_EQ(std::size(rows), std::size(kAllStructures));
  for (const Row& row : rows) {
    SCOPED_TRACE(to_string(row.s));
    EXPECT_EQ(is_symmetric(row.s), row.symmetric);
    EXPECT_EQ(is_triangular(row.s), row.triangular);
    EXPECT_EQ(has_unit_diagonal(row.s), row.unit);
    EXPECT_EQ(stored_triangle(row.s), row.stored);
  }
}

TEST(OperandStructure, TransposedAndFillTriangles) {
  EXPECT_EQ(transposed(Triangle::None), Triangle::None);
  EXPECT_EQ(transposed(Triangle::Lower), Triangle::Upper);
  EXPECT_EQ(transposed(Triangle::Upper), Triangle::Lower);
  for (Triangle t : {Triangle::None, Triangle::Lower, Triangle::Upper}) EXPECT_EQ(transposed(transposed(t)), t);
  EXPECT_EQ(fill_triangle(Fill::Full), Triangle::None);
  EXPECT_EQ(fill_triangle(Fill::Lower), Triangle::Lower);
  EXPECT_EQ(fill_triangle(Fill::Upper), Triangle::Upper);
}

TEST(OperandStructure, OpTriangleOfEveryStructureAndOp) {
  for (Structure s : kAllStructures)
    for (Op op : {Op::N, Op::T}) {
      SCOPED_TRACE(::testing::Message() << to_string(s) << " op " << to_string(op));
      const Triangle t = op_triangle(s, op);
      if (!is_triangular(s)) {
        EXPECT_EQ(t, Triangle::None);  // general and symmetric operands are dense after op
        continue;
      }
      EXPECT_EQ(t, op == Op::N ? stored_triangle(s) : transposed(stored_triangle(s)));
      EXPECT_EQ(op_triangle(s, flip(op)), transposed(t));
    }
}

// The triangle op_triangle names is exactly where the dense op(X) may be nonzero, for square
// and trapezoidal operands: densify a stored matrix of 2s whose unread part is NaN.
TEST(OperandStructure, OpTriangleIsWhereTheDensifiedOperandIsNonzero) {
  const std::pair<int64_t, int64_t> shapes[] = {{5, 5}, {3, 7}, {7, 3}, {1, 4}, {4, 1}, {1, 1}};
  int checked = 0;
  for (Structure s : kAllStructures) {
    if (!is_triangular(s)) continue;
    for (auto [rows, cols] : shapes)
      for (Op op : {Op::N, Op::T}) {
        SCOPED_TRACE(::testing::Message() << to_string(s) << " stored " << rows << " x " << cols << " op "
                                          << to_string(op));
        std::vector<float> stored(static_cast<size_t>(rows * cols), 2.0f);
        for (int64_t i = 0; i < rows; ++i)
          for (int64_t j = 0; j < cols; ++j)
            if (!testing::reads(s, i, j)) stored[static_cast<size_t>(i * cols + j)] = NAN;
        const Triangle t = op_triangle(s, op);
        const int64_t op_rows = op == Op::N ? rows : cols, op_cols = op == Op::N ? cols : rows;
        for (int64_t r = 0; r < op_rows; ++r)
          for (int64_t c = 0; c < op_cols; ++c) {
            const double x = op == Op::N ? testing::stands_for(s, stored.data(), cols, r, c)
                                         : testing::stands_for(s, stored.data(), cols, c, r);
            ASSERT_FALSE(std::isnan(x)) << "an unread element was used at (" << r << ", " << c << ")";
            const bool inside = t == Triangle::Lower ? r >= c : r <= c;
            EXPECT_EQ(x != 0.0, inside) << "op(X)(" << r << ", " << c << ") = " << x;
            if (r == c) EXPECT_EQ(x, has_unit_diagonal(s) ? 1.0 : 2.0);
            ++checked;
          }
      }
  }
  EXPECT_GT(checked, 300);
}

TEST(ProductTriangles, OfEveryStructureOpAndFill) {
  int combinations = 0;
  for (Structure a : kAllStructures)
    for (Op ta : {Op::N, Op::T})
      for (Structure b : kAllStructures)
        for (Op tb : {Op::N, Op::T})
          for (Fill fill : kAllFills) {
            const ProductTriangles t = product_triangles(a, ta, b, tb, fill);
            EXPECT_EQ(t.a, op_triangle(a, ta));
            EXPECT_EQ(t.b, op_triangle(b, tb));
            EXPECT_EQ(t.c, fill_triangle(fill));
            EXPECT_EQ(t.any(), is_triangular(a) || is_triangular(b) || fill != Fill::Full)
                << to_string(a) << " " << to_string(b) << " " << to_string(fill);
            ++combinations;
          }
  EXPECT_EQ(combinations, 7 * 2 * 7 * 2 * 3);
}

TEST(ProductTriangles, SwappedIsTheTransposedProduct) {
  // C = op(A) op(B) kept in fill  <=>  C^T = op(B)^T op(A)^T kept in the transposed fill.
  auto transposed_fill = [](Fill f) { return f == Fill::Lower ? Fill::Upper : f == Fill::Upper ? Fill::Lower : f; };
  for (Structure a : kAllStructures)
    for (Op ta : {Op::N, Op::T})
      for (Structure b : kAllStructures)
        for (Op tb : {Op::N, Op::T})
          for (Fill fill : kAllFills) {
            SCOPED_TRACE(::testing::Message() << to_string(a) << to_string(ta) << " x " << to_string(b)
                                              << to_string(tb) << " fill " << to_string(fill));
            const ProductTriangles t = product_triangles(a, ta, b, tb, fill);
            EXPECT_EQ(t.swapped(), product_triangles(b, flip(tb), a, flip(ta), transposed_fill(fill)));
            EXPECT_EQ(t.swapped().swapped(), t);
            EXPECT_EQ(t.swapped().any(), t.any());
          }
}

TEST(ProductTriangles, TheReferenceProblemsAndTheirGradients) {
  // lowertri: tril(A B), A and B lower.
  const ProductTriangles lowertri =
      product_triangles(Structure::Lower, Op::N, Structure::Lower, Op::N, Fill::Lower);
  EXPECT_EQ(lowertri, (ProductTriangles{Triangle::Lower, Triangle::Lower, Triangle::Lower}));
  EXPECT_EQ(lowertri.swapped(), (ProductTriangles{Triangle::Upper, Triangle::Upper, Triangle::Upper}));
  // Its gradients: dA = tril(dC B^T) (an upper op(B)), dB = tril(A^T dC) (an upper op(A)).
  EXPECT_EQ(product_triangles(Structure::General, Op::N, Structure::Lower, Op::T, Fill::Lower),
            (ProductTriangles{Triangle::None, Triangle::Upper, Triangle::Lower}));
  EXPECT_EQ(product_triangles(Structure::Lower, Op::T, Structure::General, Op::N, Fill::Lower),
            (ProductTriangles{Triangle::Upper, Triangle::None, Triangle::Lower}));
  // symmetric (both operands) and a plain product: nothing triangular, no work list.
  EXPECT_FALSE(product_triangles(Structure::Symmetric, Op::N, Structure::SymmetricUpper, Op::T, Fill::Full).any());
  EXPECT_FALSE(product_triangles(Structure::General, Op::T, Structure::General, Op::N, Fill::Full).any());
  EXPECT_FALSE(ProductTriangles{}.any());
  EXPECT_TRUE(product_triangles(Structure::General, Op::N, Structure::General, Op::N, Fill::Upper).any());
}

// The host model the GPU tests compare with (support/structured_host.hpp), on a product small
// enough to do by hand: unread elements are NaN, C is not read outside the fill.
TEST(StructuredHost, ATinyStructuredProductByHand) {
  GemmProblem p;
  p.m = p.n = p.k = 2, p.ldc = 3, p.alpha = 2.0f, p.beta = 0.5f, p.fill = Fill::Lower;
  p.structure_a = Structure::LowerUnit;       // [[1, 0], [3, 1]]
  p.structure_b = Structure::SymmetricUpper;  // [[2, 5], [5, 7]]
  const std::vector<float> a = {NAN, NAN, 3.0f, NAN}, b = {2.0f, 5.0f, NAN, 7.0f};
  const std::vector<float> c0 = {4.0f, NAN, 9.0f, 2.0f, 6.0f, 9.0f};
  // op(A) op(B) = [[2, 5], [11, 22]]; tril(2 AB + C0 / 2), padding as it was.
  EXPECT_EQ(testing::host_reference(p, a, b, c0), (std::vector<double>{6.0, 0.0, 9.0, 23.0, 47.0, 9.0}));
  p.trans_a = Op::T;  // op(A) = [[1, 3], [0, 1]]: AB = [[17, 26], [5, 7]]
  p.beta = 0.0f;      // C0 not read
  p.fill = Fill::Upper;
  EXPECT_EQ(testing::host_reference(p, a, b, c0), (std::vector<double>{34.0, 52.0, 9.0, 0.0, 14.0, 9.0}));
}

}  // namespace
}  // namespace jitgemm
