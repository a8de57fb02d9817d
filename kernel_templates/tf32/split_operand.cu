// split_operand.cu — pre-pass of the TF32 tensor-core family: one operand -> K-major TF32 planes.
//
// The main kernel (tf32/wgmma_gemm.cu) reads both operands K-major from shared memory, as
// tf32 wgmma requires (kernel-design.md section 2). This memory-bound pass gives it that
// layout whatever op/ld the caller has, and does the rounding once:
//   PLANES = 2 (tf32x3): big = rna(x) (or trunc(x)), small = rna(x - big)   (tf32_split.cuh)
//   PLANES = 1 (tf32):   big = rna(x)
//   PLANES = 0:          big = x (a raw copy: a symmetric operand expanded for a kernel that
//                        reads it in place)
//   SMALL_ONLY = 1 (tf32x3, a K-contiguous general source): the small plane alone, of
//                        x - rne(x). The main kernel reads the caller's matrix itself as the big
//                        plane, through a TFLOAT32 tensor map, whose copy rounds each float to
//                        nearest even (measured on the H200: every finite float as rne below;
//                        NaN -> 0x7fffe000, a NaN); the two planes still add up to x.
// Operand view: R rows (M for A, N for B) of K values; element (r, k) of the source is
//   TRANSPOSE = 0: src[r * ld_src + k]    (A with trans_a = N, B with trans_b = T)
//   TRANSPOSE = 1: src[k * ld_src + r]    (A with trans_a = T, B with trans_b = N)
//   SYMMETRIC = 1: the source is symmetric (R = K) and only its lower triangle is read:
//                  element (r, k) is src[r * ld_src + k] for r >= k, src[k * ld_src + r] else
//                  (the stored layout does not matter: a symmetric matrix is its transpose);
//                  SYMMETRIC = 2: the same from the upper triangle
//   TRIANGLE = 1 (2): the source is lower (upper) triangular: stored element (i, j) with
//                  j > i (j < i) is not read and taken as 0; with UNIT_DIAGONAL = 1 the
//                  diagonal is not read either and taken as 1. (i, j) is (r, k) of the view,
//                  or (k, r) when TRANSPOSE = 1.
// Output: big[r * ld_dst + k], small[r * ld_dst + k], r < R, k < ld_dst, zeros for k >= K.
// Rows past R are not written: the main kernel's tensor maps stop at R and the TMA unit
// fills the rest of an edge tile with zeros.
// PERMUTE_K = 1 (TRANSPOSE = 1, not symmetric, both planes written): each 32-wide K block of a
// plane row in the main kernel's permuted order (K_PERMUTED of tf32/wgmma_gemm.cu): its 16-byte
// chunk c holds K values c, c + 8, c + 16, c + 24 of the block.
// skip_band > 0 (TRIANGLE, planes for tf32/wgmma_gemm.cu): a tile whose values all lie more than
// skip_band values of K beyond the diagonal of the view, on the zero side, is not written at
// all. The host passes the main kernel's tile rows plus its K unit: its work list never reads
// K that far from a tile's rows, so those zeros would only cost bandwidth (about 40% of the
// planes of a 4096-square triangle).
//
// For tf32x3 it also raises *nonfinite (never clears it) when any big or small value it
// writes is inf or NaN; the main kernel then applies the NaN rule of kernel-design.md.
//
// Launch: grid (ceil(ld_dst / TILE_K), ceil(R / TILE_R)), THREADS threads, no dynamic
// shared memory. ld_dst % 4 == 0 and 16-byte aligned planes (the main kernel's TMA needs both).
// SYMMETRIC: grid (T (T + 1) / 2) for T = ceil(R / 64) tiles a side: one CTA per tile of the
// stored triangle, which writes it and its mirror image.
#include "common/grid_dependency.cuh"
#include "common/tf32_split.cuh"

