// simt_gemm.cu — C = alpha * op(A) * op(B) + beta * C in float32 with plain FFMA (fp32 mode).
//
// Row-major like PyTorch. op(A) is M x K, op(B) is K x N, C is M x N at C[m*ldc + n].
//   TRANS_A = 0: A stored M x K, (m,k) at A[m*lda + k]   TRANS_A = 1: K x M, at A[k*lda + m]
//   TRANS_B = 0: B stored K x N, (k,n) at B[k*ldb + n]   TRANS_B = 1: N x K, at B[n*ldb + k]
//
// One CTA computes a BLOCK_M x BLOCK_N tile of C (CTAs in grouped_tile_coord order). Per K slice
// of BLOCK_K:
//   LoaderA / LoaderB   global -> shared with cp.async, both tiles stored K-outer
//                       (As[k][m], Bs[k][n]); a transpose happens on the way in
//   load_fragments      one k row of this thread's op(A) and op(B) elements, shared -> registers
//   outer_product       one rank-1 update of the register accumulators
// STAGES slices are in flight at the start; the copy of slice kt + STAGES into the stage of slice
// kt is issued at the last k step of slice kt, once every warp has read that stage. Fragments are
// double-buffered in registers across the slice boundary too: the first k row of the next slice
// is read before the last rank-1 update of this one, so no read waits on the barrier's wake-up.
// store_tile writes C at the end. Split-K (gridDim.y slices of K): C is the slice's part of the
// workspace; compiled with SPLIT_K_FINISH (configs of 2..8 slices) and launched with
// finish.arrivals set, the tile's last CTA then adds the slices into the caller's C itself
// (common/split_k_finish.cuh), else fp32/split_k_reduce.cu does. Kernels for other splits carry
// no finishing code.
// Structure (common/work_item.cuh): WORK_LIST = 1: CTA x takes tile and K range from work
// item x instead (a structured product's tiles, longest first); FILL = 1 (2): elements above
// (below) the diagonal of C are written as zeros.
// EDGE_STRIPS = 1: M and N are the part of C that whole tiles cover; fp32/edge_strips.cu, launched
// right after as this kernel's programmatic dependent, writes the thin edges past them: every CTA
// lets it start at once, so that it runs in the SMs this kernel's last wave leaves idle.
//
// The generator prepends a prologue of constants; the defaults below are used only when
// this file is compiled on its own (kernel development).
#include "common/address.cuh"
#include "common/cp_async.cuh"
#include "common/grid_dependency.cuh"
#include "common/smem.cuh"
#include "common/split_k_finish.cuh"
#include "common/split_k_slice.cuh"
#include "common/tile_order.cuh"
#include "common/work_item.cuh"

#ifndef KERNEL_NAME
#define KERNEL_NAME simt_gemm_fp32
constexpr int BLOCK_M = 128, BLOCK_N = 128, BLOCK_K = 8;  // CTA tile of C, K slice
constexpr int WARPS_M = 2, WARPS_N = 4;                    // warp grid of the CTA
constexpr int THREAD_M = 8, THREAD_N = 8;                  // C elements per thread
constexpr int STAGES = 3, SPLIT_K = 1, RASTER_GROUP = 8;
constexpr int TRANS_A = 0, TRANS_B = 0;
constexpr int VEC_A = 4, VEC_B = 4, VEC_C = 4;             // 4: 16-byte accesses allowed
constexpr int FILL = 0, WORK_LIST = 0;                      // structure (see above)
constexpr int SPLIT_K_FINISH = 0;                           // 1: split-K can be finished here (see below)
constexpr int EARLY_BARRIER = 0;                            // 1: the slice barrier a row early (the K loop)
constexpr int EDGE_STRIPS = 0;                              // 1: the edges are another kernel's (see above)
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
// writes fall into 32 distinct banks (see TileLoader).
__host__ __device__ constexpr int smem_stride(int block_x) { return block_x + (36 - block_x % 32) % 32; }
constexpr int A_STRIDE = smem_stride(BLOCK_M);
constexpr int B_STRIDE = smem_stride(BLOCK_N);
constexpr int A_STAGE = BLOCK_K * A_STRIDE;        // floats of one As[BLOCK_K][A_STRIDE] slice
constexpr int B_STAGE = BLOCK_K * B_STRIDE;
constexpr int SMEM_TOTAL = STAGES * (A_STAGE + B_STAGE) * 4;  // bytes
// Thread tiles of at most 64 accumulators are held to 128 registers a thread, so that
// 65536 / (128 * THREADS) CTAs share an SM (two of 256 threads, four of 128) and hide each
// other's barriers; larger tiles take what they need, one CTA per SM (codegen
// estimated_registers agrees).
constexpr int MIN_CTAS_PER_SM = THREAD_M * THREAD_N <= 64 && THREADS <= 512 ? 65536 / (128 * THREADS) : 1;

