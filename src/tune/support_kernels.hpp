// The helper kernels of kernel_templates/support/tuning_kernels.cu, compiled once with
// NVRTC: random operands, poison, float->double widening and the error sums.
#pragma once

#include <cstdint>

#include <cuda.h>

#include "compile/compiler.hpp"
#include "cuda/module.hpp"
#include "exec/compiled_module.hpp"
#include "tune/accuracy_contract.hpp"

namespace jitgemm {

class TemplateStore;

// Value distributions of the random operands.
enum class RandomKind { Uniform01 = 0, SignedNormal = 1, WideExponent = 2, WithSpecials = 3 };

class SupportKernels {
 public:
  SupportKernels(const Compiler& compiler, const TemplateStore& templates);

  // rows x cols row-major matrix with leading dimension ld; padding gets pad_value.
  void fill_random(CUdeviceptr out, int64_t rows, int64_t cols, int64_t ld, uint64_t seed, RandomKind kind,
                   bool symmetric, float pad_value, CUstream stream) const;
  void fill_value(CUdeviceptr out, int64_t count, float value, CUstream stream) const;
  // value above the diagonal of an n x n matrix (the triangle a symmetric operand never reads).
  void fill_upper_triangle(CUdeviceptr out, int64_t n, int64_t ld, float value, CUstream stream) const;
  void widen_to_double(CUdeviceptr in, CUdeviceptr out, int64_t count, CUstream stream) const;
  // Synchronizes `stream`; `scratch` holds >= 32 bytes of device memory.
  ErrorStats error_stats(CUdeviceptr c, int64_t ldc, CUdeviceptr ref, int64_t ldr, int64_t rows, int64_t cols,
                         CUdeviceptr scratch, CUstream stream) const;

 private:
  explicit SupportKernels(CompiledModule support);  // support.function: error_sums

  cuda::Module module_;
  cuda::Function fill_random_, fill_value_, fill_upper_, widen_, error_sums_;
};

}  // namespace jitgemm
