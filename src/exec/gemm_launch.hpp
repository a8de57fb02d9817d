// How a compiled GEMM candidate runs on a problem: its launch geometry and, for split-K
// configs, the workspace of partial products and the deterministic reduction after it.
// Shared by the tuner (which runs candidates) and the Runtime (which serves them).
#pragma once

#include <cuda.h>

#include "codegen/kernel_config.hpp"
#include "compile/compiler.hpp"
#include "cuda/module.hpp"
#include "jitgemm/problem.hpp"

namespace jitgemm {

class TemplateStore;

// The split-K reduction kernel (kernel_templates/fp32/split_k_reduce.cu), compiled once.
class SplitKReducer {
 public:
  SplitKReducer(const Compiler& compiler, const TemplateStore& templates);
  // C = alpha * sum of the `splits` M x N slices of `workspace` + beta * C.
  void reduce(const GemmProblem& p, int splits, CUdeviceptr workspace, CUdeviceptr c, CUstream stream) const;

 private:
  cuda::Module module_;
  cuda::Function function_;
};

// Bytes of device workspace `config` needs on `p` (0 without split-K).
size_t gemm_workspace_bytes(const KernelConfig& config, const GemmProblem& p);

// Launches the GEMM kernel `main` (compiled from `config`) on p, then the reduction when
// config.split_k > 1. `workspace` holds gemm_workspace_bytes(config, p) bytes.
void launch_gemm(const cuda::Function& main, const KernelConfig& config, const SplitKReducer& reducer,
                 const GemmProblem& p, CUdeviceptr a, CUdeviceptr b, CUdeviceptr c, CUdeviceptr workspace,
                 CUstream stream);

}  // namespace jitgemm
