// The shape of an operand as it lies in memory. Row-major: op(A) is M x K, so A is stored
// M x K (trans_a = N) or K x M (trans_a = T); op(B) is K x N, so B is stored K x N or N x K.
//
//   const StoredShape a = stored_shape_a(problem);
//   DeviceBuffer buffer(sizeof(float) * a.rows * problem.effective_lda());
#pragma once

#include <cstdint>

#include "jitgemm/problem.hpp"

namespace jitgemm {

struct StoredShape {
  int64_t rows = 0;
  int64_t cols = 0;  // the row length: the tight leading dimension

  friend bool operator==(const StoredShape&, const StoredShape&) = default;
};

// The stored shape of an operand whose op() is op_rows x op_cols.
constexpr StoredShape stored_shape(Op op, int64_t op_rows, int64_t op_cols) noexcept {
  return op == Op::N ? StoredShape{op_rows, op_cols} : StoredShape{op_cols, op_rows};
}
constexpr StoredShape stored_shape_a(const GemmProblem& p) noexcept { return stored_shape(p.trans_a, p.m, p.k); }
constexpr StoredShape stored_shape_b(const GemmProblem& p) noexcept { return stored_shape(p.trans_b, p.k, p.n); }

}  // namespace jitgemm
