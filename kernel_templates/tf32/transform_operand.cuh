// transform_operand.cuh — tf32/wgmma_gemm.cu with TRANSFORM_B = 1: the transform warps
// (warps 1..3 of the producer warpgroup) rewrite each stage's B tile K-major in shared memory.
//
// This is the layout case of kernel-design.md section 2 where both operands are MN-major
// (A.T @ B): tf32 wgmma reads shared-memory operands only K-major, A goes in registers (RS,
// A_MN_MAJOR) and B, which TMA copies raw from the caller's K x N matrix, is transposed here,
// rounded (tf32) or split into big and small parts (tf32x3), into the stage's B planes. No
// pre-pass runs and B is read once from global memory.
//
// Not self-standing: wgmma_gemm.cu includes it after its constants and the ring.
//
// Per stage: the producer's TMA completes full[s]; the transform warps wait for it, write the
// planes, fence them to the async proxy, vote on whether B held inf or NaN (the tf32x3 NaN
// rule, which the pre-pass flag covers otherwise) and one of them arrives on ready[s]. The
// consumers wait for full[s] (their raw A) and ready[s]. The slot is reused only after the
// consumers released it, so the planes of a stage are never written while wgmma reads them.
#pragma once

constexpr int TRANSFORM_THREADS = 96;       // warps 1..3 of the producer warpgroup
constexpr unsigned TRANSFORM_BARRIER = 5;   // named barrier (1..2: the consumers' votes)
constexpr int RAW_B_BOXES = BLOCK_N / 32;   // 32-column boxes of the raw B tile
constexpr int TRANSFORM_PIECES = BLOCK_N * BLOCK_K / 16;  // 4 x 4 pieces per stage

static_assert(!TRANSFORM_B || (A_IN_REGISTERS && !CONVERT_B && CLUSTER == 1),
              "TRANSFORM_B: A in registers, B neither converted in global memory nor shared by a CTA pair");
static_assert(!TRANSFORM_B || (BLOCK_K % 32 == 0 && BLOCK_N % 32 == 0),
              "TRANSFORM_B: the raw B tile is made of 32-column boxes of 128-byte rows");

// Raw B tile of one stage (TMA boxes of 32 n x BLOCK_K rows of k, 128-byte swizzle):
// [BLOCK_N / 32][BLOCK_K rows (k)][32 n]; float c of row r sits in 16-byte chunk (c / 4) ^ (r % 8).
// Address of the 16-byte chunk holding B(n .. n+3, k), n a multiple of 4.
__device__ __forceinline__ unsigned raw_b_chunk(unsigned raw, int n, int k) {
  return raw + ((n / 32) * BLOCK_K + k) * 128 + ((((n % 32) / 4) ^ (k % 8)) * 16);
}

// B plane (what wgmma reads, the layout TMA writes from a pre-pass plane):
// [BLOCK_K / 32][BLOCK_N rows (n)][32 k], swizzled the same way by row n.
// Address of the 16-byte chunk holding B(n, k .. k+3), k a multiple of 4.
__device__ __forceinline__ unsigned plane_chunk(unsigned plane, int n, int k) {
  return plane + (k / 32) * BLOCK_N * 128 + n * 128 + ((((k % 32) / 4) ^ (n % 8)) * 16);
}

// One piece: B(n .. n+3, k .. k+3) read as four k rows, written as four n rows. Returns
// whether it held inf or NaN.
__device__ __forceinline__ bool transform_piece(unsigned stage, int n, int k) {
  const unsigned raw = raw_b_tile(stage);
  float x[4][4];  // x[i][j] = B(n + j, k + i)
#pragma unroll
  for (int i = 0; i < 4; ++i) {
    const float4 row = lds_v4(raw_b_chunk(raw, n, k + i));
    x[i][0] = row.x, x[i][1] = row.y, x[i][2] = row.z, x[i][3] = row.w;
  }
  bool nonfinite = false;
#pragma unroll
  for (int j = 0; j < 4; ++j) {
    Tf32Pair p[4];
#pragma unroll
    for (int i = 0; i < 4; ++i) {
      p[i] = TF32X3 ? tf32_split<true>(x[i][j]) : Tf32Pair{tf32_round(x[i][j]), 0.0f};
      nonfinite |= !isfinite(x[i][j]);
    }
    sts_v4(plane_chunk(b_tile(stage, 0), n + j, k), make_float4(p[0].big, p[1].big, p[2].big, p[3].big));
    if constexpr (TF32X3)
      sts_v4(plane_chunk(b_tile(stage, 1), n + j, k), make_float4(p[0].small, p[1].small, p[2].small, p[3].small));
  }
  return nonfinite;
}

// The stage's pieces, spread over the transform threads (ct = 0 .. TRANSFORM_THREADS-1).
// Each 32 x 32 block has 64 pieces; in group d (0..7) of eight consecutive threads, thread t
// takes n-chunk t and k-chunk (t + d) % 8 of the block. The eight threads of one 16-byte
// access phase then hit eight distinct chunks (bank groups) of the swizzled rows, both when
// they read rows k + i (chunk t ^ (4 ((t + d) % 2) + i)) and when they write rows n + j (chunk
// ((t + d) % 8) ^ (4 (t % 2) + j)). TRANSFORM_THREADS is a multiple of 8, so groups stay aligned.
__device__ __forceinline__ bool transform_stage(unsigned stage, int ct) {
  bool nonfinite = false;
  for (int piece = ct; piece < TRANSFORM_PIECES; piece += TRANSFORM_THREADS) {
    const int block = piece / 64, d = (piece % 64) / 8, t = piece % 8;
    const int n = (block % RAW_B_BOXES) * 32 + 4 * t;
    const int k = (block / RAW_B_BOXES) * 32 + 4 * ((t + d) % 8);
    nonfinite |= transform_piece(stage, n, k);
  }
  return nonfinite;
}

// The transform warps' loop: every stage the producer fills, in the same order.
__device__ __forceinline__ void transform_b(const SharedRing& ring_smem, const TileSchedule& s) {
  const int ct = threadIdx.x - 32;
  Ring ring;
  for_each_stage(s, [&](TileCoord, int) {
    mbarrier_wait(ring_smem.full(ring.stage), ring.phase);
    const bool nonfinite = transform_stage(ring_smem.stage_addr(ring.stage), ct);
    fence_proxy_async_shared();  // the planes, for wgmma
    // The vote also orders every thread's stores before thread 0's arrival (release).
    const bool any = barrier_any(TRANSFORM_BARRIER, TRANSFORM_THREADS, nonfinite);
    if (ct == 0) {
      sts_u32(ring_smem.b_nonfinite(ring.stage), any ? 1u : 0u);
      mbarrier_arrive(ring_smem.ready(ring.stage));
    }
    ring.advance();
  });
}
