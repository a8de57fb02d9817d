// mma_sync_gemm.cu — C = alpha * op(A) * op(B) + beta * C on TF32 tensor cores with the warp
// instruction mma.sync.m16n8k8, modes tf32x3 (float32-accurate, TF32X3 = 1) and tf32 (one
// TF32 product, TF32X3 = 0). It reads the operands in place: any op, leading dimension and
// base alignment, split-K; the small, skinny and oddly laid-out products of these modes.
//
// Row-major like PyTorch (as fp32/simt_gemm.cu). op(A) is M x K, op(B) is K x N, C is M x N:
//   TRANS_A = 0: A stored M x K, (m,k) at A[m*lda + k]   TRANS_A = 1: K x M, at A[k*lda + m]
//   TRANS_B = 0: B stored K x N, (k,n) at B[k*ldb + n]   TRANS_B = 1: N x K, at B[n*ldb + k]
//
// One CTA computes a BLOCK_M x BLOCK_N tile of C (grouped_tile_coord order), WARPS_M x WARPS_N
// warps a WARP_TILE_M x WARP_TILE_N part each, as MMA_M x MMA_N products of 16 x 8. Per K
// slice of BLOCK_K:
//   load_slice     global -> shared with cp.async (TileCopy), each operand as it lies in
//                  global memory: K-major (k contiguous) or MN-major (m or n contiguous)
//   mma_slice      fragments from shared memory, split or rounded to TF32 in registers,
//                  mma.sync into the accumulators
// STAGES-1 slices are in flight while one is computed; store_tile writes C at the end.
// Structure (common/work_item.cuh): WORK_LIST = 1: CTA x takes tile and K range from work
// item x instead; FILL = 1 (2): elements above (below) the diagonal of C are written as zeros.
//
// tf32x3 (kernel-design.md section 1): x = big + small, big = rna(x), small = rna(x - big).
// Per ACC_BLOCK_K values of K a fresh block accumulator gets aS·bB + aB·bS first, then NaN in
// that partial becomes 0 (x = 1, y = inf gives 0·inf there; the big product carries the inf),
// then aB·bB, then an FP32 add moves it into the running sum. tf32: one product of rounded
// operands, straight into the sum (ACC_BLOCK_K = 0) or in FP32-added blocks of ACC_BLOCK_K.
// Rounding with cvt.rna keeps every NaN a NaN (a NaN such as 0x7f800001 truncated to TF32
// would read as inf), so NaN and Inf propagate as in float64.
//
// The generator prepends a prologue of constants; the defaults below are used only when
// this file is compiled on its own (kernel development).
#include "common/address.cuh"
#include "common/cp_async.cuh"
#include "common/mma_sync.cuh"
#include "common/shared_load.cuh"
#include "common/tf32_split.cuh"
#include "common/tile_copy.cuh"
#include "common/split_k_slice.cuh"
#include "common/tile_order.cuh"
#include "common/work_item.cuh"

#ifndef KERNEL_NAME
#define KERNEL_NAME mma_sync_gemm_tf32x3
constexpr int TF32X3 = 1;                                  // 1: tf32x3, 0: tf32
constexpr int BLOCK_M = 128, BLOCK_N = 128, BLOCK_K = 32;  // CTA tile of C, K slice
constexpr int WARPS_M = 2, WARPS_N = 4;                    // warp grid of the CTA
constexpr int STAGES = 3, SPLIT_K = 1, RASTER_GROUP = 8;
constexpr int ACC_BLOCK_K = 32;                            // K per FP32-added block (tf32: 0 = none)
constexpr int TRANS_A = 0, TRANS_B = 0;
constexpr int VEC_A = 4, VEC_B = 4, VEC_C = 4;             // 4: 16-byte accesses allowed
constexpr int FILL = 0, WORK_LIST = 0;                     // structure (see above)
constexpr int SMEM_BYTES = -1;                             // host's number; < 0: unchecked
#endif

// ---- derived shape -----------------------------------------------------------------
constexpr int THREADS = WARPS_M * WARPS_N * 32;
constexpr int WARP_TILE_M = BLOCK_M / WARPS_M;  // C rows of one warp
constexpr int WARP_TILE_N = BLOCK_N / WARPS_N;  // C columns of one warp
constexpr int MMA_M = WARP_TILE_M / 16;         // 16-row products per warp
constexpr int MMA_N = WARP_TILE_N / 8;          // 8-column products per warp
constexpr int K_STEPS = BLOCK_K / 8;            // k8 steps per slice
constexpr int BLOCK_STEPS = ACC_BLOCK_K > 0 ? ACC_BLOCK_K / 8 : K_STEPS;  // k8 steps per block
constexpr bool BLOCKED = TF32X3 || ACC_BLOCK_K > 0;  // a block accumulator next to the sum

