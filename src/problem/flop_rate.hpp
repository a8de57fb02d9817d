// The useful work rate of a product: 2 * M * N * K floating-point operations over its time,
// whatever the kernel actually executed (a triangular or symmetric problem counts in full).
#pragma once

#include "jitgemm/problem.hpp"

namespace jitgemm {

// 2 * M * N * K / time in TFLOP/s; 0 when `ms` is not positive.
inline double tflops(const GemmProblem& p, double ms) {
  return ms > 0 ? 2.0 * static_cast<double>(p.m) * static_cast<double>(p.n) * static_cast<double>(p.k) / (ms * 1e9)
                : 0.0;
}

}  // namespace jitgemm
