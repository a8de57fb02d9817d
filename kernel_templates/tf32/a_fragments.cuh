// a_fragments.cuh — operand A of tf32/wgmma_gemm.cu in registers (A_IN_REGISTERS = 1):
// the raw float32 tile that TMA copied from the caller's memory is read into wgmma's
// register fragments and rounded (tf32) or split (tf32x3) there, so A needs no pre-pass and,
// read from registers, no K-major layout (kernel-design.md section 2, the "RS" case).
//
// Not self-standing: wgmma_gemm.cu includes it after its constants.
//
// Raw A tile of one stage, 128-byte swizzled rows of 32 floats (what a TMA box with
// CU_TENSOR_MAP_SWIZZLE_128B writes; atoms of 8 rows x 128 bytes, 1024-byte aligned):
//   A_MN_MAJOR = 0 (A stored M x K): [BLOCK_K / 32][BLOCK_M rows (m)][32 k]
//   A_MN_MAJOR = 1 (A stored K x M): [BLOCK_M / 32][BLOCK_K rows (k)][32 m]
// In a swizzled row r, float c sits in 16-byte chunk (c / 4) ^ (r % 8).
#pragma once

#include "common/smem.cuh"
#include "tf32/operand_triangle.cuh"

// Shared address of A(m, k) (m < BLOCK_M, k < BLOCK_K) in the raw tile at `tile`.
__device__ __forceinline__ unsigned raw_a_addr(unsigned tile, int m, int k) {
  const int sub = A_MN_MAJOR ? m / 32 : k / 32;           // which 32-float box
  const int row = A_MN_MAJOR ? k : m;                     // swizzled row inside the box
  const int col = A_MN_MAJOR ? m % 32 : k % 32;           // float inside the row
  const int rows_per_box = A_MN_MAJOR ? BLOCK_K : BLOCK_M;
  const int chunk = (col / 4) ^ (row % 8);
  return tile + (sub * rows_per_box + row) * 128 + chunk * 16 + (col % 4) * 4;
}

// A_SYM: where a 32-row sub-block of a stage's raw tile came from (the producer's choice, a
// warp-uniform one here: a warp's 16 rows lie in one sub-block; a stage of BLOCK_K = 32 is one
// sub-block of K): the stored side, X(r, c) as rows r (the layout above); the mirror, X(c, r)
// as rows c, [32 k][32 m] swizzled alike; or the diagonal, whose one box holds both. Each stage
// of a group has its own (blocks of 64 span two stages, which may lie on two sides).
enum SymSide { kSymStored, kSymMirrored, kSymDiagonal };

// Shared address of A'(m, k) in a mirrored sub-block: row k of its [32 k][32 m] box.
__device__ __forceinline__ unsigned mirror_a_addr(unsigned tile, int m, int k) {
  const int i = m % 32;
  return tile + (m / 32) * 32 * 128 + k * 128 + (((i / 4) ^ (k % 8)) * 16) + (i % 4) * 4;
}

// On the diagonal sub-block (r0 = k0): A'(m, k) of the stage at K k0 (tile rows from m0) at
// its stored position, or where it lies on the other side, at the transposed position of the
// same box. One select of the address, no branch.
__device__ __forceinline__ unsigned diagonal_a_addr(unsigned tile, int m, int k, int m0, int k0) {
  const int r = m0 + m, c = k0 + k;
  const bool mirrored = sym_mirrored<A_SYM>(r, c);
  return mirrored ? mirror_a_addr(tile, m, k) : raw_a_addr(tile, m, k);
}

// A fragments of FRAG_STEPS k8 steps: big (tf32: the rounded value) and, for tf32x3, small.
constexpr int FRAG_STEPS = TF32X3 ? ACC_STEPS : K_STEPS;
struct AFragments {
  float big[FRAG_STEPS][4];
  float small[TF32X3 ? FRAG_STEPS : 1][4];
  bool nonfinite;  // this thread saw inf or NaN (tf32x3: the NaN rule may be needed)
};

