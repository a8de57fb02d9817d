// gemm_work.hpp — what a call does by the BLAS rules, decided from the problem alone:
//   None          M = 0 or N = 0: C is empty; nothing is read or written
//   ScaleOutput   K = 0 or alpha = 0: C = beta * C (beta = 0: zeros), A and B are not read
//   Product       C = alpha * op(A) * op(B) + beta * C
// (A NaN alpha is not 0: it multiplies the product as IEEE says.)
#pragma once

#include "jitgemm/problem.hpp"

namespace jitgemm {

enum class GemmWork { None, ScaleOutput, Product };

constexpr GemmWork gemm_work(const GemmProblem& p) noexcept {
  if (p.m == 0 || p.n == 0) return GemmWork::None;
  if (p.k == 0 || p.alpha == 0.0f) return GemmWork::ScaleOutput;
  return GemmWork::Product;
}

}  // namespace jitgemm
