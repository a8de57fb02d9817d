// The typed argument lists of the kernels, in their signatures' order, held by value so the
// pointers handed to cuLaunchKernel stay valid for the call:
//   GemmKernelArgs   fp32/simt_gemm.cu and tf32/mma_sync_gemm.cu:
//     (int M, int N, int K, const float* A, long long lda, const float* B, long long ldb,
//      float* C, long long ldc, float alpha, float beta, const int4* work
//      [simt_gemm.cu only: , SplitKFinish finish])
//   WgmmaKernelArgs  tf32/wgmma_gemm.cu (tensor maps, C, sizes, flags, ConvertJob, StreamKSpace)
//   SplitKReduceArgs fp32/split_k_reduce.cu
#pragma once

#include <array>

#include <cuda.h>

#include "jitgemm/problem.hpp"

namespace jitgemm {

// The last parameter of fp32/simt_gemm.cu: SplitKFinish of common/split_k_finish.cuh, where the
// tile's last CTA of a split-K launch writes the finished C (arrivals 0: the host reduces).
struct SplitKFinish {
  CUdeviceptr c = 0;
  long long ldc = 0;
  float alpha = 1, beta = 0;
  CUdeviceptr arrivals = 0;  // unsigned per tile, zeroed before the launch
};
static_assert(sizeof(SplitKFinish) == 32, "SplitKFinish must match the kernel's struct");

struct GemmKernelArgs {
  int m, n, k;
  CUdeviceptr a;
  long long lda;
  CUdeviceptr b;
  long long ldb;
  CUdeviceptr c;
  long long ldc;
  float alpha, beta;
  CUdeviceptr work;  // WORK_LIST: the work items (exec/work_list.hpp), one per CTA column; else 0
  // simt_gemm.cu's split-K finish (zeros: none). The mma_sync kernel has no such parameter:
  // cuLaunchKernel reads as many as the kernel has.
  SplitKFinish finish;

  GemmKernelArgs(const GemmProblem& p, CUdeviceptr a_ptr, CUdeviceptr b_ptr, CUdeviceptr c_ptr,
                 CUdeviceptr work_items = 0)
      : m(static_cast<int>(p.m)), n(static_cast<int>(p.n)), k(static_cast<int>(p.k)), a(a_ptr),
        lda(p.effective_lda()), b(b_ptr), ldb(p.effective_ldb()), c(c_ptr), ldc(p.effective_ldc()),
        alpha(p.alpha), beta(p.beta), work(work_items) {}

  // The kernel-parameter array for cuLaunchKernel, in signature order.
  std::array<void*, 13> pointers() {
    return {&m, &n, &k, &a, &lda, &b, &ldb, &c, &ldc, &alpha, &beta, &work, &finish};
  }
};

// The last argument of every tf32/wgmma_gemm.cu kernel: ConvertJob of tf32/convert_operand.cuh,
// what its converter warps write when CONVERT_B = 1 (all zeros otherwise). Same layout.
struct ConvertJob {
  CUdeviceptr src = 0;  // the caller's matrix B comes from
  long long ld_src = 0;
  CUdeviceptr dst = 0;  // B's plane
  long long ld_dst = 0;
  CUdeviceptr next_unit = 0;   // unsigned counter, zeroed before the launch
  CUdeviceptr chunk_done = 0;  // unsigned per 64-K chunk, zeroed before the launch
  int rows = 0;
  int k = 0;
};
static_assert(sizeof(ConvertJob) == 56, "ConvertJob must match the kernel's struct");

// The argument after it: StreamKSpace of tf32/stream_k.cuh, where the pieces of a tail tile cut
// along K (stream_k = 1) hand their running sum on (null otherwise). Same layout.
struct StreamKSpace {
  CUdeviceptr partials = 0;  // grid * consumers slots of 64 x block_n floats (the tail tiles use fewer)
  CUdeviceptr flags = 0;     // grid * consumers unsigned, zeroed before the launch
};
static_assert(sizeof(StreamKSpace) == 16, "StreamKSpace must match the kernel's struct");

// The argument list of tf32/wgmma_gemm.cu's kernel. Tensor maps: A' big (or A' raw, read in
// registers), B' big (or raw, transformed), A' small, B' small (the big ones again where an
// operand has no small plane).
struct WgmmaKernelArgs {
  CUtensorMap map_a_big, map_b_big, map_a_small, map_b_small;
  CUdeviceptr c = 0;
  long long ldc = 0;
  int m = 0, n = 0, k = 0;  // the kernel's M' x N' x K
  float alpha = 1, beta = 0;
  CUdeviceptr nonfinite = 0;  // the pre-pass's flag (0: none)
  ConvertJob job;
  StreamKSpace stream_k;
  CUdeviceptr work = 0;        // WORK_LIST: the work items (exec/work_list.hpp)
  CUdeviceptr work_begin = 0;  // WORK_LIST: gridDim.x + 1 offsets into them, one share per CTA

  std::array<void*, 16> pointers() {
    return {&map_a_big, &map_b_big, &map_a_small, &map_b_small, &c, &ldc, &m, &n, &k, &alpha, &beta, &nonfinite,
            &job, &stream_k, &work, &work_begin};
  }
};

// fp32/split_k_reduce.cu: C = alpha * (sum of the S slices of W, in double) + beta * C, with
// fill 1 (2) zeros above (below) the diagonal; `groups` threads share a quad of C
// (split_k_reduce_groups(S), which run_reduce sets).
struct SplitKReduceArgs {
  CUdeviceptr w = 0;
  int slices = 0, m = 0, n = 0;
  long long ldw = 0;
  CUdeviceptr c = 0;
  long long ldc = 0;
  float alpha = 1, beta = 0;
  int fill = 0;
  int groups = 1;

  std::array<void*, 11> pointers() { return {&w, &slices, &m, &n, &ldw, &c, &ldc, &alpha, &beta, &fill, &groups}; }
};

// Threads of split_k_reduce.cu that share a quad of C over S slices: the largest power of two
// up to S and 8, at least 1. A function of S alone, so the order in which the
// slices are added, and with it the bits of C, is the same on every GPU and every call.
constexpr int split_k_reduce_groups(int slices) {
  int groups = 1;
  while (groups < 8 && groups * 2 <= slices) groups *= 2;
  return groups;
}

}  // namespace jitgemm
