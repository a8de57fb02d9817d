// simt_gemm.cu — C = alpha * op(A) * op(B) + beta * C in float32 with plain FFMA (fp32 mode).
//
// Row-major like PyTorch. op(A) is M x K, op(B) is K x N, C is M x N at C[m*ldc + n].
//   TRANS_A = 0: A stored M x K, (m,k) at A[m*lda + k]   TRANS_A = 1: K x M, at A[k*lda + m]
//   TRANS_B = 0: B stored K x N, (k,n) at B[k*ldb + n]   TRANS_B = 1: N x K, at B[n*ldb + k]
//
// One CTA computes a BLOCK_M x BLOCK_N tile of C. Per K slice of BLOCK_K:
//   load_tile_a / load_tile_b  global -> shared with cp.async, both tiles stored K-outer
//                              (As[k][m], Bs[k][n]); a transpose happens on the way in
//   mma_tile                   BLOCK_K rank-1 updates of the register accumulators
// STAGES-1 slices are in flight while one is computed; store_tile writes C at the end.
//
// The generator prepends a prologue of constants; the defaults below are used only when
// this file is compiled on its own (kernel development).
#include "common/cp_async.cuh"

#ifndef KERNEL_NAME
#define KERNEL_NAME simt_gemm_fp32
constexpr int BLOCK_M = 128, BLOCK_N = 128, BLOCK_K = 8;  // CTA tile of C, K slice
constexpr int WARPS_M = 2, WARPS_N = 4;                    // warp grid of the CTA
constexpr int THREAD_M = 8, THREAD_N = 8;                  // C elements per thread
constexpr int STAGES = 3, SPLIT_K = 1, RASTER_GROUP = 8;
constexpr int TRANS_A = 0, TRANS_B = 0;
constexpr int VEC_A = 4, VEC_B = 4, VEC_C = 4;             // 4: 16-byte accesses allowed
constexpr int MIN_CTAS_PER_SM = 1;                          // occupancy the registers must allow
constexpr int SMEM_BYTES = -1;                              // host's number; < 0: unchecked
#endif

// ---- derived shape -----------------------------------------------------------------
constexpr int THREADS = WARPS_M * WARPS_N * 32;
constexpr int WARP_TILE_M = BLOCK_M / WARPS_M;    // C rows of one warp
constexpr int WARP_TILE_N = BLOCK_N / WARPS_N;    // C columns of one warp
constexpr int LANES_M = WARP_TILE_M / THREAD_M;   // lanes of a warp along M
constexpr int LANES_N = WARP_TILE_N / THREAD_N;   // lanes of a warp along N
constexpr int FRAGS_M = THREAD_M / 4;             // float4 fragments per thread along M
constexpr int FRAGS_N = THREAD_N / 4;

// Row stride of a K-outer shared tile: the row plus a pad that makes the stride 4 (mod 32)
// floats. Rows stay 16-byte aligned for float4 reads, and the transposing loader's 8 k x 4 x
// writes fall into 32 distinct banks (see load_tile_transposed).
__host__ __device__ constexpr int smem_stride(int block_x) { return block_x + (36 - block_x % 32) % 32; }
constexpr int A_STRIDE = smem_stride(BLOCK_M);
constexpr int B_STRIDE = smem_stride(BLOCK_N);
constexpr int A_STAGE = BLOCK_K * A_STRIDE;        // floats of one As[BLOCK_K][A_STRIDE] slice
constexpr int B_STAGE = BLOCK_K * B_STRIDE;
constexpr int SMEM_TOTAL = STAGES * (A_STAGE + B_STAGE) * 4;  // bytes

static_assert(THREADS <= 1024, "at most 1024 threads per CTA");
static_assert(BLOCK_M % WARPS_M == 0 && BLOCK_N % WARPS_N == 0, "warps must tile the CTA tile");
static_assert(THREAD_M % 4 == 0 && THREAD_N % 4 == 0, "thread tiles are made of float4 fragments");
static_assert(WARP_TILE_M % THREAD_M == 0 && WARP_TILE_N % THREAD_N == 0,
              "thread tiles must tile the warp tile");
