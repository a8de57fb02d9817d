#include "tune/cublas_reference.hpp"

#include <cublas_v2.h>
#include <fmt/format.h>

#include <cstdio>
#include <utility>

#include "jitgemm/error.hpp"
#include "problem/operand_structure.hpp"

namespace jitgemm {
namespace {

void check(cublasStatus_t status, const char* call, const std::string& args) {
  if (status != CUBLAS_STATUS_SUCCESS)
    throw CudaError(fmt::format("{}({}) failed: {} ({})", call, args, cublasGetStatusName(status),
                                cublasGetStatusString(status)),
                    static_cast<int>(status));
}

cublasOperation_t to_cublas(Op op) { return op == Op::N ? CUBLAS_OP_N : CUBLAS_OP_T; }

// Row-major C (M x N) = op(A) op(B) is column-major C^T (N x M) = op(B)^T op(A)^T, and a
// row-major stored operand read column-major is already its transpose: so B comes first,
// with its own op, then A.
struct ColumnMajorCall {
  cublasOperation_t op_first, op_second;
  int m, n, k;
  int ld_first, ld_second, ldc;
};

ColumnMajorCall column_major(const GemmProblem& p) {
  return {to_cublas(p.trans_b), to_cublas(p.trans_a), static_cast<int>(p.n), static_cast<int>(p.m),
          static_cast<int>(p.k), static_cast<int>(p.effective_ldb()), static_cast<int>(p.effective_lda()),
          static_cast<int>(p.effective_ldc())};
}

}  // namespace

CublasHandle::CublasHandle() { check(cublasCreate(&handle_), "cublasCreate", ""); }

CublasHandle::~CublasHandle() {
  if (handle_ != nullptr && cublasDestroy(handle_) != CUBLAS_STATUS_SUCCESS)
    std::fprintf(stderr, "jitgemm: cublasDestroy failed\n");
}

CublasHandle::CublasHandle(CublasHandle&& other) noexcept : handle_(std::exchange(other.handle_, nullptr)) {}

CublasHandle& CublasHandle::operator=(CublasHandle&& other) noexcept {
  if (this != &other) {
    this->~CublasHandle();
    handle_ = std::exchange(other.handle_, nullptr);
  }
  return *this;
}

void cublas_dgemm(const CublasHandle& handle, const GemmProblem& p, CUdeviceptr a64, CUdeviceptr b64,
                  CUdeviceptr c64, CUstream stream) {
  const auto c = column_major(p);
  const double alpha = p.alpha, beta = p.beta;
  check(cublasSetStream(handle.get(), reinterpret_cast<cudaStream_t>(stream)), "cublasSetStream", "");
  check(cublasDgemm(handle.get(), c.op_first, c.op_second, c.m, c.n, c.k, &alpha,
                    reinterpret_cast<const double*>(b64), c.ld_first, reinterpret_cast<const double*>(a64),
                    c.ld_second, &beta, reinterpret_cast<double*>(c64), c.ldc),
        "cublasDgemm", p.to_string());
}

void cublas_sgemm(const CublasHandle& handle, const GemmProblem& p, CUdeviceptr a, CUdeviceptr b, CUdeviceptr c_ptr,
                  CUstream stream, CublasMode mode) {
  const auto c = column_major(p);
  check(cublasSetStream(handle.get(), reinterpret_cast<cudaStream_t>(stream)), "cublasSetStream", "");
  const auto compute = mode == CublasMode::Tf32 ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F;
  check(cublasGemmEx(handle.get(), c.op_first, c.op_second, c.m, c.n, c.k, &p.alpha, reinterpret_cast<const void*>(b),
                     CUDA_R_32F, c.ld_first, reinterpret_cast<const void*>(a), CUDA_R_32F, c.ld_second, &p.beta,
                     reinterpret_cast<void*>(c_ptr), CUDA_R_32F, c.ldc, compute, CUBLAS_GEMM_DEFAULT),
        mode == CublasMode::Tf32 ? "cublasGemmEx[TF32]" : "cublasGemmEx[SGEMM]", p.to_string());
}

void cublas_strmm(const CublasHandle& handle, const GemmProblem& p, CUdeviceptr a, CUdeviceptr b, CUdeviceptr c_ptr,
                  CUstream stream) {
  if (!is_triangular(p.structure_a) || p.m != p.k || p.trans_b != Op::N || p.beta != 0.0f)
    throw InvalidArgument(fmt::format("cublas_strmm({}): needs a square triangular A, trans_b = N and beta = 0",
                                      p.to_string()));
  // Column-major, C^T (N x M) = B^T op(A)^T: side right; the row-major A read column-major is
  // A^T, so a lower-stored A is an upper column-major one, used with the problem's op.
  const cublasFillMode_t uplo =
      stored_triangle(p.structure_a) == Triangle::Lower ? CUBLAS_FILL_MODE_UPPER : CUBLAS_FILL_MODE_LOWER;
  const cublasDiagType_t diag = has_unit_diagonal(p.structure_a) ? CUBLAS_DIAG_UNIT : CUBLAS_DIAG_NON_UNIT;
  check(cublasSetStream(handle.get(), reinterpret_cast<cudaStream_t>(stream)), "cublasSetStream", "");
  check(cublasStrmm(handle.get(), CUBLAS_SIDE_RIGHT, uplo, to_cublas(p.trans_a), diag, static_cast<int>(p.n),
                    static_cast<int>(p.m), &p.alpha, reinterpret_cast<const float*>(a),
                    static_cast<int>(p.effective_lda()), reinterpret_cast<const float*>(b),
                    static_cast<int>(p.effective_ldb()), reinterpret_cast<float*>(c_ptr),
                    static_cast<int>(p.effective_ldc())),
        "cublasStrmm", p.to_string());
}

}  // namespace jitgemm