static_assert(TF32X3 == 0 || TF32X3 == 1, "TF32X3 is 0 (tf32) or 1 (tf32x3)");
static_assert(THREADS <= 1024, "at most 1024 threads per CTA");
static_assert(BLOCK_M % WARPS_M == 0 && BLOCK_N % WARPS_N == 0, "warps must tile the CTA tile");
static_assert(WARP_TILE_M % 16 == 0 && WARP_TILE_N % 8 == 0, "a warp tile is made of 16 x 8 products");
static_assert(BLOCK_M % 32 == 0 && BLOCK_N % 32 == 0, "MN-major shared rows need 32-float multiples (bank map)");
static_assert(BLOCK_K % 8 == 0, "BLOCK_K is made of k8 steps");
static_assert(ACC_BLOCK_K >= 0 && ACC_BLOCK_K % 8 == 0, "ACC_BLOCK_K is 0 or a multiple of the k8 step");
static_assert(TF32X3 == 0 || ACC_BLOCK_K > 0, "tf32x3 accumulates in blocks (ACC_BLOCK_K > 0)");
static_assert(ACC_BLOCK_K == 0 || BLOCK_K % ACC_BLOCK_K == 0,
              "a block lies inside one slice (the tf32x3 big pass re-reads the slice)");
static_assert(STAGES >= 2, "the pipeline needs at least two stages");
// SPLIT_K is informational: the number of K slices is gridDim.y, read at run time (below).
static_assert(RASTER_GROUP >= 1, "RASTER_GROUP counts tile rows per launch group");
static_assert((VEC_A == 1 || VEC_A == 4) && (VEC_B == 1 || VEC_B == 4) && (VEC_C == 1 || VEC_C == 4),
              "vector widths are 1 or 4 floats");

// ---- shared-memory layout of one operand slice ------------------------------------------
// An operand slice (BLOCK_X rows of op(A) or columns of op(B), BLOCK_K values of k) is kept
// in its global orientation, so that the copies are plain row copies (16 bytes when aligned):
//   K-major  (A stored M x K, B stored N x K): tile[x][k], row stride BLOCK_K + 8 floats
//   MN-major (A stored K x M, B stored K x N): tile[k][x], row stride BLOCK_X + 4 floats
// Fragment reads use a k permutation inside each k8 step that both operands share (a dot
// product does not depend on the order of its k): fragment slot t (k = t) reads physical
// k = 2t, slot t + 4 reads k = 2t + 1. A lane's two k of one row (or column) are then adjacent:
// one 8-byte read for K-major tiles. Bank map of one read instruction (g = lane / 4, t = lane % 4):
//   K-major, 8-byte (x = g, k = 2t):  word x*S + 2t with S = 8 or 24 (mod 32): each half-warp
//            (g < 4, g >= 4) covers 32 distinct banks, the two phases of an 8-byte read.
//   MN-major, 4-byte (k = 2t, x = g): word 2t*S + x with S = 4 (mod 32): 8t + g, 32 banks.
template <int BLOCK_X, bool K_MAJOR, int VEC>
struct OperandTile {
  static constexpr int K_STRIDE = BLOCK_K + 8;   // K-major row stride
  static constexpr int MN_STRIDE = BLOCK_X + 4;  // MN-major row stride
  static constexpr int STRIDE = K_MAJOR ? K_STRIDE : MN_STRIDE;
  // Floats reserved per slice: the larger orientation, so that the shared-memory size (a
  // launch parameter the host computes from the config alone) does not depend on the op.
  static constexpr int FLOATS = BLOCK_X * K_STRIDE > BLOCK_K * MN_STRIDE ? BLOCK_X * K_STRIDE : BLOCK_K * MN_STRIDE;
  // Global rows are x (K-major) or k (MN-major); the copy moves BLOCK_X x BLOCK_K or BLOCK_K x BLOCK_X.
  using Copy = TileCopy<K_MAJOR ? BLOCK_X : BLOCK_K, K_MAJOR ? BLOCK_K : BLOCK_X, STRIDE, VEC, THREADS>;