static_assert(LANES_M * LANES_N == 32, "the thread tiles of one warp must cover its warp tile exactly");
static_assert(BLOCK_K % 8 == 0, "BLOCK_K must be a multiple of 8 (the transposing loader's k run)");
static_assert(BLOCK_M % 4 == 0 && BLOCK_N % 4 == 0, "tile rows are copied in float4 units");
static_assert(STAGES >= 2, "the pipeline needs at least two stages");
static_assert(SPLIT_K == 1, "this template does not split K");
static_assert(RASTER_GROUP >= 1, "RASTER_GROUP counts tile rows per launch group");
static_assert((VEC_A == 1 || VEC_A == 4) && (VEC_B == 1 || VEC_B == 4) && (VEC_C == 1 || VEC_C == 4),
              "vector widths are 1 or 4 floats");
static_assert(SMEM_TOTAL <= 227 * 1024, "shared memory exceeds the 227 KiB an sm_90 CTA may use");
static_assert(SMEM_BYTES < 0 || SMEM_BYTES == SMEM_TOTAL,
              "host and template disagree on the shared-memory size (codegen shared_memory_bytes)");

// Where one operand's tile lives in global memory. Element (k, x) of op(A) (x = m) or of
// op(B) (x = n); x0 is the CTA's first x, X the extent (M or N).
struct Operand {
  const float* ptr;
  long long ld;
  int x0;
  int X;
};

// ---- global -> shared loaders: one BLOCK_K x BLOCK_X slice into tile[k][x] ----------
// CHECKED: predicate every element against X and K (src-size 0 = zero fill); unchecked
// slices are known to be fully in range.

// x contiguous in global memory, 16-byte aligned rows (VEC = 4): one cp.async per float4.
template <int BLOCK_X, bool CHECKED>
__device__ __forceinline__ void load_tile_vec4(float* tile, const Operand& g, int k0, int K) {
  constexpr int STRIDE = smem_stride(BLOCK_X);
  constexpr int VECS_PER_ROW = BLOCK_X / 4;
  constexpr int VECS = BLOCK_K * VECS_PER_ROW;
#pragma unroll
  for (int i = 0; i < (VECS + THREADS - 1) / THREADS; ++i) {
    const int v = threadIdx.x + i * THREADS;  // consecutive threads: consecutive float4 of a row
    if (VECS % THREADS != 0 && v >= VECS) break;
    const int k = v / VECS_PER_ROW;
    const int x = (v % VECS_PER_ROW) * 4;
    float* dst = tile + k * STRIDE + x;
    const float* src = g.ptr + (long long)(k0 + k) * g.ld + (g.x0 + x);
    if (CHECKED) {
      // Elements past X inside the float4 are zero-filled: src-size counts the valid ones.
      const int valid = (k0 + k < K) ? min(max(g.X - (g.x0 + x), 0), 4) : 0;
      cp_async_16(dst, valid > 0 ? src : g.ptr, valid * 4);
    } else {
      cp_async_16(dst, src);
    }
  }
}

// x contiguous, rows not 16-byte aligned (VEC = 1): one float per copy. Consecutive threads
// take consecutive x, so global reads and shared writes are both contiguous.
template <int BLOCK_X, bool CHECKED>
__device__ __forceinline__ void load_tile_contiguous(float* tile, const Operand& g, int k0, int K) {
  constexpr int STRIDE = smem_stride(BLOCK_X);
  constexpr int ELEMS = BLOCK_K * BLOCK_X;
#pragma unroll
  for (int i = 0; i < (ELEMS + THREADS - 1) / THREADS; ++i) {
    const int e = threadIdx.x + i * THREADS;
    if (ELEMS % THREADS != 0 && e >= ELEMS) break;
    const int k = e / BLOCK_X;
    const int x = e % BLOCK_X;
    float* dst = tile + k * STRIDE + x;
    const float* src = g.ptr + (long long)(k0 + k) * g.ld + (g.x0 + x);
    if (CHECKED) {
      const bool ok = k0 + k < K && g.x0 + x < g.X;
      cp_async_4(dst, ok ? src : g.ptr, ok ? 4 : 0);
    } else {
      cp_async_4(dst, src);
    }
  }
}

