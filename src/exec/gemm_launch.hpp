// How a compiled GEMM candidate runs on a problem, following its LaunchPlan (launch_plan.hpp):
// the work around the main kernel that its family needs. Shared by the tuner (which runs
// candidates) and the Runtime (which serves them).
//   simt, mma, split_k > 1: partial products of K slices into the workspace, then
//                           fp32/split_k_reduce.cu adds them in double, in a fixed order
//                           (simt with 2..8 slices: the kernel's tiles' last CTAs do, the
//                           same additions: plan.split_k_finish). simt with edge strips
//                           (plan.strips): the tiles cover C but its thin last rows or
//                           columns, which fp32/edge_strips.cu computes right after, as a
//                           programmatic dependent of the main kernel.
//   wgmma:                  tf32/split_operand.cu writes op(A) and op(B) K-major as TF32
//                           planes into the workspace, then the persistent wgmma kernel
//                           reads them through TMA tensor maps. With A in registers only
//                           the kernel's B gets planes; its A is read in place through a
//                           tensor map on the caller's matrix (swap_ab: the roles of A and
//                           B are exchanged and the kernel writes C transposed). With B
//                           transformed the kernel's B is read in place too (stored MN-major)
//                           and no pre-pass runs; with B converted the kernel writes its plane.
// A structured operand (symmetric or triangular) is read from its stored triangle only: the
// pre-pass mirrors or masks it as it rounds it, and a kernel that reads it in place (SIMT,
// mma.sync, the wgmma operand in registers, the in-kernel converter's or transform warps'
// source) gets the dense matrix it stands for, which the same pre-pass writes unrounded into
// the workspace first. Triangular operands and a fill: the plan's work list is uploaded into
// the workspace before the main kernel (stream-ordered; the plan keeps the host copy).
#pragma once

#include <cuda.h>

#include <map>
#include <mutex>

#include "common/once_map.hpp"
#include "codegen/split_operand_render.hpp"
#include "compile/compiler.hpp"
#include "cuda/module.hpp"
#include "exec/compiled_module.hpp"
#include "exec/kernel_args.hpp"
#include "exec/launch_plan.hpp"

namespace jitgemm {

class TemplateStore;

// The kernels a plan launches, looked up (and compiled, the first time) once per plan: a
// launch through them takes no lock. Non-owning: the main kernel's owner and the launcher keep
// them alive.
struct PlanKernels {
  const cuda::Function* main = nullptr;
  const cuda::Function* copy_a = nullptr;  // the dense copy of A (PlannedOperand::copied)
  const cuda::Function* copy_b = nullptr;
  const cuda::Function* split_a = nullptr;   // wgmma: the pre-pass that writes A' planes (plan.prepass_a)
  const cuda::Function* split_b = nullptr;   // wgmma: the same for B'
  const cuda::Function* strips = nullptr;    // SIMT: fp32/edge_strips.cu (plan.strips)
};

class GemmLauncher {
 public:
  // `sm_count`: the device's SMs (persistent kernels launch at most one CTA per SM).
  GemmLauncher(const Compiler& compiler, const TemplateStore& templates, int sm_count);

  // The plan of `config` on problems of `key` on this device; `main` is the compiled kernel
  // (its co-resident clusters bound CTA-pair grids). Throws InvalidArgument / NotSupported when
  // it cannot run.
  LaunchPlan plan(const cuda::Function& main, const KernelConfig& config, const ProblemKey& key);

  // The kernels `plan` launches with `main` as its main kernel (the pre-passes compiled on first
  // use). Valid as long as `main` and this launcher.
  PlanKernels kernels(const LaunchPlan& plan, const cuda::Function& main);

  // Runs `plan`'s main kernel and whatever its family needs on a call `p` of the plan's key
  // (sizes, transposes and structure as planned, operands at addresses of the key's vector
  // widths; p gives the leading dimensions, alpha and beta). `workspace` holds
  // plan.workspace.total_bytes bytes, 256-byte aligned. Thread-safe; takes no lock, formats
  // nothing and allocates nothing unless it throws.
  void launch(const LaunchPlan& plan, const PlanKernels& kernels, const GemmProblem& p, CUdeviceptr a, CUdeviceptr b,
              CUdeviceptr c, CUdeviceptr workspace, CUstream stream) const;
  // The same with kernels(plan, main) looked up first.
  void launch(const LaunchPlan& plan, const GemmProblem& p, const cuda::Function& main, CUdeviceptr a, CUdeviceptr b,
              CUdeviceptr c, CUdeviceptr workspace, CUstream stream);

