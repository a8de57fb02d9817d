// split_k_slice.cuh — the K slice of one CTA row of a split-K launch (fp32/simt_gemm.cu,
// tf32/mma_sync_gemm.cu).
//
// With gridDim.y = S > 1, CTA row y multiplies the K slice [k_begin, k_begin + K') and writes
// its plain partial product (the host passes alpha 1, beta 0, C = workspace, ldc = N rounded
// up to 4) to slice y of the workspace, [S][M][ldc]; fp32/split_k_reduce.cu adds them in a
// fixed order. Slices start on BLOCK_K boundaries, so 16-byte loads stay aligned. A slice past
// the end of K has K' = 0: its partial product is zeros.
#pragma once

// Moves A, B and C to this CTA row's slice and shortens K to its length (call with gridDim.y > 1).
// TRANS_A: A is stored K x M (op(A) column k is row k); TRANS_B: B is stored N x K.
template <int BLOCK_K, bool TRANS_A, bool TRANS_B>
__device__ __forceinline__ void take_split_k_slice(const float* __restrict__& A, long long lda,
                                                   const float* __restrict__& B, long long ldb,
                                                   float* __restrict__& C, long long ldc, int M, int& K) {
  const int k_chunk = ((K + BLOCK_K - 1) / BLOCK_K + (int)gridDim.y - 1) / (int)gridDim.y * BLOCK_K;
  const int k_begin = min(K, (int)blockIdx.y * k_chunk);
  A += TRANS_A ? (long long)k_begin * lda : k_begin;  // op(A) column k_begin
  B += TRANS_B ? k_begin : (long long)k_begin * ldb;  // op(B) row k_begin
  C += (long long)blockIdx.y * M * ldc;
  K = min(K - k_begin, k_chunk);                      // may be 0: the slice is then zeros
}
