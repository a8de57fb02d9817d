// stream_k.cuh — tail tiles cut along K between CTAs (STREAM_K = 1, tf32/tile_schedule.cuh):
// the partial sums that pass from piece to piece of a tile.
//
// Each consumer warpgroup keeps its 64 x BLOCK_N share of tail tile t in slot (t, warpgroup)
// of `partials`, in fragment order (float4 j of thread t at [j][t]: every store and load is
// one coalesced 16-byte access per thread), and flags[t * CONSUMERS + warpgroup] counts the
// pieces summed there. Piece p waits for the count to reach p (acquire), adds the slot to its
// own sum, and unless it is the last piece stores that back and raises the count (release);
// the last piece's warpgroup stores the tile. The pieces are added in piece order, so every
// run gives the same bits. The host zeroes the flags before the launch.
//
// A piece waits only for pieces of lower numbers, which every CTA takes first, so the wait
// ends once every CTA is resident: the host launches at most one CTA per SM (the kernel takes
// the whole SM).
//
// Not self-standing: wgmma_gemm.cu includes it after its constants.
#pragma once

#include "common/global_sync.cuh"
#include "common/smem.cuh"

struct StreamKSpace {
  float* partials;  // gridDim.x * CONSUMERS slots of 64 x BLOCK_N floats (tail tiles < gridDim.x)
  unsigned* flags;  // gridDim.x * CONSUMERS, zero at launch
};

constexpr int PARTIAL_VECTORS = ACC_REGS / 4;  // float4s per thread of a 64 x BLOCK_N partial

__device__ __forceinline__ float4* partial_slot(const StreamKSpace& sk, int tail_tile, int wg) {
  return reinterpret_cast<float4*>(sk.partials) + (size_t)(tail_tile * CONSUMERS + wg) * PARTIAL_VECTORS * 128;
}

// Named barrier of consumer warpgroup wg (the same one its votes use: 1 + wg).
__device__ __forceinline__ void sync_warpgroup(int wg) { barrier_sync(1 + wg, 128); }

// Piece w.piece of a tail tile: acc += the sum of the pieces before it, then that sum is
// handed on to the next piece. True for the last piece, whose caller stores the tile.
__device__ __forceinline__ bool sum_pieces(float (&acc)[ACC_REGS], const StreamKSpace& sk, const TileSchedule& s,
                                           const Work& w, int wg) {
  const int t = threadIdx.x % 128;
  unsigned* flag = sk.flags + w.slot * CONSUMERS + wg;
  float4* slot = partial_slot(sk, w.slot, wg);
  if (w.piece > 0) {
    if (t == 0) {
      while (load_acquire_gpu(flag) < (unsigned)w.piece) __nanosleep(32);
    }
    sync_warpgroup(wg);  // the acquire above precedes every thread's loads
#pragma unroll
    for (int j = 0; j < PARTIAL_VECTORS; ++j) {
      const float4 p = __ldcg(slot + j * 128 + t);
      acc[4 * j] += p.x, acc[4 * j + 1] += p.y, acc[4 * j + 2] += p.z, acc[4 * j + 3] += p.w;
    }
  }
  if (w.piece == s.pieces - 1) return true;
#pragma unroll
  for (int j = 0; j < PARTIAL_VECTORS; ++j)
    __stcg(slot + j * 128 + t, make_float4(acc[4 * j], acc[4 * j + 1], acc[4 * j + 2], acc[4 * j + 3]));
  sync_warpgroup(wg);  // every thread's stores precede the release below
  if (t == 0) {
    __threadfence();
    add_release_gpu(flag, 1);
  }
  return false;
}