  // C = beta * C (beta = 0: zeros, C not read) for a call that multiplies nothing (K = 0 or
  // alpha = 0: GemmWork::ScaleOutput): split_k_reduce.cu over no slices.
  void scale_output(const GemmProblem& p, CUdeviceptr c, CUstream stream) const;

  // One-off launches (tests): the bytes of workspace `config` needs on `p` (whatever the
  // operands' alignment), and plan-then-launch with the key of `p` at these addresses.
  size_t workspace_bytes(const KernelConfig& config, const GemmProblem& p) const;
  void launch(const cuda::Function& main, const KernelConfig& config, const GemmProblem& p, CUdeviceptr a,
              CUdeviceptr b, CUdeviceptr c, CUdeviceptr workspace, CUstream stream);

 private:
  void launch_split_k(const LaunchPlan& plan, const PlanKernels& kernels, const GemmProblem& p, CUdeviceptr a,
                      CUdeviceptr b, CUdeviceptr c, CUdeviceptr workspace, CUstream stream) const;
  // fp32/split_k_reduce.cu over args.m x args.n outputs.
  void run_reduce(SplitKReduceArgs args, CUstream stream) const;
  // fp32/edge_strips.cu over the edges of `p` that plan.strips leaves to it, reading A and B as
  // the SIMT kernel does (its specialization's view: a dense copy may have changed the layout).
  void run_edge_strips(const LaunchPlan& plan, const cuda::Function& fn, const GemmProblem& p, CUdeviceptr a,
                       int64_t lda, CUdeviceptr b, int64_t ldb, CUdeviceptr c, CUstream stream) const;
  void launch_wgmma(const LaunchPlan& plan, const PlanKernels& kernels, const GemmProblem& p, CUdeviceptr a,
                    CUdeviceptr b, CUdeviceptr c, CUdeviceptr workspace, CUstream stream) const;
  // The operands the plan copies dense (PlannedOperand::copied: structured ones, and the
  // SIMT kernel's transposed copies): a, b and their leading dimensions replaced by the copies'.
  void copy_operands(const LaunchPlan& plan, const PlanKernels& kernels, CUdeviceptr& a, int64_t& lda,
                     CUdeviceptr& b, int64_t& ldb, CUdeviceptr workspace, CUstream stream) const;
  // Where the kernel reads the plan's work list (0 without one): the plan's device copy, or
  // else its workspace region, uploaded now.
  CUdeviceptr work_list(const LaunchPlan& plan, CUdeviceptr workspace, CUstream stream) const;
  // The pre-pass (tf32/split_operand.cu) writes `rows` rows of `k` values of its source into
  // planes of ld_dst floats per row, as `pass` says (launch_plan.hpp): its kernel, compiled on
  // first use, with no lock held.
  const cuda::Function& split_operand(const SplitPass& pass);
  // skip_band > 0: a triangular source's tiles farther than that from its diagonal, on the
  // zero side, are not written (the main kernel's work list never reads them).
  void run_split_operand(const cuda::Function& fn, Structure structure, CUdeviceptr src, int64_t ld_src, int64_t rows,
                         int64_t k, CUdeviceptr big, CUdeviceptr small, int64_t ld_dst, CUdeviceptr flag,
                         CUstream stream, int skip_band = 0) const;
  // CTA-pair kernels: how many SMs their co-resident clusters cover (a persistent grid larger
  // than that would leave clusters waiting for others to finish).
  int cluster_slots(const cuda::Function& main, const KernelConfig& config);

  const Compiler& compiler_;
  const TemplateStore& templates_;
  int sm_count_;
  bool dependent_launch_;  // JITGEMM_DEPENDENT_LAUNCH=0 turns programmatic dependent launches off
  bool split_k_finish_;    // JITGEMM_SPLIT_K_FINISH=0: plan.split_k_finish plans reduce in a kernel of their own
  cuda::Module reduce_module_;
  cuda::Function reduce_;
  // The pre-pass kernels, one per distinct pass.
  OnceMap<SplitPass, CompiledModule, SplitPassHash> split_operand_;
  // fp32/edge_strips.cu, compiled on first use (one kernel: the layout is in its arguments).
  OnceMap<int, CompiledModule> edge_strips_;
  std::mutex mutex_;  // guards cluster_slots_
  std::map<CUfunction, int> cluster_slots_;
};

}  // namespace jitgemm