static_assert(THREADS <= 1024, "at most 1024 threads per CTA");
static_assert(BLOCK_M % WARPS_M == 0 && BLOCK_N % WARPS_N == 0, "warps must tile the CTA tile");
static_assert(THREAD_M % 4 == 0 && THREAD_N % 4 == 0, "thread tiles are made of float4 fragments");
static_assert(WARP_TILE_M % THREAD_M == 0 && WARP_TILE_N % THREAD_N == 0,
              "thread tiles must tile the warp tile");
static_assert(LANES_M * LANES_N == 32, "the thread tiles of one warp must cover its warp tile exactly");
static_assert(BLOCK_K % 8 == 0, "BLOCK_K must be a multiple of 8 (the transposing loader's k run)");
static_assert(BLOCK_M % 4 == 0 && BLOCK_N % 4 == 0, "tile rows are copied in float4 units");
static_assert(STAGES >= 2, "the pipeline needs at least two stages");
// SPLIT_K is informational: the number of K slices is gridDim.y, read at run time (below).
static_assert(RASTER_GROUP >= 1, "RASTER_GROUP counts tile rows per launch group");
static_assert((VEC_A == 1 || VEC_A == 4) && (VEC_B == 1 || VEC_B == 4) && (VEC_C == 1 || VEC_C == 4),
              "vector widths are 1 or 4 floats");
static_assert(SMEM_TOTAL <= 227 * 1024, "shared memory exceeds the 227 KiB an sm_90 CTA may use");
static_assert(SMEM_BYTES < 0 || SMEM_BYTES == SMEM_TOTAL,
              "host and template disagree on the shared-memory size (codegen shared_memory_bytes)");