  static_assert(K_STRIDE % 32 == 8 || K_STRIDE % 32 == 24, "K-major stride must be 8 or 24 (mod 32)");
  static_assert(MN_STRIDE % 32 == 4, "MN-major stride must be 4 (mod 32)");

  // Elements (x, k) and (x, k + 1) of a slice; k is even. RELOAD: a second read of the same
  // elements, which must not be merged with the first (shared_load.cuh).
  template <bool RELOAD>
  __device__ __forceinline__ static float2 pair(const float* tile, int x, int k) {
    if (RELOAD) {
      if (K_MAJOR) return ld_shared_volatile_v2(shared_address(tile + x * STRIDE + k));
      return make_float2(ld_shared_volatile(shared_address(tile + k * STRIDE + x)),
                         ld_shared_volatile(shared_address(tile + (k + 1) * STRIDE + x)));
    }
    if (K_MAJOR) return *reinterpret_cast<const float2*>(tile + x * STRIDE + k);
    return make_float2(tile[k * STRIDE + x], tile[(k + 1) * STRIDE + x]);
  }
};

// op(A): k contiguous in global memory when A is stored M x K (TRANS_A = 0).
using TileA = OperandTile<BLOCK_M, TRANS_A == 0, VEC_A>;
// op(B): k contiguous in global memory when B is stored N x K (TRANS_B = 1).
using TileB = OperandTile<BLOCK_N, TRANS_B != 0, VEC_B>;

constexpr int A_STAGE = TileA::FLOATS;  // floats of one op(A) slice
constexpr int B_STAGE = TileB::FLOATS;
constexpr int SMEM_TOTAL = STAGES * (A_STAGE + B_STAGE) * 4;  // bytes
static_assert(SMEM_TOTAL <= 227 * 1024, "shared memory exceeds the 227 KiB an sm_90 CTA may use");
static_assert(SMEM_BYTES < 0 || SMEM_BYTES == SMEM_TOTAL,
              "host and template disagree on the shared-memory size (codegen shared_memory_bytes)");

// ---- global -> shared ---------------------------------------------------------------------
// One slice of op(A) and op(B) into a stage. Operand origin (x0, k = 0); the slice at k0 is a
// column shift of K-major tiles and a row shift of MN-major ones.
struct SliceLoader {
  typename TileA::Copy a;
  typename TileB::Copy b;

  __device__ __forceinline__ SliceLoader(const float* A, long long lda, const float* B, long long ldb, int m0,
                                         int n0, int M, int N, int K)
      : a(A, lda, TRANS_A ? 0 : m0, TRANS_A ? m0 : 0, TRANS_A ? K : M, TRANS_A ? M : K),
        b(B, ldb, TRANS_B ? n0 : 0, TRANS_B ? 0 : n0, TRANS_B ? N : K, TRANS_B ? K : N) {}

  template <bool CHECKED>
  __device__ __forceinline__ void copy(float* as, float* bs, int k0) const {
    a.template copy<CHECKED>(as, TRANS_A ? k0 : 0, TRANS_A ? 0 : k0);
    b.template copy<CHECKED>(bs, TRANS_B ? 0 : k0, TRANS_B ? k0 : 0);
  }
};

// ---- shared -> registers ------------------------------------------------------------------
// Fragments of k8 step `step` for this lane. `m` is the lane's row g in the warp's first
// 16-row product, `n` its column g in the first 8-column product, both inside the CTA tile;
// `k` = 2t. The permuted k of OperandTile: a0/a1 take k = 2t, a2/a3 k = 2t + 1; b0 2t, b1 2t + 1.
// RELOAD: the tf32x3 big pass, reading what the small pass read (OperandTile::pair).
struct RawFragments {
  MmaFragA a[MMA_M];
  MmaFragB b[MMA_N];
};

template <bool RELOAD>
__device__ __forceinline__ void load_fragments(const float* as, const float* bs, int m, int n, int k, int step,
                                               RawFragments& f) {
  const int kk = step * 8 + k;
#pragma unroll
  for (int i = 0; i < MMA_M; ++i) {
    const float2 top = TileA::template pair<RELOAD>(as, m + 16 * i, kk);         // row g:     a0, a2
    const float2 bottom = TileA::template pair<RELOAD>(as, m + 16 * i + 8, kk);  // row g + 8: a1, a3
    f.a[i] = {{top.x, bottom.x, top.y, bottom.y}};
  }
#pragma unroll
  for (int j = 0; j < MMA_N; ++j) {
    const float2 col = TileB::template pair<RELOAD>(bs, n + 8 * j, kk);          // column g: b0, b1
    f.b[j] = {{col.x, col.y}};
  }
}