// k contiguous in global memory (A with TRANS_A = 0, B with TRANS_B = 1): the slice is
// transposed on the way in, one float per copy. Each warp copies pieces of 8 k x 4 x:
// lane -> (k = lane % 8, x = lane / 8). Each 8-lane group reads one 32-byte run of a global
// row (coalesced); the shared writes go to k*STRIDE + x with STRIDE = 4 (mod 32), i.e. banks
// 4*(lane % 8) + lane / 8: 32 distinct banks, no conflict.
template <int BLOCK_X, bool CHECKED>
__device__ __forceinline__ void load_tile_transposed(float* tile, const Operand& g, int k0, int K) {
  constexpr int STRIDE = smem_stride(BLOCK_X);
  constexpr int K_RUNS = BLOCK_K / 8;               // 8-long k runs per x
  constexpr int PIECES = K_RUNS * (BLOCK_X / 4);    // 8 k x 4 x pieces of the slice
  constexpr int WARPS = THREADS / 32;
  static_assert(STRIDE % 32 == 4, "the transposing loader's bank-conflict freedom needs STRIDE = 4 mod 32");
  const int warp = threadIdx.x / 32;
  const int lane = threadIdx.x % 32;
#pragma unroll
  for (int i = 0; i < (PIECES + WARPS - 1) / WARPS; ++i) {
    const int piece = warp + i * WARPS;
    if (PIECES % WARPS != 0 && piece >= PIECES) break;
    const int k = (piece % K_RUNS) * 8 + lane % 8;
    const int x = (piece / K_RUNS) * 4 + lane / 8;
    float* dst = tile + k * STRIDE + x;
    const float* src = g.ptr + (long long)(g.x0 + x) * g.ld + (k0 + k);
    if (CHECKED) {
      const bool ok = k0 + k < K && g.x0 + x < g.X;
      cp_async_4(dst, ok ? src : g.ptr, ok ? 4 : 0);
    } else {
      cp_async_4(dst, src);
    }
  }
}

// Picks the path: the transpose is a layout, decided at compile time.
template <int BLOCK_X, bool X_CONTIGUOUS, int VEC, bool CHECKED>
__device__ __forceinline__ void load_tile(float* tile, const Operand& g, int k0, int K) {
  if constexpr (!X_CONTIGUOUS) {
    load_tile_transposed<BLOCK_X, CHECKED>(tile, g, k0, K);
  } else if constexpr (VEC == 4) {
    load_tile_vec4<BLOCK_X, CHECKED>(tile, g, k0, K);
  } else {
    load_tile_contiguous<BLOCK_X, CHECKED>(tile, g, k0, K);
  }
}

// op(A) slice -> As[BLOCK_K][A_STRIDE]; M is contiguous in global memory when A is stored K x M.
template <bool CHECKED>
__device__ __forceinline__ void load_tile_a(float* as, const Operand& a, int k0, int K) {
  load_tile<BLOCK_M, TRANS_A != 0, VEC_A, CHECKED>(as, a, k0, K);
}

// op(B) slice -> Bs[BLOCK_K][B_STRIDE]; N is contiguous in global memory when B is stored K x N.
template <bool CHECKED>
__device__ __forceinline__ void load_tile_b(float* bs, const Operand& b, int k0, int K) {
  load_tile<BLOCK_N, TRANS_B == 0, VEC_B, CHECKED>(bs, b, k0, K);
}

