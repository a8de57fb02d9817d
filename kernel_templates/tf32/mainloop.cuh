// mainloop.cuh — the consumer main loops of tf32/wgmma_gemm.cu: wgmma over the shared-memory
// ring, tf32x3 blockwise accumulation, tf32 accumulation.
//
// Not self-standing: wgmma_gemm.cu includes it after its constants (BLOCK_*, ACC_*, K_STEPS,
// ...), the ring (Ring, SharedRing) and the producer. Every loop here walks the ring in the
// order the producer fills it: wait full[s], wgmma, release empty[s] (one arrival per warp).
#pragma once

// ---- consumers: wgmma over one stage ------------------------------------------------------
// Descriptor of k8 step `step` (0 .. K_STEPS-1) of a K-major operand tile of ROWS rows, from
// row `row0`: sub-tile step / STEPS_PER_ROW, 32 bytes per step inside a row.
template <int ROWS>
__device__ __forceinline__ unsigned long long operand_desc(unsigned tile, int step, int row0) {
  const unsigned addr = tile + (step / STEPS_PER_ROW) * ROWS * SWIZZLE_BYTES + row0 * SWIZZLE_BYTES +
                        (step % STEPS_PER_ROW) * 32;
  return wgmma_desc_kmajor<SWIZZLE_BYTES>(addr);
}

// acc (+)= A_pa(rows wg_row0.., step) * B_pb(step)^T for one k8 step of the stage at `stage`.
__device__ __forceinline__ void mma_step(float (&acc)[ACC_REGS], unsigned stage, int pa, int pb,
                                         int step, int wg_row0, int accumulate) {
  wgmma_tf32<BLOCK_N>(acc, operand_desc<BLOCK_M>(a_tile(stage, pa), step, wg_row0),
                      operand_desc<BLOCK_N>(b_tile(stage, pb), step, 0), accumulate);
}

// The same with A from registers (A_IN_REGISTERS): a is the step's fragment.
__device__ __forceinline__ void mma_step_rs(float (&acc)[ACC_REGS], const float (&a)[4], unsigned stage, int pb,
                                            int step, int accumulate) {
  wgmma_tf32_rs<BLOCK_N>(acc, a, operand_desc<BLOCK_N>(b_tile(stage, pb), step, 0), accumulate);
}

constexpr int BIG = 0, SMALL = 1;

// One arrival per warp; CLUSTER = 2: on the slot's barrier in both CTAs of the pair, since
// each producer writes half of A into both.
__device__ __forceinline__ void release(const SharedRing& ring_smem, int stage) {
  if (threadIdx.x % 32 != 0) return;
  if constexpr (CLUSTER == 1) {
    mbarrier_arrive(ring_smem.empty(stage));
  } else {
#pragma unroll
    for (unsigned rank = 0; rank < CLUSTER; ++rank)
      mbarrier_arrive_cluster(cluster_shared_address(ring_smem.empty(stage), rank));
  }
}

// Where the next stages lie in the kernel's operands: the tile's first row and the K of the
// next stage (A_KEEP masks a raw triangular A by them, tf32/operand_triangle.cuh). Unused, and
// dropped by the compiler, otherwise.
struct OperandCursor {
  int m0;  // the tile's first row of A'
  int k0;  // K of the next stage
};

// Waits for the GROUP_STAGES stages from `ring` and returns their shared addresses (and with
// TRANSFORM_B whether their B tiles held inf or NaN), and where they lie (from `at`).
struct StageGroup {
  unsigned addr[GROUP_STAGES];
  bool b_nonfinite = false;
  int m0 = 0, k0 = 0;  // the tile's first row, the K of the group's first stage
};

#include "tf32/a_fragments.cuh"
__device__ __forceinline__ StageGroup acquire_group(const SharedRing& ring_smem, Ring& ring, OperandCursor& at) {
  StageGroup group;
  group.m0 = at.m0, group.k0 = at.k0;
  at.k0 += GROUP_STAGES * BLOCK_K;
#pragma unroll
  for (int s = 0; s < GROUP_STAGES; ++s) {
    ring_smem.wait_operands(ring.stage, ring.phase);
    group.addr[s] = ring_smem.stage_addr(ring.stage);
    if constexpr (TRANSFORM_B && TF32X3) group.b_nonfinite |= lds_u32(ring_smem.b_nonfinite(ring.stage)) != 0;
    ring.advance();
  }
  return group;
}

__device__ __forceinline__ void release_group(const SharedRing& ring_smem, Ring& ring) {
#pragma unroll
  for (int s = 0; s < GROUP_STAGES; ++s) {
    release(ring_smem, ring.stage);
    ring.advance();
  }
}

