// The accuracy contract of each precision mode (reference-problems.md): the largest
// relative Frobenius error against float64 that a candidate may have and still win.
#pragma once

#include <algorithm>
#include <cmath>

#include "jitgemm/problem.hpp"

namespace jitgemm {

constexpr double kUnitRoundoff = 5.9604644775390625e-08;  // u = 2^-24

// `cublas_error` is cuBLAS's error on the same inputs: SGEMM for fp32 and tf32x3, the
// TF32 compute mode for tf32.
inline double error_tolerance(Precision precision, double cublas_error) {
  switch (precision) {
    case Precision::FP32:
    case Precision::TF32x3: return std::max(2.0 * cublas_error, 4.0 * kUnitRoundoff);
    // The same floor: where cuBLAS's "TF32" runs an FP32 kernel (small K) and the product is
    // one term per element (a triangular operand's corner), its error drops below float32's
    // rounding, and no mode is held to less than four unit roundoffs.
    case Precision::TF32: return std::max(4.0 * cublas_error, 4.0 * kUnitRoundoff);
  }
  return 0.0;
}

// Relative error, unwritten and non-finite counts of one output against float64.
struct ErrorStats {
  double rel_error = 0.0;             // ||C - C64||_F / ||C64||_F over finite pairs
  unsigned long long unwritten = 0;   // C non-finite where C64 is finite
  unsigned long long mismatched = 0;  // NaN/Inf pattern differs from C64's
  unsigned long long padding_written = 0;  // C's padding (NaN-filled by every caller) changed
  // NaN never passes; neither does an unwritten element, a wrong NaN/Inf pattern or a write
  // into C's padding.
  bool passes(double tolerance) const {
    return std::isfinite(rel_error) && rel_error <= tolerance && unwritten == 0 && mismatched == 0 &&
           padding_written == 0;
  }
};

}  // namespace jitgemm