#ifndef KERNEL_NAME
#define KERNEL_NAME split_operand_tf32
constexpr int PLANES = 2;     // 2: tf32x3 (big and small planes); 1: tf32 (one rounded plane)
constexpr int TRANSPOSE = 1;  // 1: the source is R-contiguous (transposed through shared memory)
constexpr int VEC = 4;        // 4: ld_src % 4 == 0 and 16-byte aligned src (float4 loads); 1: scalar
constexpr int ROUND_BIG = 1;  // 1: big = rna(x); 0: big = trunc(x), as the tensor cores read x raw
constexpr int SYMMETRIC = 0;  // 1 (2): a symmetric source, read from its lower (upper) triangle only
constexpr int TRIANGLE = 0;   // 1 (2): a lower (upper) triangular source, the other triangle not read
constexpr int UNIT_DIAGONAL = 0;  // TRIANGLE: 1: the diagonal is not read either, taken as 1
constexpr int SMALL_ONLY = 0; // 1: tf32x3, only the small plane (the big one is the source itself)
constexpr int PERMUTE_K = 0;  // 1: each 32-wide K block in the main kernel's K_PERMUTED order
#endif

constexpr int TILE_R = 64;    // operand rows per CTA
constexpr int TILE_K = 64;    // K values per CTA
constexpr int THREADS = 256;
constexpr int TILE_STRIDE = TILE_R + 1;  // transpose tile [TILE_K][TILE_STRIDE]: odd stride, see below

static_assert(PLANES >= 0 && PLANES <= 2, "PLANES is 0 (raw copy), 1 (tf32) or 2 (tf32x3)");
static_assert(SYMMETRIC >= 0 && SYMMETRIC <= 2 && TRIANGLE >= 0 && TRIANGLE <= 2, "SYMMETRIC and TRIANGLE are 0, 1 or 2");
static_assert(SYMMETRIC == 0 || TRIANGLE == 0, "a source is symmetric or triangular");
static_assert(UNIT_DIAGONAL == 0 || TRIANGLE != 0, "UNIT_DIAGONAL describes a triangular source");
static_assert(TRANSPOSE == 0 || TRANSPOSE == 1, "TRANSPOSE is 0 or 1");
static_assert(VEC == 1 || VEC == 4, "VEC is 1 or 4 floats");
static_assert(SMALL_ONLY == 0 || (PLANES == 2 && TRANSPOSE == 0 && VEC == 4 && SYMMETRIC == 0 && TRIANGLE == 0),
              "SMALL_ONLY: a tf32x3 split of a K-contiguous, 16-byte aligned general source (the big plane "
              "is the source, as a tensor map reads it)");
static_assert(TILE_R * TILE_K == 16 * THREADS, "each thread moves 4 float4 of the tile");
static_assert(PERMUTE_K == 0 || (TRANSPOSE == 1 && SYMMETRIC == 0 && SMALL_ONLY == 0),
              "PERMUTE_K: planes written from an R-contiguous, non-symmetric source (split_transposed)");

// Four consecutive source values starting at `p`, `valid` of them in range (0..4), zeros after.
__device__ __forceinline__ float4 load4(const float* p, int valid) {
  if (VEC == 4 && valid == 4) return __ldg(reinterpret_cast<const float4*>(p));
  float v[4];
#pragma unroll
  for (int j = 0; j < 4; ++j) v[j] = j < valid ? __ldg(p + j) : 0.0f;
  return make_float4(v[0], v[1], v[2], v[3]);
}

// TRIANGLE: stored elements (i, j0 .. j0 + 3), `valid` of them in range, at `p`: the ones
// outside the triangle (and a unit diagonal) are not read.
__device__ __forceinline__ float4 load4_triangle(const float* p, int valid, long long i, long long j0) {
  if (TRIANGLE == 0) return load4(p, valid);
  // Every element inside the triangle (the diagonal too, unless it is a unit one): one load.
  const bool inside = TRIANGLE == 1 ? j0 + 3 < i + (UNIT_DIAGONAL ? 0 : 1) : j0 > i - (UNIT_DIAGONAL ? 0 : 1);
  if (inside) return load4(p, valid);
  float v[4];
#pragma unroll
  for (int j = 0; j < 4; ++j) {
    const long long col = j0 + j;
    const bool kept = TRIANGLE == 1 ? col <= i : col >= i;
    v[j] = j >= valid || !kept ? 0.0f : UNIT_DIAGONAL && col == i ? 1.0f : __ldg(p + j);
  }
  return make_float4(v[0], v[1], v[2], v[3]);
}