// tf32x3 products of one accumulation block: k8 steps [first, first + ACC_STEPS) of `group`.
// SMALL issues aS·bB + aB·bS (the block's first wgmma overwrites blk), BIG issues aB·bB.
// A_IN_REGISTERS: A's parts are the fragments f (loaded for this block).
template <bool SMALL_PRODUCTS>
__device__ __forceinline__ void issue_products(float (&blk)[ACC_REGS], const StageGroup& group,
                                               int first, int wg_row0, const AFragments& f) {
#pragma unroll
  for (int i = 0; i < ACC_STEPS; ++i) {
    const int g = first + i;
    const unsigned stage = group.addr[g / K_STEPS];
    const int step = g % K_STEPS;
    if constexpr (A_IN_REGISTERS) {
      if (SMALL_PRODUCTS) {
        mma_step_rs(blk, f.small[i], stage, BIG, step, i != 0);
        mma_step_rs(blk, f.big[i], stage, SMALL, step, 1);
      } else {
        mma_step_rs(blk, f.big[i], stage, BIG, step, 1);
      }
    } else if (SMALL_PRODUCTS) {
      mma_step(blk, stage, SMALL, BIG, step, wg_row0, i != 0);
      mma_step(blk, stage, BIG, SMALL, step, wg_row0, 1);
    } else {
      mma_step(blk, stage, BIG, BIG, step, wg_row0, 1);
    }
  }
}

__device__ __forceinline__ void add_block(float (&sum)[ACC_REGS], const float (&blk)[ACC_REGS]) {
#pragma unroll
  for (int j = 0; j < ACC_REGS; ++j) sum[j] += blk[j];
}

// tf32x3 running sum of a tile's accumulation blocks, in FP32. SUM_BLOCKS = 0: every block is
// added to total. SUM_BLOCKS > 0: SUM_BLOCKS blocks are summed in mid first, then mid is added
// to total: a long K then adds fewer, more similar terms (the rounding of a sum that has grown
// much larger than its addends dominates the error beyond K of a few thousand).
struct RunningSum {
  float total[ACC_REGS];
  float mid[ACC_REGS];  // unused (and dropped by the compiler) when SUM_BLOCKS == 0
  int folded;           // blocks in mid
  __device__ __forceinline__ void reset() {
#pragma unroll
    for (int j = 0; j < ACC_REGS; ++j) total[j] = 0.0f;
    folded = 0;
  }
  __device__ __forceinline__ void add(const float (&blk)[ACC_REGS]) {
    if constexpr (SUM_BLOCKS == 0) {
      add_block(total, blk);
    } else {
      if (folded == 0) {
#pragma unroll
        for (int j = 0; j < ACC_REGS; ++j) mid[j] = blk[j];
      } else {
        add_block(mid, blk);
      }
      if (++folded == SUM_BLOCKS) add_block(total, mid), folded = 0;
    }
  }
  __device__ __forceinline__ void finish() {
    if (SUM_BLOCKS > 0 && folded > 0) add_block(total, mid);
  }
};

// Issues one accumulation block into blk (a fresh accumulator) and, while it runs, adds the
// previous block `prev` (issued earlier, one commit group) into sum. Returns with blk's
// wgmmas in flight as one commit group. With the NaN guard the block is split in two
// groups: small products, NaN -> 0 once they are done, then the big product.
// A_IN_REGISTERS: loads the block's A fragments into f first (f must not be the fragments of
// `prev`, still in flight), and adds the guard when any thread of the warpgroup saw a
// non-finite A value (the pre-pass flag covers B only), or TRANSFORM_B saw one in the group's B.
__device__ __forceinline__ void issue_block_add_previous(float (&blk)[ACC_REGS], const float (&prev)[ACC_REGS],
                                                        RunningSum& sum, bool has_prev,
                                                        const StageGroup& group, int first, int wg_row0,
                                                        bool nan_guard, AFragments& f) {
  if constexpr (A_IN_REGISTERS) {
    load_a_fragments(f, group, first, wg_row0);
    nan_guard = barrier_any(1 + wg_row0 / 64, 128, nan_guard || f.nonfinite || group.b_nonfinite);  // uniform
  }
  wgmma_fence();  // blk was read by an FP32 add two blocks ago
  issue_products<true>(blk, group, first, wg_row0, f);
  if (nan_guard) {
    wgmma_commit();
    wgmma_wait<1>();  // prev is done
    if (has_prev) sum.add(prev);
    wgmma_wait<0>();  // the small products are done
#pragma unroll
    for (int j = 0; j < ACC_REGS; ++j) blk[j] = nan_to_zero(blk[j]);
    wgmma_fence();
    issue_products<false>(blk, group, first, wg_row0, f);
    wgmma_commit();
  } else {
    issue_products<false>(blk, group, first, wg_row0, f);
    wgmma_commit();
    wgmma_wait<1>();  // prev is done, blk runs on
    if (has_prev) sum.add(prev);
  }
}

