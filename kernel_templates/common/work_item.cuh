// work_item.cuh — structured products in the one-tile-per-CTA kernels (fp32/simt_gemm.cu,
// tf32/mma_sync_gemm.cu): the work item of a CTA, and the output fill.
//
// A work item (exec/work_list.hpp) is an int4 {tile row, tile column, first K unit, units}
// with units of BLOCK_K. The host orders the items longest first; CTA x takes item x.
#pragma once

#include "common/tile_order.cuh"

// Moves A and B to the item's first K unit and shortens K to its range (0: no product; the
// tile is stored as zeros, or beta * C). TRANS_A: A is stored K x M; TRANS_B: B is N x K.
template <int BLOCK_M, int BLOCK_N, int BLOCK_K, bool TRANS_A, bool TRANS_B>
__device__ __forceinline__ TileCoord take_work_item(int4 item, const float* __restrict__& A, long long lda,
                                                    const float* __restrict__& B, long long ldb, int& K) {
  const int k_begin = min(K, item.z * BLOCK_K);
  A += TRANS_A ? (long long)k_begin * lda : k_begin;  // op(A) column k_begin
  B += TRANS_B ? k_begin : (long long)k_begin * ldb;  // op(B) row k_begin
  K = min(K - k_begin, item.w * BLOCK_K);
  return {item.x * BLOCK_M, item.y * BLOCK_N};
}

// FILL 1 keeps the lower triangle of C (row >= column), 2 the upper one; the rest is zeros.
template <int FILL>
__device__ __forceinline__ bool fill_keeps(int row, int col) {
  return FILL == 0 || (FILL == 1 ? col <= row : col >= row);
}
// Whether columns col .. col + count - 1 of `row` are all kept.
template <int FILL>
__device__ __forceinline__ bool fill_keeps_all(int row, int col, int count) {
  return FILL == 0 || (FILL == 1 ? col + count - 1 <= row : col >= row);
}
