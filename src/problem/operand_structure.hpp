// What a declared Structure means for the elements a kernel reads and the products it runs.
//
//   stored_triangle(Structure::Lower) == Triangle::Lower    // elements (i, j), i >= j, are read
//   op_triangle(Structure::Lower, Op::T) == Triangle::Upper  // op(X) = X^T is upper triangular
//   product_triangles(key)  // the nonzero triangles of the kernel's op(A), op(B) and the kept part of C
#pragma once

#include <cstdint>
#include <string>

#include "jitgemm/problem.hpp"

namespace jitgemm {

// A triangle of a matrix: the elements (i, j) with i >= j (Lower) or i <= j (Upper).
enum class Triangle { None, Lower, Upper };

constexpr Triangle transposed(Triangle t) noexcept {
  return t == Triangle::Lower ? Triangle::Upper : t == Triangle::Upper ? Triangle::Lower : Triangle::None;
}

// The code the kernel templates read for a triangle (FILL, TRIANGLE, SYMMETRIC, the support
// kernels' triangle): 0 none, 1 lower, 2 upper.
constexpr int triangle_code(Triangle t) noexcept { return t == Triangle::Lower ? 1 : t == Triangle::Upper ? 2 : 0; }

// The same product on the dense matrices structured operands stand for: general operands, full
// fill (what cuBLAS computes for a reference or baseline).
constexpr GemmProblem dense_problem(GemmProblem p) noexcept {
  p.structure_a = p.structure_b = Structure::General;
  p.fill = Fill::Full;
  return p;
}

constexpr bool is_symmetric(Structure s) noexcept {
  return s == Structure::Symmetric || s == Structure::SymmetricUpper;
}
constexpr bool is_triangular(Structure s) noexcept {
  return s == Structure::Lower || s == Structure::Upper || s == Structure::LowerUnit || s == Structure::UpperUnit;
}
constexpr bool has_unit_diagonal(Structure s) noexcept {
  return s == Structure::LowerUnit || s == Structure::UpperUnit;
}

// A symmetric operand is square; a triangular one may be any shape (trapezoidal). Why op(A)
// (M x K) or op(B) (K x N) declared symmetric is not square, naming its structure field
// ("structure_b=symmetric_upper needs a square operand, but op(B) is K x N = 65 x 64"); empty
// when both are. GemmProblem::validate and make_launch_plan (whose keys not every caller
// validated) both ask.
std::string symmetric_shape_error(Structure a, Structure b, int64_t m, int64_t n, int64_t k);

// The triangle of the stored matrix that is read (None: all of it).
constexpr Triangle stored_triangle(Structure s) noexcept {
  switch (s) {
    case Structure::Symmetric:
    case Structure::Lower:
    case Structure::LowerUnit: return Triangle::Lower;
    case Structure::SymmetricUpper:
    case Structure::Upper:
    case Structure::UpperUnit: return Triangle::Upper;
    case Structure::General: break;
  }
  return Triangle::None;
}

// The triangle of op(X) that may be nonzero: None unless X is triangular.
constexpr Triangle op_triangle(Structure s, Op op) noexcept {
  if (!is_triangular(s)) return Triangle::None;
  return op == Op::N ? stored_triangle(s) : transposed(stored_triangle(s));
}

constexpr Triangle fill_triangle(Fill f) noexcept {
  return f == Fill::Lower ? Triangle::Lower : f == Fill::Upper ? Triangle::Upper : Triangle::None;
}

// The structure of the product as the kernel computes it: op(A) (M x K) and op(B) (K x N)
// nonzero triangles, and the part of C (M x N) that is kept. With any of them set, some
// output tiles need less than all of K (or nothing): the kernel walks a work list.
struct ProductTriangles {
  Triangle a = Triangle::None;
  Triangle b = Triangle::None;
  Triangle c = Triangle::None;

  bool any() const noexcept { return a != Triangle::None || b != Triangle::None || c != Triangle::None; }
  // The same product computed as C^T = op(B)^T op(A)^T (operands swapped).
  ProductTriangles swapped() const noexcept { return {transposed(b), transposed(a), transposed(c)}; }
  friend bool operator==(const ProductTriangles&, const ProductTriangles&) = default;
};

constexpr ProductTriangles product_triangles(Structure a, Op trans_a, Structure b, Op trans_b, Fill fill) noexcept {
  return {op_triangle(a, trans_a), op_triangle(b, trans_b), fill_triangle(fill)};
}

}  // namespace jitgemm
