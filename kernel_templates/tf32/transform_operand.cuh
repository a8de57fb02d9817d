// transform_operand.cuh — tf32/wgmma_gemm.cu with TRANSFORM_B = 1: the transform warps
// (warps 1..3 of the producer warpgroup) rewrite each stage's B tile K-major in shared memory.
//
// This is the layout case of kernel-design.md section 2 where both operands are MN-major
// (A.T @ B): tf32 wgmma reads shared-memory operands only K-major, A goes in registers (RS,
// A_MN_MAJOR) and B, which TMA copies from the caller's K x N matrix, is transposed here (tf32x3:
// and split into big and small parts) into the stage's B planes. No pre-pass runs and B is read
// once from global memory. In tf32 mode the TMA copy itself rounds every float to TF32 (the
// launcher's tensor maps, TmaElement::Tf32), so these warps only move values.
//
// B_K_MAJOR = 1 (tf32x3, or a triangular B in tf32 mode): B is stored K-major, TMA copies it
// straight into the stage's big plane (the plane's layout), and the same warps split it there
// in place, 16 bytes per access (the big part back, or where it is truncated (ROUND_B_BIG
// below) the raw values left as it; the small part into the small plane); tf32 mode only masks
// the stages that meet the triangle's diagonal. No transpose. (An unmasked K-major B in tf32
// mode needs no warp at all: B_WARPS_IDLE, the consumers wait for the copy alone.)
//
// B_KEEP: a triangular B' is masked as it is rewritten, in the stages that meet its diagonal
// (tf32/operand_triangle.cuh): no pre-pass copies it dense first.
//
// Not self-standing: wgmma_gemm.cu includes it after its constants and the ring.
//
// Per stage: the producer's TMA completes full[s]; each transform warp waits for it, writes its
// share of the planes, fences them to the async proxy, records in its byte of the stage's flag
// word whether its share of B held inf or NaN (the tf32x3 NaN rule, which the pre-pass flag
// covers otherwise) and arrives on ready[s]. The warps never wait for each other, so one that finished its share runs
// ahead into the next stage. The consumers wait for full[s] (their raw A) and ready[s]. The slot
// is reused only after the consumers released it, so the planes of a stage are never written
// while wgmma reads them.
#pragma once

#include "tf32/operand_triangle.cuh"

constexpr int TRANSFORM_THREADS = 96;       // warps 1..3 of the producer warpgroup
constexpr int TRANSFORM_WARPS = TRANSFORM_THREADS / 32;
constexpr int RAW_B_BOXES = BLOCK_N / 32;   // 32-column boxes of the raw B tile
constexpr int TRANSFORM_PIECES = BLOCK_N * BLOCK_K / 16;  // 4 x 4 pieces per stage
constexpr int PIECE_ROUNDS = TRANSFORM_PIECES / 32;        // a warp's round: 32 consecutive pieces
constexpr int READY_ARRIVALS = TRANSFORM_WARPS;  // on ready[s], per stage: every transform warp

static_assert(!TRANSFORM_B || (A_IN_REGISTERS && !CONVERT_B && CLUSTER == 1),
              "TRANSFORM_B: A in registers, B neither converted in global memory nor shared by a CTA pair");
static_assert(!TRANSFORM_B || (BLOCK_K % 32 == 0 && BLOCK_N % 32 == 0 && (!B_K_MAJOR || BLOCK_N % 8 == 0)),
              "TRANSFORM_B: the raw B tile is made of 32-column boxes of 128-byte rows");

