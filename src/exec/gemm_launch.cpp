#include "exec/gemm_launch.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "codegen/candidate_space.hpp"
#include "codegen/kernel_abi.hpp"
#include "codegen/template_store.hpp"
#include "jitgemm/error.hpp"

namespace jitgemm {
namespace {

constexpr unsigned kReduceThreads = 256;

// Row length of a workspace slice: N rounded up to 4 floats, so that every row and slice
// stays 16-byte aligned for a kernel compiled with 16-byte stores of C.
int64_t workspace_ld(const GemmProblem& p) { return (p.n + 3) / 4 * 4; }

cuda::Module compile_reducer(const Compiler& compiler, const TemplateStore& templates) {
  auto outcome = compiler.compile(templates.expand_includes("fp32/split_k_reduce.cu"), "split_k_reduce", {});
  if (!outcome.ok) throw CompileError("fp32/split_k_reduce.cu failed to compile", outcome.log);
  return cuda::Module(outcome.kernel.cubin, "fp32/split_k_reduce.cu");
}

}  // namespace

SplitKReducer::SplitKReducer(const Compiler& compiler, const TemplateStore& templates)
    : module_(compile_reducer(compiler, templates)), function_(module_.function("split_k_reduce")) {}

void SplitKReducer::reduce(const GemmProblem& p, int splits, CUdeviceptr workspace, CUdeviceptr c,
                           CUstream stream) const {
  int s = splits, m = static_cast<int>(p.m), n = static_cast<int>(p.n);
  long long ldw = workspace_ld(p), ldc = p.effective_ldc();
  float alpha = p.alpha, beta = p.beta;
  void* args[] = {&workspace, &s, &m, &n, &ldw, &c, &ldc, &alpha, &beta};
  const int64_t blocks = std::clamp<int64_t>((p.m * p.n + kReduceThreads - 1) / kReduceThreads, 1, 132 * 16);
  cuda::launch(function_, {static_cast<unsigned>(blocks), 1, 1}, {kReduceThreads, 1, 1}, 0, stream, args);
}

size_t gemm_workspace_bytes(const KernelConfig& config, const GemmProblem& p) {
  if (config.split_k <= 1) return 0;
  return sizeof(float) * static_cast<size_t>(config.split_k) * static_cast<size_t>(p.m) *
         static_cast<size_t>(workspace_ld(p));
}

void launch_gemm(const cuda::Function& main, const KernelConfig& config, const SplitKReducer& reducer,
                 const GemmProblem& p, CUdeviceptr a, CUdeviceptr b, CUdeviceptr c, CUdeviceptr workspace,
                 CUstream stream) {
  const LaunchGeometry g = launch_geometry(config, p.m, p.n, p.k);
  if (config.split_k <= 1) {
    GemmKernelArgs args(p, a, b, c);
    auto params = args.pointers();
    cuda::launch(main, {g.grid_x, g.grid_y, g.grid_z}, {g.block_x, 1, 1}, static_cast<unsigned>(g.smem_bytes), stream,
                 params.data());
    return;
  }
  if (workspace == 0)
    throw InvalidArgument(fmt::format("launch_gemm({}): split-K needs {} bytes of workspace, got none", config.name(),
                                      gemm_workspace_bytes(config, p)));
  // Each CTA row y writes the plain partial product of its K slice to slice y of the
  // workspace (alpha 1, beta 0); the reducer applies alpha and beta once.
  GemmProblem partial = p;
  partial.alpha = 1.0f;
  partial.beta = 0.0f;
  partial.ldc = workspace_ld(p);
  GemmKernelArgs args(partial, a, b, workspace);
  auto params = args.pointers();
  cuda::launch(main, {g.grid_x, g.grid_y, g.grid_z}, {g.block_x, 1, 1}, static_cast<unsigned>(g.smem_bytes), stream,
               params.data());
  reducer.reduce(p, config.split_k, workspace, c, stream);
}

}  // namespace jitgemm