// ---- shared -> registers -> FFMA ----------------------------------------------------
// as / bs point at this thread's first fragment of one stage: lane (lane_m, lane_n) of a warp
// owns C rows  warp_m0 + f*LANES_M*4 + lane_m*4 + {0..3} (f < FRAGS_M) and columns
// warp_n0 + f*LANES_N*4 + lane_n*4 + {0..3} (f < FRAGS_N). A warp's float4 reads of one k
// row are LANES_M (or LANES_N) distinct, adjacent 16-byte words: conflict-free, the rest
// broadcast.
__device__ __forceinline__ void mma_tile(const float* as, const float* bs,
                                         float (&acc)[THREAD_M][THREAD_N]) {
#pragma unroll
  for (int k = 0; k < BLOCK_K; ++k) {
    float a[THREAD_M];  // column k of this thread's op(A) rows
    float b[THREAD_N];  // row k of this thread's op(B) columns
#pragma unroll
    for (int f = 0; f < FRAGS_M; ++f) {
      const float4 v = *reinterpret_cast<const float4*>(as + k * A_STRIDE + f * LANES_M * 4);
      a[4 * f + 0] = v.x, a[4 * f + 1] = v.y, a[4 * f + 2] = v.z, a[4 * f + 3] = v.w;
    }
#pragma unroll
    for (int f = 0; f < FRAGS_N; ++f) {
      const float4 v = *reinterpret_cast<const float4*>(bs + k * B_STRIDE + f * LANES_N * 4);
      b[4 * f + 0] = v.x, b[4 * f + 1] = v.y, b[4 * f + 2] = v.z, b[4 * f + 3] = v.w;
    }
#pragma unroll
    for (int i = 0; i < THREAD_M; ++i)
#pragma unroll
      for (int j = 0; j < THREAD_N; ++j) acc[i][j] = fmaf(a[i], b[j], acc[i][j]);
  }
}

// ---- epilogue -----------------------------------------------------------------------
// C = alpha * acc + beta * C for this thread's rows/columns (first row m, first column n as
// in mma_tile). With beta == 0, C is never read, so NaN in C cannot leak into the result.
__device__ __forceinline__ void store_tile(float* C, long long ldc, int M, int N, int m, int n,
                                           const float (&acc)[THREAD_M][THREAD_N], float alpha,
                                           float beta) {
#pragma unroll
  for (int i = 0; i < THREAD_M; ++i) {
    const int row = m + (i / 4) * LANES_M * 4 + i % 4;
    if (row >= M) continue;
    float* c_row = C + (long long)row * ldc;
#pragma unroll
    for (int f = 0; f < FRAGS_N; ++f) {
      const int col = n + f * LANES_N * 4;  // multiple of 4: 16-byte aligned when VEC_C == 4
      float v[4];
#pragma unroll
      for (int j = 0; j < 4; ++j) v[j] = alpha * acc[i][4 * f + j];
      if (VEC_C == 4 && col + 3 < N) {
        float4* dst = reinterpret_cast<float4*>(c_row + col);
        if (beta != 0.0f) {
          const float4 old = *dst;
          v[0] = fmaf(beta, old.x, v[0]), v[1] = fmaf(beta, old.y, v[1]);
          v[2] = fmaf(beta, old.z, v[2]), v[3] = fmaf(beta, old.w, v[3]);
        }
        *dst = make_float4(v[0], v[1], v[2], v[3]);
      } else {
#pragma unroll
        for (int j = 0; j < 4; ++j) {
          if (col + j >= N) break;
          c_row[col + j] = beta != 0.0f ? fmaf(beta, c_row[col + j], v[j]) : v[j];
        }
      }
    }
  }
}

// ---- CTA -> tile ----------------------------------------------------------------------
// Grouped order for L2 reuse: CTAs are taken RASTER_GROUP tile rows at a time, walking down
// the rows of a group before moving one tile column right, so the CTAs resident together
// share a few panels of A and B.
struct TileCoord {
  int m0, n0;  // first row and column of this CTA's C tile
};