// The value the tensor cores get for x. tf32x3: the split, its big part rna(x) (A_ROUND = 1)
// or x with its low 13 bits dropped (A_ROUND = 0, what the hardware reads from a raw float, but
// NaN-safe). tf32: x, which the TMA copy rounded to TF32 already (TmaElement::Tf32).
__device__ __forceinline__ Tf32Pair split_a(float x) {
  if constexpr (TF32X3) return tf32_split<A_ROUND != 0>(x);
  return {x, 0.0f};
}

// Fragment r of k8 step i of f: the raw value x, for split_fragments.
__device__ __forceinline__ void put_fragment(AFragments& f, int i, int r, float x) { f.big[i][r] = x; }

// The raw values in f.big split in place (tf32x3; tf32 leaves them as the rounding TMA copy
// brought them). tf32x3 takes the split as
// the tensor cores read it (common/tf32_split.cuh): 3-4 instructions a value against about 12
// for the NaN-safe split, on the path from a block's wait to the next block's wgmma issue.
// An A with one block per stage group (K-major or MN-major): a thread whose values are all
// finite (four interleaved probes tell) takes it, the others the NaN-safe split (H200 largeK:
// 0.607 ms, against 0.612 with no branch; an MN-major A, session 41 with NVRTC 13.0, which no
// longer serializes those kernels' wgmmas for it: transA `_rst_sk` 1.262 -> 1.167 ms, TN 4096^3
// `_a64_rs` 1.109 -> 1.044, TN 524288 x 256 x 256 `_rst_sk` 0.666 -> 0.659). Two blocks a group
// (a16 at block_k 32): no branch (ptxas serializes those kernels' wgmmas when their register
// operands are written on divergent paths, C7515, even on a warp-uniform choice;
// JITGEMM_FULL_SWEEP's compile test finds them); selects give inf and NaN the NaN-safe split's
// parts instead: big NaN for NaN (a NaN whose payload lies in the low 13 bits would read as inf),
// small NaN for both (the unmasked integer rounding turns NaN bits into a tiny negative number,
// and inf x (small 0) x a negative small part of b then adds -inf to the big product's inf where
// the NaN rule would have dropped it).
// tf32 mode never reads it; there it keeps the value it always had (false read MN-major):
// NVRTC keeps a namespace-scope constexpr as a global of the module, so a new value alone would
// change those kernels' cubins and stale their records.
constexpr bool SPLIT_BRANCH = GROUP_BLOCKS == 1 && (TF32X3 || !A_MN_MAJOR);
__device__ __forceinline__ void split_fragments(AFragments& f) {
  if constexpr (!TF32X3) {
    f.nonfinite = false;  // read by tf32x3 only
    return;
  }
  float probe[4] = {0.0f, 0.0f, 0.0f, 0.0f};
#pragma unroll
  for (int i = 0; i < FRAG_STEPS; ++i)
#pragma unroll
    for (int r = 0; r < 4; ++r) probe[r] = fold_nonfinite(probe[r], f.big[i][r]);
  f.nonfinite = probe_nonfinite(probe[0] + probe[1] + probe[2] + probe[3]);
  if (SPLIT_BRANCH && f.nonfinite) {
#pragma unroll
    for (int i = 0; i < FRAG_STEPS; ++i)
#pragma unroll
      for (int r = 0; r < 4; ++r) {
        const Tf32Pair p = split_a(f.big[i][r]);
        f.big[i][r] = p.big, f.small[i][r] = p.small;
      }
  } else {
#pragma unroll
    for (int i = 0; i < FRAG_STEPS; ++i)
#pragma unroll
      for (int r = 0; r < 4; ++r) {
        const float x = f.big[i][r];
        const Tf32Pair p = tf32_split_finite_for_mma<A_ROUND != 0>(x);
        const bool finite = isfinite(x);
        f.big[i][r] = SPLIT_BRANCH || x == x ? p.big : tf32_nan();
        f.small[i][r] = SPLIT_BRANCH || finite ? p.small : tf32_nan();
      }
  }
}

