// stream_k.cuh — tiles cut along K between CTAs (STREAM_K = 1, tf32/tile_schedule.cuh): the
// partial sums that pass from the CTAs holding a tile's later units to its owner.
//
// Each consumer warpgroup of CTA b keeps its 64 x BLOCK_N partial in slot (b, warpgroup) of
// `partials`, in fragment order (float4 j of thread t at [j][t]: every store and load is one
// coalesced 16-byte access per thread), and then raises flags[b * CONSUMERS + warpgroup]
// (release). The owner's warpgroup waits for the flag (acquire), adds the slots in CTA order
// (the same bits every run) and stores the tile. The host zeroes the flags before the launch.
//
// The owner waits for CTAs of the same grid, so they must all be resident at once: the host
// launches at most one CTA per SM (the kernel takes the whole SM).
//
// Not self-standing: wgmma_gemm.cu includes it after its constants.
#pragma once

#include "common/global_sync.cuh"
#include "common/smem.cuh"

struct StreamKSpace {
  float* partials;  // gridDim.x * CONSUMERS slots of 64 x BLOCK_N floats
  unsigned* flags;  // gridDim.x * CONSUMERS, zero at launch
};

constexpr int PARTIAL_VECTORS = ACC_REGS / 4;  // float4s per thread of a 64 x BLOCK_N partial

__device__ __forceinline__ float4* partial_slot(const StreamKSpace& sk, int cta, int wg) {
  return reinterpret_cast<float4*>(sk.partials) + (size_t)(cta * CONSUMERS + wg) * PARTIAL_VECTORS * 128;
}

// Named barrier of consumer warpgroup wg (the same one its votes use: 1 + wg).
__device__ __forceinline__ void sync_warpgroup(int wg) { barrier_sync(1 + wg, 128); }

// A CTA holding a tile's later units: hand this warpgroup's partial to the owner.
__device__ __forceinline__ void write_partial(const float (&acc)[ACC_REGS], const StreamKSpace& sk, int wg) {
  const int t = threadIdx.x % 128;
  float4* slot = partial_slot(sk, blockIdx.x, wg);
#pragma unroll
  for (int j = 0; j < PARTIAL_VECTORS; ++j)
    __stcg(slot + j * 128 + t, make_float4(acc[4 * j], acc[4 * j + 1], acc[4 * j + 2], acc[4 * j + 3]));
  sync_warpgroup(wg);  // every thread's stores precede the release below
  if (t == 0) {
    __threadfence();
    add_release_gpu(sk.flags + blockIdx.x * CONSUMERS + wg, 1);
  }
}

// The owner of tile w.tile: acc += the partials of the CTAs after this one whose ranges start
// inside the tile, in CTA order.
__device__ __forceinline__ void add_partials(float (&acc)[ACC_REGS], const StreamKSpace& sk, const TileSchedule& s,
                                             const Work& w, int wg) {
  const int t = threadIdx.x % 128;
  const long long tile_end = s.split_end_of(w);
  for (int cta = blockIdx.x + 1; cta < (int)gridDim.x && s.starts_before(cta, tile_end); ++cta) {
    if (t == 0) {
      const unsigned* flag = sk.flags + cta * CONSUMERS + wg;
      while (load_acquire_gpu(flag) == 0) __nanosleep(32);
    }
    sync_warpgroup(wg);  // the acquire above precedes every thread's loads
    const float4* slot = partial_slot(sk, cta, wg);
#pragma unroll
    for (int j = 0; j < PARTIAL_VECTORS; ++j) {
      const float4 p = __ldcg(slot + j * 128 + t);
      acc[4 * j] += p.x, acc[4 * j + 1] += p.y, acc[4 * j + 2] += p.z, acc[4 * j + 3] += p.w;
    }
  }
}
