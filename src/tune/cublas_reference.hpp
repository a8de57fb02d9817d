// cuBLAS as reference and baseline: the float64 product (DGEMM) every candidate is
// checked against, and SGEMM / TF32 GEMM on the same inputs for the accuracy contract
// and the speed comparison. Row-major problems map onto column-major cuBLAS by computing
// C^T = op(B)^T op(A)^T.
#pragma once

#include <cuda.h>

#include "jitgemm/problem.hpp"

struct cublasContext;

namespace jitgemm {

// Move-only owner of a cublasHandle_t bound to the current context.
class CublasHandle {
 public:
  CublasHandle();
  ~CublasHandle();
  CublasHandle(const CublasHandle&) = delete;
  CublasHandle& operator=(const CublasHandle&) = delete;
  CublasHandle(CublasHandle&& other) noexcept;
  CublasHandle& operator=(CublasHandle&& other) noexcept;
  cublasContext* get() const noexcept { return handle_; }

 private:
  cublasContext* handle_ = nullptr;
};

// Which cuBLAS computation stands next to jitgemm.
enum class CublasMode { Sgemm, Tf32 };

// The baseline of a precision mode (reference-problems.md): SGEMM for fp32 and tf32x3,
// the TF32 tensor-core mode for tf32. Its error sets the accuracy contract.
inline CublasMode cublas_baseline(Precision p) { return p == Precision::TF32 ? CublasMode::Tf32 : CublasMode::Sgemm; }
// "cublas_sgemm" / "cublas_tf32", as in bench/results.
inline const char* cublas_baseline_name(Precision p) {
  return p == Precision::TF32 ? "cublas_tf32" : "cublas_sgemm";
}

// C64 = alpha * op(A64) op(B64) + beta * C64, all double with the problem's leading dimensions
// (C64 is not read when beta == 0).
void cublas_dgemm(const CublasHandle& handle, const GemmProblem& p, CUdeviceptr a64, CUdeviceptr b64,
                  CUdeviceptr c64, CUstream stream);

// C = alpha * op(A) op(B) + beta * C in float32 with cuBLAS (SGEMM or TF32 tensor cores).
void cublas_sgemm(const CublasHandle& handle, const GemmProblem& p, CUdeviceptr a, CUdeviceptr b, CUdeviceptr c,
                  CUstream stream, CublasMode mode = CublasMode::Sgemm);

// C = alpha * op(A) op(B) with cublasStrmm (out of place), for op(A) triangular (structure_a
// Lower, Upper or a unit-diagonal one; square) and op(B) = B general (trans_b = N; strmm reads
// all of it): the BLAS baseline of a triangular product. Only A's stored triangle is read.
// Throws InvalidArgument for a problem strmm cannot compute.
void cublas_strmm(const CublasHandle& handle, const GemmProblem& p, CUdeviceptr a, CUdeviceptr b, CUdeviceptr c,
                  CUstream stream);

}  // namespace jitgemm