// tf32x3, an unmasked A read MN-major pairs its rows: a thread's fragment rows g and g + 8 of
// its warp's 16 (g = lane / 4) are A's rows 2g and 2g + 1 there, adjacent floats of a k row, so
// each k of a step is one 8-byte load instead of two 4-byte ones; the accumulator rows follow
// (wgmma_gemm.cu's store_tile). H200, the same records, two rounds: transA tf32x3 1.043 ->
// 0.998 ms, largeK's dB (TN 524288 x 256 x 256) 1.306 -> 1.278; in tf32 mode, where nothing is
// split, it lost (transA tf32 0.357 -> 0.366, NN 4096^3 `_rs_swap_rb` 0.335 -> 0.352), so
// tf32 keeps its rows; so does stream-K, whose 128 x 192 kernels with blocks of 16 spilled with
// them (48 bytes). A constexpr function, not a namespace-scope constant, so that no other
// kernel's module changes.
__device__ __forceinline__ constexpr bool a_rows_paired() {
  return TF32X3 && A_IN_REGISTERS && A_MN_MAJOR && A_KEEP == 0 && !STREAM_K;
}

// Reads k8 steps first + I0 .. first + I1 - 1 of `group` (step g in stage g / K_STEPS) for the
// thread's rows m and m + 8 into f[I0 .. I1 - 1]. MASKED: a triangular A' (A_KEEP) is masked as
// it is read (tf32/operand_triangle.cuh); d0 is k - row of the thread's first value (row m, K
// group.k0 + 8 first + lane % 4), the others differ from it by constants. SIDE: A_SYM's
// sub-block of the steps' stage.
template <bool MASKED, SymSide SIDE = kSymStored, int I0 = 0, int I1 = FRAG_STEPS>
__device__ __forceinline__ void read_a_fragments(AFragments& f, const StageGroup& group, int first, int m, int d0) {
  const int lane = threadIdx.x % 32;
  if constexpr (K_PERMUTED && !MASKED) {
    // Steps s and s + 1 (s even) of a 32-wide K block hold K values 8 q + 2 (s % 4) .. + 3 of the
    // thread's rows (q = lane % 4, wgmma_gemm.cu): one 16-byte chunk per row, in fragment order
    // (m, lo) (m + 8, lo) (m, hi) (m + 8, hi) per step.
#pragma unroll
    for (int i = 0; i < FRAG_STEPS; i += 2) {
      const int g = first + i;  // even: blocks start on even steps
      const unsigned tile = group.addr[g / K_STEPS];
      const int s = g % K_STEPS;
      const int k = (s / 4) * 32 + 8 * (lane % 4) + 2 * (s % 4);
      const float4 lo = lds_v4(raw_a_addr(tile, m, k)), hi = lds_v4(raw_a_addr(tile, m + 8, k));
      const float x[2][4] = {{lo.x, hi.x, lo.y, hi.y}, {lo.z, hi.z, lo.w, hi.w}};
#pragma unroll
      for (int h = 0; h < 2; ++h) {
#pragma unroll
        for (int r = 0; r < 4; ++r) put_fragment(f, i + h, r, x[h][r]);
      }
    }
    return;
  }
  if constexpr (a_rows_paired() && !MASKED && SIDE == kSymStored) {
    // Rows m and m + 1 (fragments 0, 1 at column k; 2, 3 at k + 4): one 8-byte load each
    // (m even: both floats in one 16-byte chunk of the swizzled row k).
#pragma unroll
    for (int i = I0; i < I1; ++i) {
      const int g = first + i;
      const unsigned tile = group.addr[g / K_STEPS];
      const int k = (g % K_STEPS) * 8 + lane % 4;
      const float2 lo = lds_v2(raw_a_addr(tile, m, k)), hi = lds_v2(raw_a_addr(tile, m, k + 4));
      put_fragment(f, i, 0, lo.x), put_fragment(f, i, 1, lo.y);
      put_fragment(f, i, 2, hi.x), put_fragment(f, i, 3, hi.y);
    }
    return;
  }
#pragma unroll
  for (int i = I0; i < I1; ++i) {
    const int g = first + i;
    const unsigned tile = group.addr[g / K_STEPS];  // the raw A tile opens the stage
    const int k = (g % K_STEPS) * 8 + lane % 4;     // columns k and k + 4
#pragma unroll
    for (int r = 0; r < 4; ++r) {
      const int mr = m + 8 * (r % 2), kr = k + 4 * (r / 2);
      const int k0 = group.k0 + (g / K_STEPS) * BLOCK_K;  // the stage's K
      float x = lds_f32(SIDE == kSymDiagonal   ? diagonal_a_addr(tile, mr, kr, group.m0, k0)
                        : SIDE == kSymMirrored ? mirror_a_addr(tile, mr, kr)
                                               : raw_a_addr(tile, mr, kr));
      if constexpr (MASKED) x = triangle_value<A_KEEP, A_UNIT>(x, d0 + 8 * i + 4 * (r / 2) - 8 * (r % 2));
      put_fragment(f, i, r, x);
    }
  }
}