__device__ __forceinline__ TileCoord tile_coord(int M, int N) {
  const int tiles_m = (M + BLOCK_M - 1) / BLOCK_M;
  const int tiles_n = (N + BLOCK_N - 1) / BLOCK_N;
  const int per_group = RASTER_GROUP * tiles_n;             // CTAs in a full group
  const int first_row = (blockIdx.x / per_group) * RASTER_GROUP;
  const int rows = min(tiles_m - first_row, RASTER_GROUP);  // the last group may be shorter
  const int in_group = blockIdx.x % per_group;
  return {(first_row + in_group % rows) * BLOCK_M, (in_group / rows) * BLOCK_N};
}

// ---- the kernel -------------------------------------------------------------------------
// Grid: ceil(M/BLOCK_M) * ceil(N/BLOCK_N) CTAs (1-D), THREADS threads, SMEM_TOTAL bytes of
// dynamic shared memory.
extern "C" __global__ void __launch_bounds__(THREADS, MIN_CTAS_PER_SM)
KERNEL_NAME(int M, int N, int K, const float* __restrict__ A, long long lda,
            const float* __restrict__ B, long long ldb, float* __restrict__ C, long long ldc,
            float alpha, float beta) {
  extern __shared__ __align__(16) float smem[];
  float* const as = smem;                       // [STAGES][BLOCK_K][A_STRIDE]  op(A) slices
  float* const bs = smem + STAGES * A_STAGE;    // [STAGES][BLOCK_K][B_STRIDE]  op(B) slices

  const TileCoord tile = tile_coord(M, N);
  const Operand a{A, lda, tile.m0, M};
  const Operand b{B, ldb, tile.n0, N};
  const bool interior = tile.m0 + BLOCK_M <= M && tile.n0 + BLOCK_N <= N;
  const int k_tiles = (K + BLOCK_K - 1) / BLOCK_K;

  // Copies slice kt into stage s; only slices touching an edge pay for predication.
  auto load_slice = [&](int kt, int s) {
    const int k0 = kt * BLOCK_K;
    if (interior && k0 + BLOCK_K <= K) {
      load_tile_a<false>(as + s * A_STAGE, a, k0, K);
      load_tile_b<false>(bs + s * B_STAGE, b, k0, K);
    } else {
      load_tile_a<true>(as + s * A_STAGE, a, k0, K);
      load_tile_b<true>(bs + s * B_STAGE, b, k0, K);
    }
  };

  // This thread's first fragment inside a stage (see mma_tile for the full map).
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int m_first = (warp / WARPS_N) * WARP_TILE_M + (lane / LANES_N) * 4;
  const int n_first = (warp % WARPS_N) * WARP_TILE_N + (lane % LANES_N) * 4;

  float acc[THREAD_M][THREAD_N];  // this thread's C elements, in registers
#pragma unroll
  for (int i = 0; i < THREAD_M; ++i)
#pragma unroll
    for (int j = 0; j < THREAD_N; ++j) acc[i][j] = 0.0f;

  // Pipeline fill: slices 0 .. STAGES-2 in flight, one commit group each (maybe empty).
#pragma unroll
  for (int s = 0; s < STAGES - 1; ++s) {
    if (s < k_tiles) load_slice(s, s);
    cp_async_commit();
  }

  int read_stage = 0;             // stage holding slice kt
  int write_stage = STAGES - 1;   // stage receiving slice kt + STAGES - 1
  for (int kt = 0; kt < k_tiles; ++kt) {
    cp_async_wait<STAGES - 2>();  // this thread's copies of slice kt have landed
    __syncthreads();              // everyone's have; and slice kt-1 (in write_stage) is consumed
    if (kt + STAGES - 1 < k_tiles) load_slice(kt + STAGES - 1, write_stage);
    cp_async_commit();
    mma_tile(as + read_stage * A_STAGE + m_first, bs + read_stage * B_STAGE + n_first, acc);
    read_stage = read_stage + 1 == STAGES ? 0 : read_stage + 1;
    write_stage = write_stage + 1 == STAGES ? 0 : write_stage + 1;
  }

  store_tile(C, ldc, M, N, tile.m0 + m_first, tile.n0 + n_first, acc, alpha, beta);
}