// ---- global -> shared: one BLOCK_K x BLOCK_X slice of an operand into tile[k][x] ----------
// Element (k, x) of op(A) (x = m) or op(B) (x = n). Each thread copies SLOTS pieces per slice,
// all at compile-time offsets (dk(s), dx(s)) from its first piece, so a slot costs one address
// instruction (add_rows) and one cp.async. Three thread maps:
//
//  X_CONTIGUOUS, VEC = 4   x contiguous in global memory as in shared memory (A stored K x M,
//                          B stored K x N), rows 16-byte aligned: one 16-byte copy per float4;
//                          consecutive threads take consecutive float4 of a row.
//  X_CONTIGUOUS, VEC = 1   the same with 4-byte copies (rows not 16-byte aligned).
//  !X_CONTIGUOUS           k contiguous in global memory (A stored M x K, B stored N x K): the
//                          slice is transposed on the way in with 4-byte copies. A warp copies
//                          8 k x 4 x per instruction, lane -> (k = lane % 8, x = lane / 8): each
//                          8-lane group reads one 32-byte run of a global row (coalesced), and
//                          the shared writes k*STRIDE + x with STRIDE = 4 (mod 32) hit banks
//                          4*(lane % 8) + lane / 8, all 32 distinct. Warps take 4-row groups
//                          round-robin, each with all BLOCK_K / 8 of its k runs.
//
// CHECKED copies predicate every element against X and K (src-size 0 zero-fills; the source
// address then falls back to the matrix base); unchecked slices are known to be in range.
template <int BLOCK_X, bool X_CONTIGUOUS, int VEC>
struct TileLoader {
  static constexpr int STRIDE = smem_stride(BLOCK_X);
  static constexpr int WARPS = THREADS / 32;
  static constexpr int WIDTH = X_CONTIGUOUS ? VEC : 1;            // floats per copy
  static constexpr int UNITS_PER_ROW = BLOCK_X / WIDTH;            // copies per k row (contiguous maps)
  static constexpr int UNITS = BLOCK_K * UNITS_PER_ROW;           // copies per slice
  static constexpr int K_RUNS = BLOCK_K / 8;                      // transposed map: k runs per row
  static constexpr int ROW_GROUPS = BLOCK_X / (4 * WARPS);        // transposed map: 4-row groups per warp
  static constexpr int SLOTS = X_CONTIGUOUS ? (UNITS + THREADS - 1) / THREADS : K_RUNS * ROW_GROUPS;
  static constexpr bool ALL_ACTIVE = !X_CONTIGUOUS || UNITS >= THREADS;  // else threads >= UNITS idle

  static_assert(!X_CONTIGUOUS || UNITS_PER_ROW % THREADS == 0 || THREADS % UNITS_PER_ROW == 0,
                "a contiguous row must be a multiple or a divisor of the CTA's threads");
  static_assert(!X_CONTIGUOUS || UNITS % THREADS == 0 || UNITS < THREADS,
                "copies must split evenly over the threads");
  static_assert(X_CONTIGUOUS || BLOCK_X % (4 * WARPS) == 0,
                "the transposing loader needs BLOCK_X to be a multiple of 4 rows per warp");
  static_assert(X_CONTIGUOUS || STRIDE % 32 == 4, "the transposing loader needs STRIDE = 4 (mod 32)");

  // Offsets of slot s from the thread's first piece, in k and in x.
  __host__ __device__ static constexpr int dk(int s) {
    return X_CONTIGUOUS ? (s * THREADS) / UNITS_PER_ROW : (s % K_RUNS) * 8;
  }
  __host__ __device__ static constexpr int dx(int s) {
    return X_CONTIGUOUS ? ((s * THREADS) % UNITS_PER_ROW) * WIDTH : (s / K_RUNS) * 4 * WARPS;
  }

  const float* matrix;  // the operand's base: source of zero-filled copies
  const float* first;   // this thread's first element of the slice at k0 = 0
  unsigned row_bytes;   // ld * 4: step between global rows (rows are k when X_CONTIGUOUS, else x)
  int x_first;          // x0 + this thread's first x
  int k_first;          // this thread's first k inside a slice
  int X;                // extent along x (M or N)
  int smem_first;       // this thread's first float inside a stage
  bool active;

  __device__ __forceinline__ TileLoader(const float* ptr, long long ld, int x0, int x_extent) {
    const int tid = threadIdx.x;
    int x_in, k_in;
    if (X_CONTIGUOUS) {
      k_in = tid / UNITS_PER_ROW;
      x_in = (tid % UNITS_PER_ROW) * WIDTH;
    } else {
      k_in = tid % 8;                   // lane % 8
      x_in = (tid / 32) * 4 + tid % 32 / 8;  // the warp's 4-row group, lane / 8 inside it
    }
    matrix = ptr;
    first = X_CONTIGUOUS ? ptr + (long long)k_in * ld + (x0 + x_in) : ptr + (long long)(x0 + x_in) * ld + k_in;
    row_bytes = static_cast<unsigned>(ld) * 4u;
    x_first = x0 + x_in;
    k_first = k_in;
    X = x_extent;
    smem_first = k_in * STRIDE + x_in;
    active = ALL_ACTIVE || tid < UNITS;
  }