// One 16-byte store of v at p (16-byte aligned). In PTX on purpose: from C++ the compiler
// front end turned half of split_transposed's float4 stores into four 4-byte ones each (sectors
// 40% filled; that pass ran L2-bound at 2.4 TB/s on the H200, against 3.5 for split_rows).
__device__ __forceinline__ void store_v4(float* p, float4 v) {
  asm volatile("st.global.v4.f32 [%0], {%1, %2, %3, %4};\n" ::"l"(p), "f"(v.x), "f"(v.y), "f"(v.z), "f"(v.w)
               : "memory");
}

// x rounded to TF32 as a TFLOAT32 tensor map's copy rounds it: to nearest, ties to even (the
// kept part's last bit 0), by integer arithmetic; inf stays inf, overflow rounds to inf, and
// NaN stays NaN (tf32_nan).
__device__ __forceinline__ float tf32_round_even(float x) {
  const unsigned bits = __float_as_uint(x);
  return x == x ? __uint_as_float((bits + 0xfffu + ((bits >> 13) & 1u)) & 0xffffe000u) : tf32_nan();
}

// SMALL_ONLY: the split of x whose big part is the one the tensor map's copy delivers.
__device__ __forceinline__ Tf32Pair tf32_split_copy_rounded(float x) {
  const float big = tf32_round_even(x);
  return {big, tf32_round(x - big)};
}

// Rounds/splits four values and stores them at plane offset `at` (16-byte aligned; SMALL_ONLY:
// the small plane only). Returns true when any value written (SMALL_ONLY: or read as the big
// part) is not finite.
__device__ __forceinline__ bool store4(float* big, float* small, long long at, float4 x) {
  const float in[4] = {x.x, x.y, x.z, x.w};
  float b[4], s[4];
  bool nonfinite = false;
#pragma unroll
  for (int j = 0; j < 4; ++j) {
    const Tf32Pair p = SMALL_ONLY ? tf32_split_copy_rounded(in[j]) : tf32_split<ROUND_BIG != 0>(in[j]);
    b[j] = PLANES == 2 ? p.big : PLANES == 1 ? tf32_round(in[j]) : in[j];
    s[j] = p.small;
    nonfinite |= !isfinite(b[j]);  // a finite big part has a finite small part
  }
  if (!SMALL_ONLY) store_v4(big + at, make_float4(b[0], b[1], b[2], b[3]));
  if (PLANES == 2) store_v4(small + at, make_float4(s[0], s[1], s[2], s[3]));
  return nonfinite;
}

// K-contiguous source: a straight streaming copy, float4 in, float4 out per plane.
// Thread t moves rows t/16 + 16i (i < 4), columns 4(t%16) .. +3: each warp reads and writes
// two 256-byte row segments.
__device__ __forceinline__ bool split_rows(const float* src, long long ld_src, int R, int K,
                                           float* big, float* small, long long ld_dst, int r0,
                                           int k0) {
  bool nonfinite = false;
  const int k = k0 + (threadIdx.x % 16) * 4;
  if (k >= ld_dst) return false;
  const int valid = min(max(K - k, 0), 4);
  float4 x[4];
#pragma unroll
  for (int i = 0; i < 4; ++i) {  // all loads first: four 16-byte loads in flight per thread
    const int r = r0 + threadIdx.x / 16 + 16 * i;
    x[i] = r < R ? load4_triangle(src + (long long)r * ld_src + k, valid, r, k) : make_float4(0, 0, 0, 0);
  }
#pragma unroll
  for (int i = 0; i < 4; ++i) {
    const int r = r0 + threadIdx.x / 16 + 16 * i;
    if (r < R) nonfinite |= store4(big, small, (long long)r * ld_dst + k, x[i]);
  }
  return nonfinite;
}