// The layouts (both 128-byte swizzled: in a row r of 128 bytes, 16-byte chunk c sits at c ^ (r % 8)):
//   raw B tile (TMA boxes of 32 n x BLOCK_K rows of k): [BLOCK_N / 32][BLOCK_K rows (k)][32 n]
//   B plane (what wgmma reads, as TMA writes a pre-pass plane): [BLOCK_K / 32][BLOCK_N rows (n)][32 k]
//
// Pieces: 4 x 4 values B(n .. n+3, k .. k+3), read as four raw rows k + i, written as four
// plane rows n + j. Each 32 x 32 block has 64 pieces; in group d (0..7) of eight consecutive
// pieces, piece t takes n-chunk t and k-chunk (t + d) % 8 of the block. The eight threads of one
// 16-byte access phase then hit eight distinct chunks (bank groups) both when they read rows
// k + i (chunk t ^ (4 ((t + d) % 2) + i)) and when they write rows n + j (chunk ((t + d) % 8) ^
// (4 (t % 2) + j)). With n and k multiples of 4, (k + i) % 8 = (k % 8) ^ i, so a piece's four
// chunk offsets are one offset XOR 16 i: where a piece goes is computed once per piece.
struct PiecePlace {
  unsigned raw_row, raw_x;      // raw tile: byte offset of row k, and (chunk ^ (k % 8)) * 16
  unsigned plane_row, plane_x;  // plane: byte offset of row n, and (chunk ^ (n % 8)) * 16
  int n, k;                     // the piece's first row and K value in the tile (B_KEEP)
};

// K_PERMUTED: a piece is B(n .. n+3, c + 8 i) for i = 0..3, read as raw rows c + 8 i (all in
// chunk t ^ c, since (c + 8 i) % 8 = c), written as chunk c of plane rows n + j. In group d, piece
// t takes c = ((2 t) % 8) ^ (3 (t / 4)) ^ d: every (t, c) once over the eight groups, and the eight
// threads of an access phase hit eight distinct chunks both reading (t ^ c) and writing
// (c ^ (4 (t % 2) + j)).
__device__ __forceinline__ PiecePlace place_of(unsigned piece) {
  const unsigned block = piece / 64, d = (piece / 8) % 8, t = piece % 8;
  const unsigned box = block % RAW_B_BOXES, sub = block / RAW_B_BOXES;  // 32-column box of N, 32-row block of K
  if constexpr (K_PERMUTED) {
    const unsigned c = ((2 * t) % 8) ^ (3 * (t / 4)) ^ d;
    return {(box * BLOCK_K + sub * 32 + c) * 128, (t ^ c) * 16, (sub * BLOCK_N + box * 32 + 4 * t) * 128,
            (c ^ (4 * (t % 2))) * 16, (int)(box * 32 + 4 * t), (int)(sub * 32 + c)};
  }
  const unsigned kc = (t + d) % 8;                                      // n = 32 box + 4 t, k = 32 sub + 4 kc
  return {(box * BLOCK_K + sub * 32 + 4 * kc) * 128, (t ^ (4 * (kc % 2))) * 16,
          (sub * BLOCK_N + box * 32 + 4 * t) * 128, (kc ^ (4 * (t % 2))) * 16,
          (int)(box * 32 + 4 * t), (int)(sub * 32 + 4 * kc)};
}

// B_KEEP: whether the stage's tile (rows n0 .., K from k0) meets the diagonal of a triangular B'
// and its values must be masked (tf32/operand_triangle.cuh).
__device__ __forceinline__ bool stage_masked(int n0, int k0) {
  return B_KEEP != 0 && !triangle_inside<B_KEEP, BLOCK_N, BLOCK_K>(n0, k0);
}

// tf32x3: B's big part is rounded where A's is truncated (A_ROUND = 0), else truncated, which
// costs least (common/tf32_split.cuh: one operand of the products rounds).
constexpr bool ROUND_B_BIG = A_ROUND == 0;

// tf32x3: B's split of x; special (x's piece or chunk holds inf or NaN): the NaN-safe split,
// otherwise the split of finite values as the tensor cores read them.
__device__ __forceinline__ Tf32Pair split_b(float x, bool special) {
  return special ? tf32_split<ROUND_B_BIG>(x) : tf32_split_finite_for_mma<ROUND_B_BIG>(x);
}