// ---- TF32 rounding and splitting of whole fragments ------------------------------------
template <int N>
__device__ __forceinline__ void round_tf32(float (&x)[N]) {
#pragma unroll
  for (int e = 0; e < N; ++e) x[e] = tf32_round(x[e]);
}

// raw -> (big, small): big = rna(raw), small = rna(raw - big), element by element.
template <int N>
__device__ __forceinline__ void split_tf32(const float (&raw)[N], float (&big)[N], float (&small)[N]) {
#pragma unroll
  for (int e = 0; e < N; ++e) {
    const Tf32Pair p = tf32_split<true>(raw[e]);
    big[e] = p.big;
    small[e] = p.small;
  }
}

// ---- accumulators -----------------------------------------------------------------------
struct WarpAcc {
  MmaAcc c[MMA_M][MMA_N];  // this lane's C elements of the warp tile (map in mma_sync.cuh)
};

__device__ __forceinline__ void zero(WarpAcc& acc) {
#pragma unroll
  for (int i = 0; i < MMA_M; ++i)
#pragma unroll
    for (int j = 0; j < MMA_N; ++j)
#pragma unroll
      for (int e = 0; e < 4; ++e) acc.c[i][j].x[e] = 0.0f;
}

// NaN -> 0 in every element: the tf32x3 inf rule, applied to the small products of a block.
__device__ __forceinline__ void zero_nans(WarpAcc& block) {
#pragma unroll
  for (int i = 0; i < MMA_M; ++i)
#pragma unroll
    for (int j = 0; j < MMA_N; ++j)
#pragma unroll
      for (int e = 0; e < 4; ++e) block.c[i][j].x[e] = nan_to_zero(block.c[i][j].x[e]);
}

// sum += block in FP32: IEEE adds, which keep the tensor cores' truncated accumulation short.
__device__ __forceinline__ void add_block(WarpAcc& sum, const WarpAcc& block) {
#pragma unroll
  for (int i = 0; i < MMA_M; ++i)
#pragma unroll
    for (int j = 0; j < MMA_N; ++j)
#pragma unroll
      for (int e = 0; e < 4; ++e) sum.c[i][j].x[e] += block.c[i][j].x[e];
}

// ---- the products of one slice -------------------------------------------------------------
// tf32x3, one block of BLOCK_STEPS k8 steps from `first_step`: small products over the block,
// NaN -> 0, big products over the block. The big pass reads its fragments again: holding a
// whole block's big fragments from the small pass costs more registers than the tile has.
__device__ __forceinline__ void mma_block_x3(const float* as, const float* bs, int m, int n, int k,
                                             int first_step, WarpAcc& block) {
  zero(block);
#pragma unroll
  for (int s = 0; s < BLOCK_STEPS; ++s) {
    RawFragments raw;
    load_fragments<false>(as, bs, m, n, k, first_step + s, raw);
    MmaFragA a_big[MMA_M], a_small[MMA_M];
    MmaFragB b_big[MMA_N], b_small[MMA_N];
#pragma unroll
    for (int i = 0; i < MMA_M; ++i) split_tf32(raw.a[i].x, a_big[i].x, a_small[i].x);
#pragma unroll
    for (int j = 0; j < MMA_N; ++j) split_tf32(raw.b[j].x, b_big[j].x, b_small[j].x);
#pragma unroll
    for (int i = 0; i < MMA_M; ++i)
#pragma unroll
      for (int j = 0; j < MMA_N; ++j) {
        mma_m16n8k8_tf32(block.c[i][j], a_small[i], b_big[j]);
        mma_m16n8k8_tf32(block.c[i][j], a_big[i], b_small[j]);
      }
  }
  zero_nans(block);
#pragma unroll
  for (int s = 0; s < BLOCK_STEPS; ++s) {
    RawFragments f;
    load_fragments<true>(as, bs, m, n, k, first_step + s, f);
#pragma unroll
    for (int i = 0; i < MMA_M; ++i) round_tf32(f.a[i].x);
#pragma unroll
    for (int j = 0; j < MMA_N; ++j) round_tf32(f.b[j].x);
#pragma unroll
    for (int i = 0; i < MMA_M; ++i)
#pragma unroll
      for (int j = 0; j < MMA_N; ++j) mma_m16n8k8_tf32(block.c[i][j], f.a[i], f.b[j]);
  }
}