// R-contiguous source: transposed through shared memory.
//   read:  thread t loads source row k0 + t/16 + 16i (i < 4), values r0 + 4(t%16) .. +3,
//          into tile[k][r] (each warp reads two 256-byte segments);
//   write: thread t takes output row r0 + t/8 + 32i (i < 2), K values k0 + 4(t%8) + 32h
//          (h < 2) .. +3 from tile[k..k+3][r] and writes float4s (128-byte row segments).
// The odd stride makes the column reads conflict-free: lanes with equal t/8 read banks
// 4(t%8)·65 + j ≡ 4(t%8) + j, and t/8 adds 0..3 (mod 32), so 32 distinct banks.
// PERMUTE_K: chunk c = t%8 of block h holds K values 32h + c + 8j (j < 4): tile[32h + c + 8j][r],
// banks c + 8j + r (mod 32); so a warp w takes rows w, w + 8, w + 16, w + 24 (lane/8 picks one,
// and + 32i), whose c + r are 32 distinct banks, each row still one 128-byte segment.
__device__ __forceinline__ bool split_transposed(const float* src, long long ld_src, int R, int K,
                                                 float* big, float* small, long long ld_dst,
                                                 int r0, int k0) {
  __shared__ float tile[TILE_K][TILE_STRIDE];  // [k][r], one tile of the source
  {
    const int r = r0 + (threadIdx.x % 16) * 4;
    const int valid = min(max(R - r, 0), 4);
    float4 x[4];
#pragma unroll
    for (int i = 0; i < 4; ++i) {
      const int k = k0 + threadIdx.x / 16 + 16 * i;
      x[i] = k < K ? load4_triangle(src + (long long)k * ld_src + r, valid, k, r) : make_float4(0, 0, 0, 0);
    }
#pragma unroll
    for (int i = 0; i < 4; ++i) {
      float* row = &tile[threadIdx.x / 16 + 16 * i][(threadIdx.x % 16) * 4];
      row[0] = x[i].x, row[1] = x[i].y, row[2] = x[i].z, row[3] = x[i].w;
    }
  }
  __syncthreads();
  bool nonfinite = false;
#pragma unroll
  for (int i = 0; i < 2; ++i) {
    const int r = (PERMUTE_K ? 8 * (threadIdx.x % 32 / 8) + threadIdx.x / 32 : threadIdx.x / 8) + 32 * i;
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      const int c = threadIdx.x % 8, kt = 4 * c + 32 * h;  // the chunk's K offset inside the tile
      if (r0 + r >= R || k0 + kt >= ld_dst) continue;
      const float4 x = PERMUTE_K ? make_float4(tile[32 * h + c][r], tile[32 * h + c + 8][r], tile[32 * h + c + 16][r],
                                               tile[32 * h + c + 24][r])
                                 : make_float4(tile[kt][r], tile[kt + 1][r], tile[kt + 2][r], tile[kt + 3][r]);
      nonfinite |= store4(big, small, (long long)(r0 + r) * ld_dst + k0 + kt, x);
    }
  }
  return nonfinite;
}

// SYMMETRIC: tile (ti, tj), ti >= tj, of the lower triangle (64 x 64 values, rows r0 = 64 ti,
// columns c0 = 64 tj; SYMMETRIC = 2: tile (tj, ti) of the upper one) goes to the output at
// (r0, c0) as it is and at (c0, r0) transposed; on the diagonal only the values of the
// stored triangle are read, the others are their mirror images.
//   read:  thread t loads row r0 + t/16 + 16i (i < 4), values c0 + 4(t%16) .. +3 into tile[r][c]
//   write: as split_transposed for the mirror image; straight rows for the tile itself.
__device__ __forceinline__ bool split_symmetric(const float* src, long long ld_src, int R, float* big, float* small,
                                                long long ld_dst, int ti, int tj) {
  __shared__ float tile[TILE_R][TILE_STRIDE];  // [r][c] of the source tile
  const int r0 = (SYMMETRIC == 2 ? tj : ti) * TILE_R, c0 = (SYMMETRIC == 2 ? ti : tj) * TILE_K;
#pragma unroll
  for (int i = 0; i < 4; ++i) {
    const int rt = threadIdx.x / 16 + 16 * i, r = r0 + rt, ct = (threadIdx.x % 16) * 4;
    if (r0 != c0) {  // off the diagonal every value is in the stored triangle
      const float4 x = r < R ? load4(src + (long long)r * ld_src + c0 + ct, min(max(R - c0 - ct, 0), 4))
                             : make_float4(0, 0, 0, 0);
      tile[rt][ct] = x.x, tile[rt][ct + 1] = x.y, tile[rt][ct + 2] = x.z, tile[rt][ct + 3] = x.w;
      continue;
    }
#pragma unroll
    for (int j = 0; j < 4; ++j) {  // on it, the values above come from their mirror images
      const int c = c0 + ct + j;
      const bool stored = SYMMETRIC == 2 ? rt <= ct + j : rt >= ct + j;
      const int rr = stored ? r : c, cc = stored ? c : r;
      tile[rt][ct + j] = rr < R && cc < R ? __ldg(src + (long long)rr * ld_src + cc) : 0.0f;
    }
  }
  __syncthreads();
  bool nonfinite = false;
  // The tile itself: output rows r0.., columns c0.. (and the zeros of columns K .. ld_dst).
  for (int i = 0; i < 4; ++i) {
    const int rt = threadIdx.x / 16 + 16 * i, ct = (threadIdx.x % 16) * 4;
    if (r0 + rt >= R || c0 + ct >= ld_dst) continue;
    const float4 x = make_float4(tile[rt][ct], tile[rt][ct + 1], tile[rt][ct + 2], tile[rt][ct + 3]);
    nonfinite |= store4(big, small, (long long)(r0 + rt) * ld_dst + c0 + ct, x);
  }
  if (r0 == c0) return nonfinite;
  // The mirror image: output rows c0.., columns r0..: value (c, r) = tile[r][c].
  for (int i = 0; i < 4; ++i) {
    const int ct = threadIdx.x / 16 + 16 * i, rt = (threadIdx.x % 16) * 4;
    if (c0 + ct >= R || r0 + rt >= ld_dst) continue;
    const float4 x = make_float4(tile[rt][ct], tile[rt + 1][ct], tile[rt + 2][ct], tile[rt + 3][ct]);
    nonfinite |= store4(big, small, (long long)(c0 + ct) * ld_dst + r0 + rt, x);
  }
  return nonfinite;
}