// Double-buffered accumulation (ACC_BUFFERS = 2): blocks B .. GROUP_BLOCKS-1 of one stage group,
// alternating between blk[0] and blk[1], block B in blk[(FIRST + B) % 2]. The group's first
// block completes the previous group's last block, whose stages are then released (`done`
// trails the ring by one group). Template recursion keeps every buffer index a constant.
template <int FIRST, int B = 0>
__device__ __forceinline__ void blocks_tf32x3(RunningSum& sum, float (&blk)[2][ACC_REGS],
                                              AFragments (&frags)[2], const StageGroup& group, const SharedRing& ring_smem,
                                              Ring& done, bool& has_prev, int wg_row0, bool nan_guard) {
  if constexpr (B < GROUP_BLOCKS) {
    constexpr int cur = (FIRST + B) % 2;
    issue_block_add_previous(blk[cur], blk[cur ^ 1], sum, has_prev, group, B * ACC_STEPS, wg_row0, nan_guard,
                             frags[cur]);
    if (B == 0 && has_prev) release_group(ring_smem, done);
    has_prev = true;
    blocks_tf32x3<FIRST, B + 1>(sum, blk, frags, group, ring_smem, done, has_prev, wg_row0, nan_guard);
  }
}

template <int FIRST>
__device__ __forceinline__ void group_tf32x3(RunningSum& sum, float (&blk)[2][ACC_REGS], AFragments (&frags)[2],
                                             const SharedRing& ring_smem, Ring& ring, OperandCursor& at, Ring& done,
                                             bool& has_prev, int wg_row0, bool nan_guard) {
  const StageGroup group = acquire_group(ring_smem, ring, at);
  blocks_tf32x3<FIRST>(sum, blk, frags, group, ring_smem, done, has_prev, wg_row0, nan_guard);
}

// Completes the last block (in blk[LAST]) and releases its stages.
template <int LAST>
__device__ __forceinline__ void finish_tf32x3(RunningSum& sum, float (&blk)[2][ACC_REGS],
                                              const SharedRing& ring_smem, Ring& done) {
  wgmma_wait<0>();
  sum.add(blk[LAST]);
  sum.finish();
  release_group(ring_smem, done);
}

// tf32x3 main loop of one piece of work: sum = op(A) op(B) over its `stages` stages of K (a
// multiple of GROUP_STAGES) from `at`, blockwise in FP32.
__device__ __forceinline__ void mainloop_tf32x3(RunningSum& sum, const SharedRing& ring_smem, Ring& ring,
                                                OperandCursor at, int stages, int wg_row0, bool nan_guard) {
  sum.reset();
  const int groups = stages / GROUP_STAGES;
  if constexpr (ACC_BUFFERS == 2) {
    // Block i+1 is issued before block i is added, so the tensor cores never wait for the
    // FP32 adds. Groups go in pairs so that every buffer index is a compile-time constant.
    float blk[2][ACC_REGS];
    AFragments frags[2];  // A_IN_REGISTERS: block i's A fragments, beside blk[i]
    Ring done = ring;
    bool has_prev = false;
    int g = 0;
    for (; g + 1 < groups; g += 2) {
      group_tf32x3<0>(sum, blk, frags, ring_smem, ring, at, done, has_prev, wg_row0, nan_guard);
      group_tf32x3<GROUP_BLOCKS % 2>(sum, blk, frags, ring_smem, ring, at, done, has_prev, wg_row0, nan_guard);
    }
    if (g < groups) {
      group_tf32x3<0>(sum, blk, frags, ring_smem, ring, at, done, has_prev, wg_row0, nan_guard);
      finish_tf32x3<(GROUP_BLOCKS - 1) % 2>(sum, blk, ring_smem, done);
    } else {
      finish_tf32x3<1>(sum, blk, ring_smem, done);  // the pair's last block: (2 * GROUP_BLOCKS - 1) % 2
    }
  } else {
    // One block accumulator: issue, wait, add. The other consumer warpgroup keeps the tensor
    // cores busy meanwhile.
    float blk[ACC_REGS];
    AFragments frags;  // A_IN_REGISTERS: the block's A fragments (each block is waited for)
    for (int g = 0; g < groups; ++g) {
      Ring done = ring;
      const StageGroup group = acquire_group(ring_smem, ring, at);
#pragma unroll
      for (int b = 0; b < GROUP_BLOCKS; ++b) {
        issue_block_add_previous(blk, blk, sum, false, group, b * ACC_STEPS, wg_row0, nan_guard, frags);
        wgmma_wait<0>();
        sum.add(blk);
      }
      release_group(ring_smem, done);
    }
    sum.finish();
  }
}