  // Copies slice [k0, k0 + BLOCK_K) into `stage` (tile[BLOCK_K][STRIDE]).
  template <bool CHECKED>
  __device__ __forceinline__ void copy(float* stage, int k0, int K) const {
    if (!ALL_ACTIVE && !active) return;
    // The slice's first element for this thread: k0 more columns (k contiguous) or rows.
    const float* slice = X_CONTIGUOUS ? add_rows(first, k0, row_bytes) : first + k0;
    const unsigned dst0 = shared_address(stage + smem_first);
#pragma unroll
    for (int s = 0; s < SLOTS; ++s) {
      const unsigned dst = dst0 + (dk(s) * STRIDE + dx(s)) * 4;
      // Global rows are k (contiguous x) or x (contiguous k); the other offset is in-row.
      const int rows = X_CONTIGUOUS ? dk(s) : dx(s);
      const float* src = (rows == 0 ? slice : add_rows(slice, rows, row_bytes)) + (X_CONTIGUOUS ? dx(s) : dk(s));
      if (!CHECKED) {
        if (WIDTH == 4) cp_async_16(dst, src); else cp_async_4(dst, src);
        continue;
      }
      const int k = k0 + k_first + dk(s);
      const int x = x_first + dx(s);
      // Elements in range of this copy: 0..WIDTH (a float4 may straddle the X edge).
      const int valid = k < K ? min(max(X - x, 0), WIDTH) : 0;
      if (WIDTH == 4) cp_async_16(dst, valid > 0 ? src : matrix, valid * 4);
      else cp_async_4(dst, valid > 0 ? src : matrix, valid * 4);
    }
  }
};

// op(A): M is contiguous in global memory when A is stored K x M (TRANS_A = 1).
using LoaderA = TileLoader<BLOCK_M, TRANS_A != 0, VEC_A>;
// op(B): N is contiguous in global memory when B is stored K x N (TRANS_B = 0).
using LoaderB = TileLoader<BLOCK_N, TRANS_B == 0, VEC_B>;

// ---- shared -> registers -> FFMA ----------------------------------------------------
// as / bs point at this thread's first fragment of one stage: lane (lane_m, lane_n) of a warp
// owns C rows  warp_m0 + f*LANES_M*4 + lane_m*4 + {0..3} (f < FRAGS_M) and columns
// warp_n0 + f*LANES_N*4 + lane_n*4 + {0..3} (f < FRAGS_N). A warp's float4 reads of one k
// row are LANES_M (or LANES_N) distinct, adjacent 16-byte words: conflict-free, the rest
// broadcast.
struct Fragments {
  float a[THREAD_M];  // column k of this thread's op(A) rows
  float b[THREAD_N];  // row k of this thread's op(B) columns
};

// as, bs: shared addresses of this thread's first fragment in the stage (32-bit, so that every
// read below is one ld.shared.v4 at a constant offset; lds_v4 is inline PTX, which NVVM cannot
// split: from C++ float4 reads it sometimes made one of them an 8-byte-used v4 and a v2, differently
// from compile to compile of the same source).
__device__ __forceinline__ void load_fragments(unsigned as, unsigned bs, int k, Fragments& f) {
#pragma unroll
  for (int i = 0; i < FRAGS_M; ++i) {
    const float4 v = lds_v4(as + 4 * (k * A_STRIDE + i * LANES_M * 4));
    f.a[4 * i + 0] = v.x, f.a[4 * i + 1] = v.y, f.a[4 * i + 2] = v.z, f.a[4 * i + 3] = v.w;
  }
#pragma unroll
  for (int j = 0; j < FRAGS_N; ++j) {
    const float4 v = lds_v4(bs + 4 * (k * B_STRIDE + j * LANES_N * 4));
    f.b[4 * j + 0] = v.x, f.b[4 * j + 1] = v.y, f.b[4 * j + 2] = v.z, f.b[4 * j + 3] = v.w;
  }
}