// Tile (ti, tj), ti >= tj, of lower-triangle tile number x (row by row: (0,0), (1,0), (1,1), ...).
__device__ __forceinline__ int2 lower_tile(int x) {
  int ti = (int)((sqrtf(8.0f * x + 1.0f) - 1.0f) * 0.5f);
  while (ti * (ti + 1) / 2 > x) --ti;  // float rounding, either way
  while ((ti + 1) * (ti + 2) / 2 <= x) ++ti;
  return make_int2(ti, x - ti * (ti + 1) / 2);
}

// Whether tile (r0, k0) of the view lies wholly more than skip_band beyond the diagonal on
// the zero side. The view's (r, k) is the stored (r, k), or (k, r) when TRANSPOSE: a lower
// source keeps k <= r, or k >= r when read transposed.
__device__ __forceinline__ bool tile_unread(int r0, int k0, int skip_band) {
  if (TRIANGLE == 0 || skip_band <= 0) return false;
  const bool keep_below = (TRIANGLE == 1) != (TRANSPOSE == 1);  // k <= r kept
  return keep_below ? (long long)k0 >= (long long)r0 + TILE_R - 1 + skip_band
                    : (long long)k0 + TILE_K - 1 <= (long long)r0 - skip_band;
}

extern "C" __global__ void __launch_bounds__(THREADS)
KERNEL_NAME(const float* __restrict__ src, long long ld_src, int R, int K, float* __restrict__ big,
            float* __restrict__ small, long long ld_dst, unsigned* __restrict__ nonfinite, int skip_band) {
  griddepcontrol_launch_dependents();  // a main kernel launched as a dependent may start its prologue
  bool found;
  if (!SYMMETRIC && tile_unread(blockIdx.y * TILE_R, blockIdx.x * TILE_K, skip_band)) return;  // uniform: no barrier skipped by some
  if (SYMMETRIC) {
    const int2 t = lower_tile(blockIdx.x);
    found = split_symmetric(src, ld_src, R, big, small, ld_dst, t.x, t.y);
  } else {
    const int r0 = blockIdx.y * TILE_R;
    const int k0 = blockIdx.x * TILE_K;
    found = TRANSPOSE ? split_transposed(src, ld_src, R, K, big, small, ld_dst, r0, k0)
                      : split_rows(src, ld_src, R, K, big, small, ld_dst, r0, k0);
  }
  if (PLANES == 2 && __syncthreads_or(found) && threadIdx.x == 0) atomicOr(nonfinite, 1u);
}