// tf32 main loop of one piece of work (`stages` stages of K): one product per stage into acc; one wgmma group stays in
// flight, so a stage is released one stage late. BLOCKED = false: acc is sum and the tensor
// cores accumulate all of K. BLOCKED: acc restarts every TF32_BLOCK_STAGES stages and an FP32
// add moves it into sum (over long K the hardware's truncating accumulation drifts,
// kernel-design.md section 1). A_IN_REGISTERS: f receives the stage's A fragments; the
// caller alternates two so that the previous stage's (still in flight) are not overwritten.
template <bool BLOCKED>
__device__ __forceinline__ void stage_tf32(float (&acc)[ACC_REGS], float (&sum)[ACC_REGS], AFragments& f,
                                           const SharedRing& ring_smem, Ring& ring, const OperandCursor& at, int ks,
                                           int stages, int& previous, int wg_row0) {
  constexpr int BLOCK_STAGES = BLOCKED ? TF32_BLOCK_STAGES : 1;
  const unsigned stage = ring_smem.stage_addr(ring.stage);
  ring_smem.wait_operands(ring.stage, ring.phase);
  const bool fresh = BLOCKED ? ks % BLOCK_STAGES == 0 : ks == 0;  // acc starts over
  if constexpr (A_IN_REGISTERS) load_a_fragments(f, StageGroup{{stage}, false, at.m0, at.k0 + ks * BLOCK_K}, 0, wg_row0);
  wgmma_fence();
#pragma unroll
  for (int step = 0; step < K_STEPS; ++step) {
    if constexpr (A_IN_REGISTERS)
      mma_step_rs(acc, f.big[step], stage, BIG, step, !(fresh && step == 0));
    else
      mma_step(acc, stage, BIG, BIG, step, wg_row0, !(fresh && step == 0));
  }
  wgmma_commit();
  if (BLOCKED && (ks % BLOCK_STAGES == BLOCK_STAGES - 1 || ks == stages - 1)) {
    wgmma_wait<0>();  // the block is complete
    add_block(sum, acc);
  } else {
    wgmma_wait<1>();  // the previous stage's group is done
  }
  if (previous >= 0) release(ring_smem, previous);
  previous = ring.stage;
  ring.advance();
}

template <bool BLOCKED>
__device__ __forceinline__ void stages_tf32(float (&acc)[ACC_REGS], float (&sum)[ACC_REGS],
                                            const SharedRing& ring_smem, Ring& ring, const OperandCursor& at,
                                            int stages, int wg_row0) {
  // Stages go in pairs, f[0] then f[1], and an odd last one takes f[0]: on every path the
  // fragments being written are not those of the group still in flight (ptxas checks).
  AFragments f[2];
  int previous = -1;
  int ks = 0;
  for (; ks + 1 < stages; ks += 2) {
    stage_tf32<BLOCKED>(acc, sum, f[0], ring_smem, ring, at, ks, stages, previous, wg_row0);
    stage_tf32<BLOCKED>(acc, sum, f[1], ring_smem, ring, at, ks + 1, stages, previous, wg_row0);
  }
  if (ks < stages)
    stage_tf32<BLOCKED>(acc, sum, f[0], ring_smem, ring, at, ks, stages, previous, wg_row0);
  wgmma_wait<0>();
  release(ring_smem, previous);
}

__device__ __forceinline__ void mainloop_tf32(float (&sum)[ACC_REGS], const SharedRing& ring_smem, Ring& ring,
                                              const OperandCursor& at, int stages, int wg_row0) {
  if constexpr (TF32_BLOCK_STAGES > 0) {
#pragma unroll
    for (int j = 0; j < ACC_REGS; ++j) sum[j] = 0.0f;
    float blk[ACC_REGS];  // one accumulation block (64 x BLOCK_N per warpgroup)
    stages_tf32<true>(blk, sum, ring_smem, ring, at, stages, wg_row0);
  } else {
    stages_tf32<false>(sum, sum, ring_smem, ring, at, stages, wg_row0);
  }
}