__device__ __forceinline__ void outer_product(const Fragments& f, float (&acc)[THREAD_M][THREAD_N]) {
#pragma unroll
  for (int i = 0; i < THREAD_M; ++i)
#pragma unroll
    for (int j = 0; j < THREAD_N; ++j) acc[i][j] = fmaf(f.a[i], f.b[j], acc[i][j]);
}

// ---- epilogue -----------------------------------------------------------------------
// C = alpha * acc + beta * C for this thread's rows/columns (first row m, first column n as
// in load_fragments). With beta == 0, C is never read, so NaN in C cannot leak into the result.
// FILL: the elements outside the kept triangle are zeros (C not read there).
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
      if (FILL != 0 && !fill_keeps_all<FILL>(row, col, 4)) {
#pragma unroll
        for (int j = 0; j < 4; ++j) {
          if (col + j >= N) break;
          c_row[col + j] = !fill_keeps<FILL>(row, col + j) ? 0.0f
                           : beta != 0.0f                 ? fmaf(beta, c_row[col + j], v[j])
                                                          : v[j];
        }
        continue;
      }
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

// ---- the kernel -------------------------------------------------------------------------
// Grid: ceil(M/BLOCK_M) * ceil(N/BLOCK_N) CTAs along x, split-K slices along y, THREADS
// threads, SMEM_TOTAL bytes of dynamic shared memory. work: WORK_LIST's items (one per CTA
// column), otherwise unused. finish: split-K finished in this kernel (see the top), else unused.
extern "C" __global__ void __launch_bounds__(THREADS, MIN_CTAS_PER_SM)
KERNEL_NAME(int M, int N, int K, const float* __restrict__ A, long long lda,
            const float* __restrict__ B, long long ldb, float* __restrict__ C, long long ldc,
            float alpha, float beta, const int4* __restrict__ work, SplitKFinish finish) {
  extern __shared__ __align__(16) float smem[];
  float* const as = smem;                       // [STAGES][BLOCK_K][A_STRIDE]  op(A) slices
  float* const bs = smem + STAGES * A_STAGE;    // [STAGES][BLOCK_K][B_STRIDE]  op(B) slices

  if constexpr (EDGE_STRIPS) griddepcontrol_launch_dependents();  // the edge strips may start

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

  const LoaderA load_a(A, lda, tile.m0, M);
  const LoaderB load_b(B, ldb, tile.n0, N);
  const bool interior = tile.m0 + BLOCK_M <= M && tile.n0 + BLOCK_N <= N;
  const int k_tiles = (K + BLOCK_K - 1) / BLOCK_K;

  // Copies slice kt into stage s; only slices touching an edge pay for predication.
  auto load_slice = [&](int kt, int s) {
    const int k0 = kt * BLOCK_K;
    if (interior && k0 + BLOCK_K <= K) {
      load_a.copy<false>(as + s * A_STAGE, k0, K);
      load_b.copy<false>(bs + s * B_STAGE, k0, K);
    } else {
      load_a.copy<true>(as + s * A_STAGE, k0, K);
      load_b.copy<true>(bs + s * B_STAGE, k0, K);
    }
  };

  // This thread's first fragment inside a stage (see load_fragments for the full map).
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int m_first = (warp / WARPS_N) * WARP_TILE_M + (lane / LANES_N) * 4;
  const int n_first = (warp % WARPS_N) * WARP_TILE_N + (lane % LANES_N) * 4;

  float acc[THREAD_M][THREAD_N];  // this thread's C elements, in registers
#pragma unroll
  for (int i = 0; i < THREAD_M; ++i)
#pragma unroll
    for (int j = 0; j < THREAD_N; ++j) acc[i][j] = 0.0f;

  // Pipeline fill: slices 0 .. STAGES-1 in flight, one commit group each (maybe empty).
#pragma unroll
  for (int s = 0; s < STAGES; ++s) {
    if (s < k_tiles) load_slice(s, s);
    cp_async_commit();
  }
  cp_async_wait<STAGES - 1>();  // this thread's copies of slice 0 have landed
  __syncthreads();              // everyone's have

  // The K loop, fully unrolled inside a slice. Before the rank-1 update of k row k, the
  // fragments of the next k row are read; at the slice's last row that is row 0 of the next
  // slice, read after the barrier that makes it visible and frees this slice's stage (every
  // read of it is issued by then) for the copies of slice kt + STAGES. The barrier sits at
  // BARRIER_ROW: the last row, where row 0's reads follow the loader's copies; or, with
  // EARLY_BARRIER, one row earlier, so that row 0's reads are issued before the copies' address
  // arithmetic, a whole row of FFMAs ahead of their use like every other row's.
  constexpr int BARRIER_ROW = EARLY_BARRIER ? BLOCK_K - 2 : BLOCK_K - 1;
  Fragments frag[2];
  const unsigned as_first = shared_address(as + m_first), bs_first = shared_address(bs + n_first);
  unsigned as_stage = as_first;  // this thread's first fragment in the stage read next
  unsigned bs_stage = bs_first;
  load_fragments(as_stage, bs_stage, 0, frag[0]);
  int stage = 0;  // stage holding slice kt
  for (int kt = 0; kt < k_tiles; ++kt) {
#pragma unroll
    for (int k = 0; k < BLOCK_K; ++k) {
      // Row k + 1, or with EARLY_BARRIER at the last row, row 0 of slice kt + 1 (the read
      // stage moved on at the barrier; past the last slice a stale stage, never used).
      if (EARLY_BARRIER || k + 1 < BLOCK_K)
        load_fragments(as_stage, bs_stage, (k + 1) % BLOCK_K, frag[(k + 1) % 2]);
      if (k == BARRIER_ROW) {
        // Groups committed so far: STAGES + kt; STAGES - 2 pending leaves slice kt + 1 landed.
        cp_async_wait<STAGES - 2>();
        __syncthreads();  // slice kt + 1 visible to all; every warp's reads of slice kt are issued
        if (EARLY_BARRIER) {
          const int next = stage + 1 == STAGES ? 0 : stage + 1;  // slice kt + 1's
          as_stage = as_first + 4 * next * A_STAGE;
          bs_stage = bs_first + 4 * next * B_STAGE;
        }
      }
      if (k == BLOCK_K - 1) {
        // Slice kt's stage is free since the barrier: slice kt + STAGES goes there.
        if (kt + STAGES < k_tiles) load_slice(kt + STAGES, stage);
        cp_async_commit();
        stage = stage + 1 == STAGES ? 0 : stage + 1;
        if (!EARLY_BARRIER) {
          as_stage = as_first + 4 * stage * A_STAGE;
          bs_stage = bs_first + 4 * stage * B_STAGE;
          load_fragments(as_stage, bs_stage, 0, frag[(k + 1) % 2]);
        }
      }
      outer_product(frag[k % 2], acc);
    }
  }

  store_tile(C, ldc, M, N, tile.m0 + m_first, tile.n0 + n_first, acc, alpha, beta);
  // The slices' base is C moved back from this CTA row's slice (recomputed: not kept live
  // through the K loop).
  if constexpr (SPLIT_K_FINISH)
    if (gridDim.y > 1 && finish.arrivals != nullptr && split_k_arrive_last(finish.arrivals))
      split_k_finish_tile<BLOCK_M, BLOCK_N, THREADS, FILL>(C - (long long)blockIdx.y * M * ldc, ldc, gridDim.y, M, N,
                                                           tile.m0, tile.n0, finish);
}
