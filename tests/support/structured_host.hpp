// Structured operands on the host, for tests that check results element by element: which
// stored elements a declared Structure reads, the value each element of the dense matrix
// stands for, the part of C a Fill keeps, and a float64 product of small structured problems.
//
//   if (!reads(Structure::LowerUnit, i, j)) a[i * lda + j] = NAN;   // never read
//   const double x = stands_for(Structure::LowerUnit, a.data(), lda, i, j);  // 1 on the diagonal
#pragma once

#include <cstdint>
#include <vector>

#include "jitgemm/problem.hpp"
#include "problem/operand_structure.hpp"
#include "problem/stored_shape.hpp"

namespace jitgemm::testing {

inline constexpr Structure kAllStructures[] = {Structure::General,        Structure::Symmetric, Structure::Lower,
                                               Structure::Upper,          Structure::SymmetricUpper,
                                               Structure::LowerUnit,      Structure::UpperUnit};
inline constexpr Fill kAllFills[] = {Fill::Full, Fill::Lower, Fill::Upper};

// True when a kernel may read the stored element (i, j) of an operand declared `s`.
constexpr bool reads(Structure s, int64_t i, int64_t j) noexcept {
  if (i == j) return !has_unit_diagonal(s);
  switch (stored_triangle(s)) {
    case Triangle::Lower: return i > j;
    case Triangle::Upper: return i < j;
    case Triangle::None: break;
  }
  return true;
}

// The value of element (i, j) of the dense stored matrix that an operand declared `s` stands
// for (before op): its own element where read, the mirrored one for a symmetric operand, 0 in a
// triangular operand's other triangle, 1 on a unit diagonal. Never looks at an unread element.
inline double stands_for(Structure s, const float* stored, int64_t ld, int64_t i, int64_t j) {
  if (reads(s, i, j)) return stored[i * ld + j];
  if (is_symmetric(s)) return stored[j * ld + i];
  return i == j ? 1.0 : 0.0;  // unit diagonal, or the zero triangle
}

// True when C[i][j] is written by the product under `f` (else it is written as 0).
constexpr bool kept(Fill f, int64_t i, int64_t j) noexcept {
  return f == Fill::Full || (f == Fill::Lower ? i >= j : i <= j);
}

// fill(alpha op(A) op(B) + beta C0) in float64 over C's m x ldc storage: the other strict
// triangle 0, C0 not read where beta == 0 or outside the kept part, the padding columns as
// in C0. a, b, c0 hold the stored operands with the problem's leading dimensions. O(MNK):
// for small problems.
inline std::vector<double> host_reference(const GemmProblem& p, const std::vector<float>& a,
                                          const std::vector<float>& b, const std::vector<float>& c0) {
  const int64_t lda = p.effective_lda(), ldb = p.effective_ldb(), ldc = p.effective_ldc();
  auto op_a = [&](int64_t i, int64_t l) {
    return p.trans_a == Op::N ? stands_for(p.structure_a, a.data(), lda, i, l)
                              : stands_for(p.structure_a, a.data(), lda, l, i);
  };
  auto op_b = [&](int64_t l, int64_t j) {
    return p.trans_b == Op::N ? stands_for(p.structure_b, b.data(), ldb, l, j)
                              : stands_for(p.structure_b, b.data(), ldb, j, l);
  };
  std::vector<double> c(c0.begin(), c0.end());
  for (int64_t i = 0; i < p.m; ++i)
    for (int64_t j = 0; j < p.n; ++j) {
      double& out = c[static_cast<size_t>(i * ldc + j)];
      if (!kept(p.fill, i, j)) {
        out = 0.0;
        continue;
      }
      double sum = 0.0;
      if (p.alpha != 0.0f)
        for (int64_t l = 0; l < p.k; ++l) sum += op_a(i, l) * op_b(l, j);
      out = static_cast<double>(p.alpha) * sum + (p.beta == 0.0f ? 0.0 : static_cast<double>(p.beta) * out);
    }
  return c;
}

}  // namespace jitgemm::testing
