// The helper kernels of kernel_templates/support/tuning_kernels.cu, compiled once with
// NVRTC: random operands, poison, float->double widening and the error sums.
#pragma once

#include <cstdint>

#include <cuda.h>

#include "compile/compiler.hpp"
#include "cuda/module.hpp"
#include "exec/compiled_module.hpp"
#include "jitgemm/problem.hpp"
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
  // Structured operands (stored rows x cols, leading dimension ld; padding untouched):
  // poison_unread: what structure `s` never reads (the other triangle; a unit diagonal) = value.
  void poison_unread(CUdeviceptr x, int64_t rows, int64_t cols, int64_t ld, Structure s, float value,
                     CUstream stream) const;
  // densify: in place, the dense matrix `s` stands for (triangular: the other triangle 0, a
  // unit diagonal 1; symmetric: the other triangle mirrored). densify_f64 on a float64 copy.
  void densify(CUdeviceptr x, int64_t rows, int64_t cols, int64_t ld, Structure s, CUstream stream) const;
  void densify_f64(CUdeviceptr x, int64_t rows, int64_t cols, int64_t ld, Structure s, CUstream stream) const;
  // apply_fill: the strict triangle that `fill` zeroes set to 0 (nothing for Fill::Full).
  void apply_fill(CUdeviceptr c, int64_t rows, int64_t cols, int64_t ld, Fill fill, CUstream stream) const;
  void apply_fill_f64(CUdeviceptr c, int64_t rows, int64_t cols, int64_t ld, Fill fill, CUstream stream) const;
  void widen_to_double(CUdeviceptr in, CUdeviceptr out, int64_t count, CUstream stream) const;
  // One thread that keeps `stream` busy for `microseconds` of GPU time and touches no memory:
  // put before a timing's start event, the launches enqueued after it find the GPU still busy.
  void hold(double microseconds, CUstream stream) const;
  // Synchronizes `stream`; `scratch` holds >= 40 bytes of device memory. C's padding
  // (columns cols .. ldc) must hold NaN before the kernel under test ran.
  ErrorStats error_stats(CUdeviceptr c, int64_t ldc, CUdeviceptr ref, int64_t ldr, int64_t rows, int64_t cols,
                         CUdeviceptr scratch, CUstream stream) const;

 private:
  explicit SupportKernels(CompiledModule support);  // support.function: error_sums

  cuda::Module module_;
  cuda::Function fill_random_, fill_value_, widen_, error_sums_, hold_;
  cuda::Function structure_f32_, structure_f64_, keep_triangle_f32_, keep_triangle_f64_;
};

}  // namespace jitgemm