// tf32: STEPS k8 steps from `first_step` of one rounded product each into `acc`.
template <int STEPS>
__device__ __forceinline__ void mma_steps_x1(const float* as, const float* bs, int m, int n, int k,
                                             int first_step, WarpAcc& acc) {
#pragma unroll
  for (int s = 0; s < STEPS; ++s) {
    RawFragments f;
    load_fragments<false>(as, bs, m, n, k, first_step + s, f);
#pragma unroll
    for (int i = 0; i < MMA_M; ++i) round_tf32(f.a[i].x);
#pragma unroll
    for (int j = 0; j < MMA_N; ++j) round_tf32(f.b[j].x);
#pragma unroll
    for (int i = 0; i < MMA_M; ++i)
#pragma unroll
      for (int j = 0; j < MMA_N; ++j) mma_m16n8k8_tf32(acc.c[i][j], f.a[i], f.b[j]);
  }
}

// All K_STEPS of one slice (as, bs: its stage) into the running sum.
__device__ __forceinline__ void mma_slice(const float* as, const float* bs, int m, int n, int k, WarpAcc& sum,
                                          WarpAcc& block) {
  if (!BLOCKED) {
    mma_steps_x1<K_STEPS>(as, bs, m, n, k, 0, sum);
    return;
  }
#pragma unroll
  for (int first = 0; first < K_STEPS; first += BLOCK_STEPS) {
    if (TF32X3) {
      mma_block_x3(as, bs, m, n, k, first, block);
    } else {
      zero(block);
      mma_steps_x1<BLOCK_STEPS>(as, bs, m, n, k, first, block);
    }
    add_block(sum, block);
  }
}

// ---- epilogue -----------------------------------------------------------------------------
// C = alpha * sum + beta * C for this lane's elements: rows m + 16i (+ 8), columns n + 8j + {0, 1}
// (m, n: the lane's first row and column in C). With beta == 0, C is never read, so NaN in C
// cannot leak into the result. Adjacent columns go out as one 8-byte store when VEC_C == 4
// (ldc % 4 == 0 and a 16-byte base, the column even). FILL: elements of `row` outside the
// kept triangle are zeros (C not read there).
__device__ __forceinline__ void store_pair(float* c, int row, int col, int N, float v0, float v1, float beta) {
  if (FILL != 0 && !fill_keeps_all<FILL>(row, col, 2)) {
    if (col < N) c[col] = !fill_keeps<FILL>(row, col) ? 0.0f : beta != 0.0f ? fmaf(beta, c[col], v0) : v0;
    if (col + 1 < N) c[col + 1] = !fill_keeps<FILL>(row, col + 1) ? 0.0f : beta != 0.0f ? fmaf(beta, c[col + 1], v1) : v1;
    return;
  }
  if (VEC_C == 4 && col + 1 < N) {
    float2* dst = reinterpret_cast<float2*>(c + col);
    if (beta != 0.0f) {
      const float2 old = *dst;
      v0 = fmaf(beta, old.x, v0), v1 = fmaf(beta, old.y, v1);
    }
    *dst = make_float2(v0, v1);
    return;
  }
  if (col < N) c[col] = beta != 0.0f ? fmaf(beta, c[col], v0) : v0;
  if (col + 1 < N) c[col + 1] = beta != 0.0f ? fmaf(beta, c[col + 1], v1) : v1;
}

__device__ __forceinline__ void store_tile(float* C, long long ldc, int M, int N, int m, int n, const WarpAcc& sum,
                                           float alpha, float beta) {
#pragma unroll
  for (int i = 0; i < MMA_M; ++i)
#pragma unroll
    for (int half = 0; half < 2; ++half) {  // c0, c1: row g; c2, c3: row g + 8
      const int row = m + 16 * i + 8 * half;
      if (row >= M) continue;
      float* c_row = C + (long long)row * ldc;
#pragma unroll
      for (int j = 0; j < MMA_N; ++j)
        store_pair(c_row, row, n + 8 * j, N, alpha * sum.c[i][j].x[2 * half], alpha * sum.c[i][j].x[2 * half + 1], beta);
    }
}