// Writes piece x (x[i][j] = B(n + j, k + i); K_PERMUTED: B(n + j, k + 8 i)) as four rows n + j
// of the stage's B planes: as it is (tf32: the copy rounded it) or split (tf32x3). EXACT (tf32x3):
// inf and NaN handled (tf32_split, for pieces that hold them); otherwise the split of finite
// values as the tensor cores read them.
template <bool EXACT>
__device__ __forceinline__ void store_piece(unsigned stage, const float (&x)[4][4], const PiecePlace& at) {
  const unsigned row = b_tile(stage, 0) + at.plane_row;
#pragma unroll
  for (int j = 0; j < 4; ++j) {
    float big[4], small[4];
#pragma unroll
    for (int i = 0; i < 4; ++i) {
      const Tf32Pair p = TF32X3 ? split_b(x[i][j], EXACT) : Tf32Pair{x[i][j], 0.0f};
      big[i] = p.big, small[i] = p.small;
    }
    const unsigned addr = row + 128 * j + (at.plane_x ^ (16 * j));
    sts_v4(addr, make_float4(big[0], big[1], big[2], big[3]));
    if constexpr (TF32X3) sts_v4(addr + B_TILE_BYTES, make_float4(small[0], small[1], small[2], small[3]));
  }
}

// One piece of the stage (tile rows from n0, K from k0; masked: B_KEEP's triangle meets it);
// returns whether it held inf or NaN.
__device__ __forceinline__ bool transform_piece(unsigned stage, const PiecePlace& at, bool masked, int n0, int k0) {
  const unsigned row = raw_b_tile(stage) + at.raw_row;
  float x[4][4];
#pragma unroll
  for (int i = 0; i < 4; ++i) {
    // K_PERMUTED: rows c + 8 i, one chunk; else rows k + i, whose chunks differ by 16 i (XOR)
    const float4 v = lds_v4(K_PERMUTED ? row + 1024 * i + at.raw_x : row + 128 * i + (at.raw_x ^ (16 * i)));
    x[i][0] = v.x, x[i][1] = v.y, x[i][2] = v.z, x[i][3] = v.w;
  }
  if (B_KEEP != 0 && masked) {
#pragma unroll
    for (int i = 0; i < 4; ++i)
#pragma unroll
      for (int j = 0; j < 4; ++j) x[i][j] = triangle_value<B_KEEP, B_UNIT>(x[i][j], (k0 + at.k + i) - (n0 + at.n + j));
  }
  if constexpr (!TF32X3) {  // tf32: no vote (nothing reads one), no split
    store_piece<true>(stage, x, at);
    return false;
  }
  const bool nonfinite = any_nonfinite<16>(&x[0][0]);
  if (nonfinite)
    store_piece<true>(stage, x, at);
  else
    store_piece<false>(stage, x, at);
  return nonfinite;
}

// This warp's share of the stage's pieces: the stage's PIECE_ROUNDS rounds (lane l of round r
// takes piece 32 r + l, so the groups of eight stay aligned) are dealt to the transform warps in
// turn, starting at round `turn` (0 .. TRANSFORM_WARPS-1), which moves on by one every stage.
// PIECE_ROUNDS is rarely a multiple of TRANSFORM_WARPS (8 rounds at 128 x 32 tiles: shares of
// 3, 3, 2); over TRANSFORM_WARPS consecutive stages every warp gets the same work.
static_assert(TRANSFORM_PIECES % 32 == 0, "whole rounds of 32 pieces");
__device__ __forceinline__ bool transform_stage(unsigned stage, int turn, int lane, int n0, int k0) {
  const bool masked = stage_masked(n0, k0);
  bool nonfinite = false;
#pragma unroll 1
  for (int round = turn; round < PIECE_ROUNDS; round += TRANSFORM_WARPS)
    nonfinite |= transform_piece(stage, place_of(32 * round + lane), masked, n0, k0);
  return nonfinite;
}

// B_K_MAJOR: the stage's big plane split in place (tf32x3), or masked where the stage meets the
// triangle (tf32: the copy rounded it, and an unmasked stage needs nothing); 16-byte chunks
// dealt round robin over the transform threads (rt = 0 .. TRANSFORM_THREADS-1; consecutive
// threads, consecutive chunks: no bank conflicts). Returns whether any value was inf or NaN.
constexpr int ROUND_CHUNKS = BLOCK_N * BLOCK_K / 4;
// B_KEEP: chunk `chunk` of the plane ([BLOCK_K / 32][BLOCK_N rows (n)][32 k], 128-byte swizzled)
// holds B'(n0 + n, k0 + k .. k0 + k + 3); masks those four values.
__device__ __forceinline__ void mask_chunk(float (&x)[4], int chunk, int n0, int k0) {
  const int row = chunk / 8, n = row % BLOCK_N, sub = row / BLOCK_N;
  const int k = sub * 32 + ((chunk % 8) ^ (n % 8)) * 4;  // the swizzle undone
#pragma unroll
  for (int i = 0; i < 4; ++i) x[i] = triangle_value<B_KEEP, B_UNIT>(x[i], (k0 + k + i) - (n0 + n));
}