// A_SYM: steps I0 .. of the FRAG_STEPS (those of one stage, from its 32-row sub-block r0 and
// its K k0, both multiples of 32), read from that stage's side; then the next stage's.
template <int I0>
__device__ __forceinline__ void read_symmetric_a_fragments(AFragments& f, const StageGroup& group, int first, int m) {
  constexpr int I1 = I0 + K_STEPS < FRAG_STEPS ? I0 + K_STEPS : FRAG_STEPS;
  const int r0 = group.m0 + m / 32 * 32, k0 = group.k0 + (first + I0) / K_STEPS * BLOCK_K;
  if (k0 == r0)
    read_a_fragments<false, kSymDiagonal, I0, I1>(f, group, first, m, 0);
  else if (sym_mirrored<A_SYM>(r0, k0))
    read_a_fragments<false, kSymMirrored, I0, I1>(f, group, first, m, 0);
  else
    read_a_fragments<false, kSymStored, I0, I1>(f, group, first, m, 0);
  if constexpr (I1 < FRAG_STEPS) read_symmetric_a_fragments<I1>(f, group, first, m);
}

// Loads k8 steps first .. first + FRAG_STEPS - 1 of `group` for the warpgroup's rows wg_row0 ..
// wg_row0 + 63 (fragment layout: common/wgmma.cuh, RS). A_KEEP: only steps that meet the
// diagonal of the triangular A' take the masked read (a warp-uniform choice; the work list
// leaves few of them), the others the plain one.
__device__ __forceinline__ void load_a_fragments(AFragments& f, const StageGroup& group, int first, int wg_row0) {
  const int lane = threadIdx.x % 32;
  // Rows m and m + 8, or paired, m = 2g and m + 1.
  const int m = wg_row0 + ((threadIdx.x / 32) % 4) * 16 + (a_rows_paired() ? 2 : 1) * (lane / 4);
  if constexpr (A_SYM != 0)
    read_symmetric_a_fragments<0>(f, group, first, m);
  else if (A_KEEP != 0 && !triangle_inside<A_KEEP, 64, FRAG_STEPS * 8>(group.m0 + wg_row0, group.k0 + first * 8))
    read_a_fragments<A_KEEP != 0>(f, group, first, m, group.k0 + first * 8 + lane % 4 - (group.m0 + m));
  else
    read_a_fragments<false>(f, group, first, m, 0);
  split_fragments(f);
  // Every fragment is final here, before the wgmma.fence that follows.
#pragma unroll
  for (int i = 0; i < FRAG_STEPS; ++i) {
#pragma unroll
    for (int r = 0; r < 4; ++r) {
      wgmma_fence_operand(f.big[i][r]);
      if constexpr (TF32X3) wgmma_fence_operand(f.small[i][r]);
    }
  }
}