// ---- the kernel -------------------------------------------------------------------------
// Grid: ceil(M/BLOCK_M) * ceil(N/BLOCK_N) CTAs along x, split-K slices along y, THREADS
// threads, SMEM_TOTAL bytes of dynamic shared memory. work: WORK_LIST's items (one per CTA
// column), otherwise unused.
extern "C" __global__ void __launch_bounds__(THREADS, 1)
KERNEL_NAME(int M, int N, int K, const float* __restrict__ A, long long lda,
            const float* __restrict__ B, long long ldb, float* __restrict__ C, long long ldc,
            float alpha, float beta, const int4* __restrict__ work) {
  extern __shared__ __align__(16) float smem[];
  float* const as = smem;                     // [STAGES][A_STAGE]  op(A) slices (OperandTile layout)
  float* const bs = smem + STAGES * A_STAGE;  // [STAGES][B_STAGE]  op(B) slices

  // add_rows takes a row as 32-bit bytes (ld < 2^30 floats): refuse, loudly, what does not fit.
  if (lda >= (1ll << 30) || ldb >= (1ll << 30)) __trap();

  // WORK_LIST: this CTA's tile, and only its K range (A and B moved to its start).
  TileCoord tile;
  if constexpr (WORK_LIST)
    tile = take_work_item<BLOCK_M, BLOCK_N, BLOCK_K, TRANS_A != 0, TRANS_B != 0>(work[blockIdx.x], A, lda, B, ldb, K);
  else
    tile = grouped_tile_coord<BLOCK_M, BLOCK_N, RASTER_GROUP>(blockIdx.x, M, N);
  // Split-K (gridDim.y > 1): this CTA row's K slice, its partial product to its workspace slice.
  if (gridDim.y > 1) take_split_k_slice<BLOCK_K, TRANS_A != 0, TRANS_B != 0>(A, lda, B, ldb, C, ldc, M, K);

  const SliceLoader loader(A, lda, B, ldb, tile.m0, tile.n0, M, N, K);
  const bool interior = tile.m0 + BLOCK_M <= M && tile.n0 + BLOCK_N <= N;
  const int k_tiles = (K + BLOCK_K - 1) / BLOCK_K;

  // Copies slice kt into stage s; only slices touching an edge pay for predication.
  auto load_slice = [&](int kt, int s) {
    const int k0 = kt * BLOCK_K;
    if (interior && k0 + BLOCK_K <= K) loader.copy<false>(as + s * A_STAGE, bs + s * B_STAGE, k0);
    else loader.copy<true>(as + s * A_STAGE, bs + s * B_STAGE, k0);
  };

  // This lane's fragment origin inside the CTA tile (map in mma_sync.cuh; k permuted as in
  // OperandTile): row g of the warp's first 16-row product, column g of its first 8-column
  // product, physical k = 2t.
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int g = lane / 4, t = lane % 4;
  const int m_frag = (warp / WARPS_N) * WARP_TILE_M + g;
  const int n_frag = (warp % WARPS_N) * WARP_TILE_N + g;
  const int k_frag = 2 * t;

  WarpAcc sum, block;  // running sum; the block accumulator (unused when !BLOCKED)
  zero(sum);

  // Pipeline fill: slices 0 .. STAGES-2 in flight, one commit group each (maybe empty).
#pragma unroll
  for (int s = 0; s < STAGES - 1; ++s) {
    if (s < k_tiles) load_slice(s, s);
    cp_async_commit();
  }

  int read_stage = 0;            // stage holding slice kt
  int write_stage = STAGES - 1;  // stage receiving slice kt + STAGES - 1
  for (int kt = 0; kt < k_tiles; ++kt) {
    cp_async_wait<STAGES - 2>();  // this thread's copies of slice kt have landed
    __syncthreads();              // everyone's have; and slice kt-1 (in write_stage) is consumed
    if (kt + STAGES - 1 < k_tiles) load_slice(kt + STAGES - 1, write_stage);
    cp_async_commit();
    mma_slice(as + read_stage * A_STAGE, bs + read_stage * B_STAGE, m_frag, n_frag, k_frag, sum, block);
    read_stage = read_stage + 1 == STAGES ? 0 : read_stage + 1;
    write_stage = write_stage + 1 == STAGES ? 0 : write_stage + 1;
  }

  // C row of fragment element c0 / c1: g; C column: 2t (+ 1).
  const int m_out = tile.m0 + (warp / WARPS_N) * WARP_TILE_M + g;
  const int n_out = tile.n0 + (warp % WARPS_N) * WARP_TILE_N + 2 * t;
  store_tile(C, ldc, M, N, m_out, n_out, sum, alpha, beta);
}