__device__ __forceinline__ bool round_stage(unsigned stage, int rt, int n0, int k0) {
  const bool masked = stage_masked(n0, k0);
  if (!TF32X3 && !(B_KEEP != 0 && masked)) return false;
  bool nonfinite = false;
  const unsigned plane = b_tile(stage, 0);
#pragma unroll 4
  for (int chunk = rt; chunk < ROUND_CHUNKS; chunk += TRANSFORM_THREADS) {
    const unsigned addr = plane + 16 * chunk;
    const float4 v = lds_v4(addr);
    float x[4] = {v.x, v.y, v.z, v.w}, big[4], small[4];
    if (B_KEEP != 0 && masked) mask_chunk(x, chunk, n0, k0);
    if constexpr (!TF32X3) {  // tf32: the masked values back, nothing to round
      sts_v4(addr, make_float4(x[0], x[1], x[2], x[3]));
      continue;
    }
    // tf32x3: a truncated big part is what the tensor cores read from the raw values in the
    // plane, which stay unless inf, NaN or the mask changed them; the small part goes to its plane.
    const bool special = any_nonfinite<4>(x);
#pragma unroll
    for (int i = 0; i < 4; ++i) {
      const Tf32Pair p = split_b(x[i], special);
      big[i] = p.big, small[i] = p.small;
    }
    if (ROUND_B_BIG || special || (B_KEEP != 0 && masked)) sts_v4(addr, make_float4(big[0], big[1], big[2], big[3]));
    sts_v4(addr + B_TILE_BYTES, make_float4(small[0], small[1], small[2], small[3]));
    nonfinite |= special;
  }
  return nonfinite;
}

// A rounding warp's share of a stage is written; each lane fences its stores to the async proxy
// (wgmma reads them), and once all have, lane 0 arrives on ready[s]. tf32x3 (FLAG): before it,
// lane 0 sets this warp's byte `flag` of the stage's flag word to whether any lane's share held
// inf or NaN (the consumers read the word whole).
template <bool FLAG = false>
__device__ __forceinline__ void arrive_rounded(unsigned ready, unsigned flag = 0, bool nonfinite = false) {
  fence_proxy_async_shared();
  const bool any = FLAG && __any_sync(0xffffffffu, nonfinite);
  __syncwarp();
  if (threadIdx.x % 32 == 0) {
    if constexpr (FLAG) asm volatile("st.shared.u8 [%0], %1;\n" ::"r"(flag), "r"(any ? 1u : 0u) : "memory");
    mbarrier_arrive(ready);
  }
}

// The transform warps' loop: every stage the producer fills, in the same order.
__device__ __forceinline__ void transform_b(const SharedRing& ring_smem, const TileSchedule& s) {
  const int ct = threadIdx.x - 32, warp = ct / 32, lane = ct % 32;
  Ring ring;
  int turn = warp;  // (warp + stages done) % TRANSFORM_WARPS: where this warp's share starts
  for_each_stage(s, [&](TileCoord tile, int k0) {
    mbarrier_wait(ring_smem.full(ring.stage), ring.phase);
    const unsigned stage = ring_smem.stage_addr(ring.stage);
    const bool nonfinite = B_K_MAJOR ? round_stage(stage, ct, tile.n0, k0) : transform_stage(stage, turn, lane, tile.n0, k0);
    arrive_rounded<TF32X3>(ring_smem.ready(ring.stage), ring_smem.b_nonfinite(ring.stage) + warp, nonfinite);
    turn = turn + 1 == TRANSFORM_WARPS ? 0 : turn + 1;
    ring.advance();
  });
}
