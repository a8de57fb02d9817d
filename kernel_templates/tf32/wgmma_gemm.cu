// wgmma_gemm.cu — C = alpha * op(A) * op(B) + beta * C on TF32 tensor cores (sm_90a), modes
// tf32x3 (float32-accurate, TF32X3 = 1) and tf32 (one TF32 product, TF32X3 = 0).
//
// Inputs are the K-major planes written by tf32/split_operand.cu: A as M rows of K
// (big, and small for tf32x3), B as N rows of K, each read through a TMA tensor map
// ({K, rows}, box {SWIZZLE_K, BLOCK_M or BLOCK_N}, swizzle SWIZZLE_BYTES; FLOAT32 for tf32x3,
// TFLOAT32 for tf32: in tf32 mode every copy rounds its floats to TF32 on the way, so the kernel
// rounds nothing itself). C is row-major, C[m * ldc + n].
// A_IN_REGISTERS = 1 ("RS", kernel-design.md section 2): A instead comes from the caller's
// float32 matrix (no pre-pass; tensor map {K, M}, box {32, BLOCK_M}, or for an A stored K x M
// (A_MN_MAJOR) {M, K}, box {32, BLOCK_K}), and the consumers split it in registers for tf32x3
// (tf32/a_fragments.cuh) for wgmma's register-A form. TRANSPOSE_C = 1: the host
// swapped the operands to compute C^T = op(B)^T op(A)^T, so element (m, n) of the kernel's
// M x N result is C[n * ldc + m]. CONVERT_B = 1 (tf32 with A in registers): there is no
// pre-pass either; warps 1..3 of the producer warpgroup write B's plane while the kernel runs
// (tf32/convert_operand.cuh). TRANSFORM_B = 1 (A in registers): B too comes raw from the caller's
// matrix, stored K x N (MN-major; tensor map {N, K}, box {32, BLOCK_K}), and warps 1..3 of the
// producer warpgroup rewrite each stage's tile K-major (tf32x3: split) into the stage's
// planes in shared memory (tf32/transform_operand.cuh): no pre-pass at all. B_K_MAJOR = 1 (with
// TRANSFORM_B): B comes raw from a K-major matrix instead (tensor map {K, N}, box {32, BLOCK_N},
// as a plane), straight into the stage's big plane, and the same warps split it there in place
// (the small part into the small plane), or in tf32 mode mask a triangular B' there; an
// unmasked K-major B in tf32 mode is ready as the copy lands, no warp touching it (B_WARPS_IDLE).
//
// Structure: one persistent CTA per SM walks its share of the output tiles
// (tf32/tile_schedule.cuh: whole tiles t = blockIdx.x, +gridDim.x, ..., and with STREAM_K = 1
// the last wave's tiles cut along K, the partial sums passed through `sk`, tf32/stream_k.cuh)
//   warpgroup 0 (producer)   one thread issues the TMA copies of each K stage of each tile
//                            into a STAGES-deep ring: wait empty[s], expect_tx full[s], copy
//   warpgroups 1..CONSUMERS  each owns 64 rows of the BLOCK_M x BLOCK_N tile: wait full[s],
//                            wgmma from shared memory, release empty[s]; then the epilogue
// Structure: WORK_LIST = 1 (a structured product): CTA b walks its share of a host-built
// list of tiles and K ranges instead (tf32/tile_schedule.cuh); a tile with no K units is
// stored with no arithmetic (with beta = 0, zeros in 16-byte stores: store_zeros). FILL = 1
// (2): elements of the kernel's result above (below) its diagonal are written as zeros (the
// host passes the fill of C^T when TRANSPOSE_C).
// A_KEEP, B_KEEP (a triangular operand read raw: A in registers, B transformed or rounded):
// the kernel's A'(m, k) or B'(n, k) is taken as zero outside its triangle (1: k <= row kept,
// 2: k >= row kept) and, with A_UNIT / B_UNIT, as one on the diagonal, whatever memory holds
// there (tf32/operand_triangle.cuh). The pre-pass masks plane-fed operands itself.
// A_SYM (A in registers, K-major, symmetric: A' = A'^T, only one triangle of its storage X
// read): each 32-row sub-block of a stage's A tile is copied by TMA from the stored side, X(r, c)
// as rows r, or where the sub-block lies on the other side from its mirror X(c, r) as rows c (a
// [32 k][32 m] box); on the diagonal the one box holds both (tf32/a_fragments.cuh, SymSide).
// No pre-pass copies it dense.
// SPLIT_K > 1 (huge K, or too few tiles to fill the SMs): the work list's items are pieces of
// tiles along K; each piece's partial sum (alpha 1, beta 0 from the host) goes to its slot of
// the split-K workspace, C + slot * (rows of C) * ldc, and fp32/split_k_reduce.cu adds the
// slots in order: the same bits on every run. FILL is 0 then (the reduction applies it).
// tf32x3 accumulation (kernel-design.md section 1): per ACC_BLOCK_K values of K a fresh block
// accumulator gets aS·bB + aB·bS first (scale-d = 0 on the first wgmma), then, if the
// pre-pass saw a non-finite value, NaN -> 0 on that partial, then aB·bB; an FP32 add moves
// the block into the running sum (ACC_BUFFERS = 2: the next block is issued before the add;
// SUM_BLOCKS > 0: a two-level running sum). tf32: one product, straight into the sum or, with
// ACC_BLOCK_K > 0, in FP32-added blocks of ACC_BLOCK_K.
//
// The generator prepends a prologue of constants; the defaults below are used only when
// this file is compiled on its own (kernel development).
#include "common/cluster.cuh"
#include "common/grid_dependency.cuh"
#include "common/mbarrier.cuh"
#include "common/smem.cuh"
#include "common/tma.cuh"
#include "common/tf32_split.cuh"
#include "common/wgmma.cuh"

#ifndef KERNEL_NAME
#define KERNEL_NAME wgmma_gemm_tf32x3
constexpr int TF32X3 = 1;                                  // 1: tf32x3, 0: tf32
constexpr int BLOCK_M = 128, BLOCK_N = 128, BLOCK_K = 32;  // CTA tile of C, K per stage
constexpr int STAGES = 3;                                  // shared-memory ring depth
constexpr int CONSUMERS = 2;                               // consumer warpgroups (64 rows each)
constexpr int ACC_BLOCK_K = 32;    // K per FP32 accumulation block (tf32: 0 = none, else a multiple of BLOCK_K)
constexpr int ACC_BUFFERS = 2;     // tf32x3: block accumulators (2: the next block runs during the add)
constexpr int SUM_BLOCKS = 0;      // tf32x3: blocks per mid-level sum (0: one-level running sum)
constexpr int RASTER_GROUP = 8;                            // tile rows per launch-order group
constexpr int A_IN_REGISTERS = 0;  // 1: A from the caller, split in registers (RS; tf32: rounded by the TMA copy)
constexpr int A_ROUND = 1;         // RS: 1: A's big part is rna(x); 0: x truncated, as the hardware reads it
constexpr int A_MN_MAJOR = 0;      // RS: the raw A is stored K x M (M contiguous)
constexpr int TRANSPOSE_C = 0;     // 1: the result is C^T (operands swapped by the host)
constexpr int CONVERT_B = 0;       // tf32 RS: 1: the producer warpgroup writes B's plane (no pre-pass)
constexpr int CONVERT_TRANSPOSED = 0, CONVERT_VEC = 4;  // CONVERT_B: B's source layout, vector width
constexpr int TRANSFORM_B = 0;     // RS: 1: B raw (stored K x N), made K-major in shared memory by the producer warpgroup
constexpr int B_K_MAJOR = 0;       // TRANSFORM_B: 1: B raw K-major (stored N x K), split (tf32: masked) in place instead
constexpr int STREAM_K = 0;        // 1: the tiles of the last wave are shared out along K (tf32/tile_schedule.cuh)
constexpr int CLUSTER = 1;         // 2: CTA pairs on tiles side by side along N, each loading half of A for both
constexpr int FILL = 0, WORK_LIST = 0;  // structure (see above)
constexpr int A_KEEP = 0, A_UNIT = 0, B_KEEP = 0, B_UNIT = 0;  // raw triangular operands (see above)
constexpr int A_SYM = 0;           // RS: A' symmetric, read from its stored triangle (1 lower, 2 upper; see above)
constexpr int SPLIT_K = 1;         // > 1: K pieces of a work list, partial sums to slots (see above)
constexpr int PDL = 0;             // 1: launched as a programmatic dependent of the pre-pass (see the kernel)
constexpr int PRODUCER_REGS = 40, CONSUMER_REGS = 232;     // setmaxnreg budgets (CONSUMERS > 1)
constexpr int SMEM_BYTES = -1;                             // host's number; < 0: unchecked
#endif
// B' from the pre-pass in K_PERMUTED's order (below): a macro the prologue defines where it
// applies, so that the other kernels' modules stay as they were (NVRTC keeps a namespace-scope
// constexpr as a module global).
#ifndef B_PLANES_PERMUTED
#define B_PLANES_PERMUTED 0
#endif

// ---- derived shape -----------------------------------------------------------------
constexpr int PLANES = TF32X3 ? 2 : 1;               // big (+ small) per operand
constexpr int THREADS = 128 * (1 + CONSUMERS);       // producer warpgroup + consumers
constexpr int SWIZZLE_K = BLOCK_K < 32 ? BLOCK_K : 32;  // K values per shared row = TMA box width
constexpr int SWIZZLE_BYTES = SWIZZLE_K * 4;         // 32, 64 or 128-byte swizzle
constexpr int K_SUBTILES = BLOCK_K / SWIZZLE_K;      // TMA boxes per operand plane per stage
constexpr int STEPS_PER_ROW = SWIZZLE_K / 8;         // wgmma k8 steps per shared row
constexpr int K_STEPS = BLOCK_K / 8;                 // wgmma k8 steps per stage
constexpr int A_TILE_BYTES = BLOCK_M * BLOCK_K * 4;  // one plane of A: [K_SUBTILES][BLOCK_M][SWIZZLE_K]
constexpr int B_TILE_BYTES = BLOCK_N * BLOCK_K * 4;  // one plane of B: [K_SUBTILES][BLOCK_N][SWIZZLE_K]
constexpr int PLANE_BYTES = A_TILE_BYTES + B_TILE_BYTES;
// A stage. Planes: [PLANES][A tile, B tile]. RS: [raw A tile][PLANES][B tile], and with
// TRANSFORM_B (MN-major B) then the raw B tile the planes are written from.
constexpr int RAW_B_TILE = TRANSFORM_B && !B_K_MAJOR;  // B_K_MAJOR: TMA writes the big plane itself
// tf32 mode, B K-major and unmasked: the rounding copy leaves the transform warps nothing to do,
// and the consumers wait for the copy alone (no ready[s]).
constexpr bool B_WARPS_IDLE = TRANSFORM_B && B_K_MAJOR && !TF32X3 && B_KEEP == 0;
constexpr int STAGE_BYTES =
    A_IN_REGISTERS ? A_TILE_BYTES + (PLANES + RAW_B_TILE) * B_TILE_BYTES : PLANES * PLANE_BYTES;
// What TMA writes per stage (TRANSFORM_B: the raw tiles only).
constexpr int TMA_STAGE_BYTES = TRANSFORM_B ? A_TILE_BYTES + B_TILE_BYTES : STAGE_BYTES;
constexpr int SMEM_ALIGN = 1024;                     // 128-byte swizzle atom
// CONVERT_B: a 64 x 68-float staging tile and the claimed unit (tf32/convert_operand.cuh).
constexpr int CONVERT_SMEM_BYTES = CONVERT_B ? 64 * 68 * 4 + 16 : 0;
// Barriers full[], empty[], with TRANSFORM_B also ready[] and a flag word per stage (B held inf or NaN).
constexpr int BARRIER_BYTES = (TRANSFORM_B ? 4 : 2) * STAGES * 8;
constexpr int SMEM_TOTAL = SMEM_ALIGN + STAGES * STAGE_BYTES + BARRIER_BYTES + CONVERT_SMEM_BYTES;

// tf32x3 accumulation blocks: a consumer step holds GROUP_STAGES stages and runs
// GROUP_BLOCKS blocks of ACC_STEPS k8 steps over them.
constexpr int ACC_STEPS = TF32X3 ? ACC_BLOCK_K / 8 : K_STEPS;  // k8 steps per tf32x3 block
constexpr int GROUP_STAGES = (TF32X3 && ACC_BLOCK_K > BLOCK_K) ? ACC_BLOCK_K / BLOCK_K : 1;
constexpr int GROUP_BLOCKS = GROUP_STAGES * K_STEPS / ACC_STEPS;
// tf32: stages per FP32 accumulation block (0: no blocks, the tensor cores accumulate all of K).
constexpr int TF32_BLOCK_STAGES = (!TF32X3 && ACC_BLOCK_K > 0) ? ACC_BLOCK_K / BLOCK_K : 0;
// K_PERMUTED (A raw K-major in registers, B transformed, no triangular operand): inside each
// 32-wide K block the products run over K in a permuted order, the same for A and B. Logical
// position q + 4 j (q = 0..3, j = 0..7) is K value 8 q + j, so the A fragments a thread holds for
// a block (logical q + 4 j for its q = lane % 4) are consecutive floats of its rows: one 16-byte
// load per row and two k8 steps instead of four 4-byte ones (tf32/a_fragments.cuh). The
// transform warps write B's planes in the same order at no cost: chunk c of a plane row holds
// K values c, c + 8, c + 16, c + 24 (tf32/transform_operand.cuh); so does the pre-pass where
// the host asks it to (B_PLANES_PERMUTED: B' from planes written by tf32/split_operand.cu with
// PERMUTE_K, codegen's wgmma_b_planes_permuted).
constexpr bool K_PERMUTED = A_IN_REGISTERS && !A_MN_MAJOR && ((TRANSFORM_B && !B_K_MAJOR) || B_PLANES_PERMUTED) &&
                            A_KEEP == 0 && A_SYM == 0 && B_KEEP == 0 && (TF32X3 ? ACC_STEPS : K_STEPS) % 2 == 0;
static_assert(!B_PLANES_PERMUTED || (K_PERMUTED && !TRANSFORM_B && !CONVERT_B),
              "B_PLANES_PERMUTED: B' from the pre-pass, in an order only a K-major A in registers reads");
constexpr bool USE_SETMAXNREG = CONSUMERS > 1;

static_assert(TF32X3 == 0 || TF32X3 == 1, "TF32X3 is 0 (tf32) or 1 (tf32x3)");
static_assert((A_IN_REGISTERS == 0 || A_IN_REGISTERS == 1) && (A_ROUND == 0 || A_ROUND == 1) &&
                  (A_MN_MAJOR == 0 || A_MN_MAJOR == 1) && (TRANSPOSE_C == 0 || TRANSPOSE_C == 1),
              "A_IN_REGISTERS, A_ROUND, A_MN_MAJOR and TRANSPOSE_C are 0 or 1");
static_assert(A_IN_REGISTERS || (A_ROUND == 1 && A_MN_MAJOR == 0),
              "A_ROUND and A_MN_MAJOR describe a raw A (A_IN_REGISTERS)");
static_assert(!A_IN_REGISTERS || BLOCK_K % 32 == 0, "a raw A tile is made of 128-byte swizzled rows of 32 floats");
static_assert(CONSUMERS == 1 || CONSUMERS == 2, "one or two consumer warpgroups");
static_assert(BLOCK_M == 64 * CONSUMERS, "each consumer warpgroup owns one m64 row slice");
static_assert(BLOCK_N == 64 || BLOCK_N == 96 || BLOCK_N == 128 || BLOCK_N == 160 ||
                  BLOCK_N == 192 || BLOCK_N == 256,
              "BLOCK_N must be a wgmma_tf32 width of common/wgmma.cuh (64..256)");
static_assert(BLOCK_K == 16 || BLOCK_K == 32 || BLOCK_K == 64 || BLOCK_K == 128,
              "BLOCK_K: 16 (64-byte swizzle) or a multiple of 32 (128-byte swizzle rows)");
static_assert(BLOCK_M <= 256 && BLOCK_N <= 256, "a TMA box has at most 256 rows");
static_assert(!TF32X3 || (ACC_BLOCK_K % 8 == 0 && ACC_BLOCK_K >= 8), "ACC_BLOCK_K is a multiple of the k8 step");
static_assert(TF32X3 || ACC_BLOCK_K == 0 || (ACC_BLOCK_K % BLOCK_K == 0 && ACC_BLOCK_K > 0),
              "tf32: ACC_BLOCK_K is 0 (no FP32 blocks) or a multiple of BLOCK_K");
static_assert(!TF32X3 || BLOCK_K % ACC_BLOCK_K == 0 || ACC_BLOCK_K % BLOCK_K == 0,
              "ACC_BLOCK_K must divide BLOCK_K or be a multiple of it");
static_assert(STAGES >= (TF32X3 ? ACC_BUFFERS : 2) * GROUP_STAGES,
              "the consumers hold up to ACC_BUFFERS stage groups (tf32: two stages) at once");
static_assert(ACC_BUFFERS == 1 || ACC_BUFFERS == 2, "one or two block accumulators");
static_assert(SUM_BLOCKS >= 0, "SUM_BLOCKS counts blocks per mid-level sum");
// RS adds the A fragments: tf32x3 8 floats per k8 step of a block, per accumulator; tf32 4
// per step of a stage, two stages.
constexpr int A_FRAGMENT_REGS = !A_IN_REGISTERS ? 0 : TF32X3 ? 8 * ACC_STEPS * ACC_BUFFERS : 8 * K_STEPS;
static_assert((1 + (TF32X3 ? ACC_BUFFERS + (SUM_BLOCKS > 0) : ACC_BLOCK_K > 0)) * (BLOCK_N / 2) + A_FRAGMENT_REGS + 24 <=
                  (USE_SETMAXNREG ? CONSUMER_REGS : 255),
              "running sum + block accumulators do not fit the consumer register budget");
static_assert(STAGES >= 2, "the ring needs at least two stages");
static_assert(STREAM_K == 0 || STREAM_K == 1, "STREAM_K is 0 or 1");
static_assert(TRANSFORM_B == 0 || TRANSFORM_B == 1, "TRANSFORM_B is 0 or 1");
static_assert(B_K_MAJOR == 0 || (B_K_MAJOR == 1 && TRANSFORM_B), "B_K_MAJOR describes a raw B (TRANSFORM_B)");
static_assert(CLUSTER == 1 || CLUSTER == 2, "CLUSTER is 1 or 2 CTAs");
static_assert(CLUSTER == 1 || (!STREAM_K && !CONVERT_B), "a CTA pair walks whole tiles with B planes from a pre-pass");
static_assert(WORK_LIST == 0 || (WORK_LIST == 1 && !STREAM_K && CLUSTER == 1), "a work list holds whole tiles, one CTA each");
static_assert(FILL >= 0 && FILL <= 2, "FILL is 0 (full), 1 (lower) or 2 (upper)");
static_assert(A_KEEP >= 0 && A_KEEP <= 2 && B_KEEP >= 0 && B_KEEP <= 2 && (A_UNIT == 0 || A_UNIT == 1) &&
                  (B_UNIT == 0 || B_UNIT == 1),
              "A_KEEP, B_KEEP are 0 (all), 1 (k <= row) or 2 (k >= row); A_UNIT, B_UNIT are 0 or 1");
static_assert((A_KEEP == 0 || A_IN_REGISTERS) && (B_KEEP == 0 || TRANSFORM_B) && (A_UNIT == 0 || A_KEEP != 0) &&
                  (B_UNIT == 0 || B_KEEP != 0),
              "the kernel masks only a triangular operand it reads raw (A in registers, B transformed or rounded)");
static_assert(A_SYM >= 0 && A_SYM <= 2 &&
                  (A_SYM == 0 || (A_IN_REGISTERS && !A_MN_MAJOR && A_KEEP == 0 && BLOCK_K == 32 && CLUSTER == 1)),
              "A_SYM is 0, 1 (lower stored) or 2 (upper stored), for a K-major A in registers, 32 K per stage, "
              "no CTA pair");
static_assert(SPLIT_K >= 1 && (SPLIT_K == 1 || (WORK_LIST == 1 && FILL == 0)),
              "K pieces come from a work list, and their partial sums are stored whole (the reduction fills)");
static_assert(RASTER_GROUP >= 1, "RASTER_GROUP counts tile rows per launch group");
static_assert(PDL == 0 || PDL == 1, "PDL is 0 or 1");
static_assert(PLANE_BYTES % SMEM_ALIGN == 0 && A_TILE_BYTES % SMEM_ALIGN == 0,
              "every operand tile must start on a swizzle atom");
static_assert(SMEM_TOTAL <= 227 * 1024, "shared memory exceeds the 227 KiB an sm_90 CTA may use");
static_assert(SMEM_BYTES < 0 || SMEM_BYTES == SMEM_TOTAL,
              "host and template disagree on the shared-memory size");
static_assert(!USE_SETMAXNREG || PRODUCER_REGS * 128 + CONSUMER_REGS * 128 * CONSUMERS <= 65536,
              "setmaxnreg budgets exceed the 64K-register file");

constexpr int ACC_REGS = BLOCK_N / 2;  // accumulator floats per thread for one m64 x BLOCK_N slice

// ---- work and the ring ---------------------------------------------------------------
#include "tf32/tile_schedule.cuh"
#include "tf32/operand_triangle.cuh"

// Position in the ring; producer and consumers walk the same sequence of (tile, stage).
struct Ring {
  int stage = 0;
  unsigned phase = 0;  // parity of the ring pass
  __device__ __forceinline__ void advance() {
    if (++stage == STAGES) stage = 0, phase ^= 1;
  }
};

// Operand tiles of the stage at `stage` (layouts: STAGE_BYTES). RS: a_tile is the raw A.
__device__ __forceinline__ unsigned a_tile(unsigned stage, int plane) {
  return A_IN_REGISTERS ? stage : stage + plane * PLANE_BYTES;
}
__device__ __forceinline__ unsigned b_tile(unsigned stage, int plane) {
  return A_IN_REGISTERS ? stage + A_TILE_BYTES + plane * B_TILE_BYTES : stage + plane * PLANE_BYTES + A_TILE_BYTES;
}
// TRANSFORM_B: the raw B tile, after the planes.
__device__ __forceinline__ unsigned raw_b_tile(unsigned stage) { return b_tile(stage, PLANES); }

// Shared addresses of the ring. Stage s: operand tiles from stage_addr(s).
struct SharedRing {
  unsigned base;  // stage 0, SMEM_ALIGN-aligned
  __device__ __forceinline__ unsigned stage_addr(int s) const { return base + s * STAGE_BYTES; }
  __device__ __forceinline__ unsigned full(int s) const { return base + STAGES * STAGE_BYTES + 8 * s; }
  __device__ __forceinline__ unsigned empty(int s) const { return full(STAGES + s); }
  // TRANSFORM_B: the stage's B planes are written; then whether its B held inf or NaN (a byte per
  // transform warp, tf32/transform_operand.cuh; non-zero when any did).
  __device__ __forceinline__ unsigned ready(int s) const { return full(2 * STAGES + s); }
  __device__ __forceinline__ unsigned b_nonfinite(int s) const { return full(3 * STAGES + s); }
  // What the consumers wait for before reading stage s.
  __device__ __forceinline__ void wait_operands(int s, unsigned phase) const {
    mbarrier_wait(full(s), phase);
    if constexpr (TRANSFORM_B && !B_WARPS_IDLE) mbarrier_wait(ready(s), phase);
  }
};

struct OperandMaps {
  const TensorMap* a[2];  // big, small planes of A (M x K); RS: a[0] is the raw A
  const TensorMap* b[2];  // big, small planes of B (N x K)
};

#include "tf32/convert_operand.cuh"

// Calls fn(tile, k0) for every K stage of every piece of work of this CTA, in the order the
// ring is filled (the producer and the transform warps walk it). Whole tiles go in a plain
// loop without the stream-K tail, the code measured fastest.
template <typename Fn>
__device__ __forceinline__ void for_each_stage(const TileSchedule& s, Fn&& fn) {
  auto stages_of = [&](const Work& w) {
    const TileCoord tile = s.coord(w.tile);
    const int first = w.first_unit * GROUP_STAGES, last = first + w.units * GROUP_STAGES;
    for (int ks = first; ks < last; ++ks) fn(tile, ks * BLOCK_K);
  };
  if constexpr (WORK_LIST) {
    for (int i = s.work_begin[blockIdx.x]; i < s.work_begin[blockIdx.x + 1]; ++i) stages_of(listed_work(s, i));
  } else if constexpr (STREAM_K) {
    WorkCursor cursor = first_work(s);
    Work w;
    while (next_work(s, cursor, w)) stages_of(w);
  } else {
    for (int t = first_tile(); t < s.whole_tiles; t += tile_step()) stages_of(Work{t, 0, s.units_per_tile, 0, 0});
  }
}

#include "tf32/transform_operand.cuh"

// ---- producer: one thread -------------------------------------------------------------
// Stage s of one tile: A rows m0.. and B rows n0.., K columns k0 .. k0+BLOCK_K, as boxes of
// SWIZZLE_K columns (every plane), or for a raw K x M A (A_MN_MAJOR) boxes of 32 rows of M.
// CLUSTER = 2: both CTAs of the pair need the same A tile; each loads its half of the rows
// (the A maps' boxes are BLOCK_M / 2 rows; A_MN_MAJOR: half of the 32-row boxes) into both.
__device__ __forceinline__ void load_a(unsigned dst, const TensorMap* map, unsigned bar, int col, int row) {
  if constexpr (CLUSTER == 1)
    tma_load_2d(dst, map, bar, col, row);
  else
    tma_load_2d_multicast(dst, map, bar, col, row, (unsigned short)((1u << CLUSTER) - 1));
}

__device__ __forceinline__ void load_stage(const OperandMaps& maps, unsigned stage, unsigned bar,
                                           TileCoord tile, int k0) {
  const int half = CLUSTER == 1 ? 0 : (int)cluster_ctarank();  // which part of A this CTA loads
#pragma unroll
  for (int p = 0; p < (A_IN_REGISTERS ? 1 : PLANES); ++p) {
    if (A_MN_MAJOR) {
      constexpr int BOXES = BLOCK_M / 32 / CLUSTER;
#pragma unroll
      for (int i = 0; i < BOXES; ++i) {
        const int sub = half * BOXES + i;
        load_a(a_tile(stage, p) + sub * BLOCK_K * 128, maps.a[p], bar, tile.m0 + sub * 32, k0);
      }
    } else if (A_SYM != 0) {
      // 32-row sub-blocks from the stored side: X(r0.., k0..) at (k0, r0), else the mirror
      // X(k0.., r0..) at (r0, k0), [32 k][32 m] (BLOCK_K = 32, one box of K).
#pragma unroll
      for (int j = 0; j < BLOCK_M / 32; ++j) {
        const int r0 = tile.m0 + 32 * j;
        const bool mirrored = sym_mirrored<A_SYM>(r0, k0);
        load_a(a_tile(stage, p) + j * 32 * SWIZZLE_BYTES, maps.a[p], bar, mirrored ? r0 : k0, mirrored ? k0 : r0);
      }
    } else {
      constexpr int ROWS = BLOCK_M / CLUSTER;  // rows per box
#pragma unroll
      for (int sub = 0; sub < K_SUBTILES; ++sub)
        load_a(a_tile(stage, p) + sub * BLOCK_M * SWIZZLE_BYTES + half * ROWS * SWIZZLE_BYTES, maps.a[p], bar,
               k0 + sub * SWIZZLE_K, tile.m0 + half * ROWS);
    }
  }
  if constexpr (RAW_B_TILE) {
    // The raw B (stored K x N): boxes of 32 columns of N by BLOCK_K rows of K.
#pragma unroll
    for (int sub = 0; sub < RAW_B_BOXES; ++sub)
      tma_load_2d(raw_b_tile(stage) + sub * BLOCK_K * 128, maps.b[0], bar, tile.n0 + sub * 32, k0);
    return;
  }
  // B_K_MAJOR: the raw B into the big plane, rounded there by the transform warps.
#pragma unroll
  for (int p = 0; p < (TRANSFORM_B ? 1 : PLANES); ++p) {
#pragma unroll
    for (int sub = 0; sub < K_SUBTILES; ++sub)
      tma_load_2d(b_tile(stage, p) + sub * BLOCK_N * SWIZZLE_BYTES, maps.b[p], bar, k0 + sub * SWIZZLE_K, tile.n0);
  }
}

// CONVERT_B: each stage's K chunk of B's plane is waited for first (tf32/convert_operand.cuh).
__device__ __forceinline__ void produce(const OperandMaps& maps, const SharedRing& ring_smem, const TileSchedule& s,
                                        const ConvertJob& job) {
  Ring ring;
  int chunks_ready = 0;
  for_each_stage(s, [&](TileCoord tile, int k0) {
    if constexpr (CONVERT_B) wait_for_chunk(job, k0, chunks_ready);
    mbarrier_wait(ring_smem.empty(ring.stage), ring.phase ^ 1);  // consumers freed the slot
    mbarrier_arrive_expect_tx(ring_smem.full(ring.stage), TMA_STAGE_BYTES);
    load_stage(maps, ring_smem.stage_addr(ring.stage), ring_smem.full(ring.stage), tile, k0);
    ring.advance();
  });
}

// ---- consumers: main loops (tf32x3 blockwise accumulation, tf32) ----------------------------
#include "tf32/mainloop.cuh"
#include "tf32/stream_k.cuh"

// ---- epilogue -----------------------------------------------------------------------
// C = alpha * acc + beta * C for this thread's fragment (layout in common/wgmma.cuh) of the
// warpgroup's 64 x BLOCK_N slice at (row0, n0). beta == 0: C is never read.
__device__ __forceinline__ float epilogue_value(const float* c, float v, float beta) {
  return beta != 0.0f ? fmaf(beta, *c, v) : v;
}

// Two adjacent floats of C, c[0] = v0 + beta c[0] and c[1] = v1 + beta c[1], in one 8-byte
// store (c 8-byte aligned); beta == 0: C is never read.
__device__ __forceinline__ void store_two(float* c, float v0, float v1, float beta) {
  if (beta != 0.0f) {
    const float2 old = *reinterpret_cast<const float2*>(c);
    v0 = fmaf(beta, old.x, v0), v1 = fmaf(beta, old.y, v1);
  }
  *reinterpret_cast<float2*>(c) = make_float2(v0, v1);
}

// TRANSPOSE_C: (row, col) of the kernel's result is C[col * ldc + row]; a thread's column
// pairs are then in two rows of C, stored one by one (lanes with consecutive rows write
// consecutive floats), or, with A's rows paired, two floats at a time. FILL: a value outside
// the kept triangle is a zero (C not read there).
__device__ __forceinline__ bool fill_keeps(int row, int col) {
  return FILL == 0 || (FILL == 1 ? col <= row : col >= row);
}
__device__ __forceinline__ void store_tile(const float (&acc)[ACC_REGS], float* C, long long ldc,
                                           int M, int N, int row0, int n0, float alpha, float beta) {
  const int lane = threadIdx.x % 32;
  // Fragment rows g and g + 8 of the warp's 16 (g = lane / 4); with A's rows paired
  // (tf32/a_fragments.cuh), rows 2g and 2g + 1.
  const int row_first = row0 + ((threadIdx.x / 32) % 4) * 16 + (a_rows_paired() ? 2 : 1) * (lane / 4);
  const bool pairs = (ldc % 2 == 0) && (reinterpret_cast<unsigned long long>(C) % 8 == 0);
#pragma unroll
  for (int j = 0; j < BLOCK_N / 8; ++j) {
    const int col = n0 + 8 * j + 2 * (lane % 4);
    if constexpr (TRANSPOSE_C && a_rows_paired()) {
      // The thread's two rows (row_first even) are adjacent floats of C's row col (and col + 1):
      // one 8-byte store each, the eight lanes of a column quad along 16 consecutive floats.
      const int row = row_first;
      if (row >= M) continue;
#pragma unroll
      for (int e = 0; e < 2 && col + e < N; ++e) {
        float* c = C + (long long)(col + e) * ldc + row;
        float v0 = alpha * acc[4 * j + e], v1 = alpha * acc[4 * j + 2 + e];
        if (FILL == 0 && pairs && row + 1 < M) {
          store_two(c, v0, v1, beta);
        } else {
          c[0] = fill_keeps(row, col + e) ? epilogue_value(c, v0, beta) : 0.0f;
          if (row + 1 < M) c[1] = fill_keeps(row + 1, col + e) ? epilogue_value(c + 1, v1, beta) : 0.0f;
        }
      }
      continue;
    }
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      const int row = row_first + (a_rows_paired() ? 1 : 8) * h;
      if (row >= M || col >= N) continue;
      if constexpr (TRANSPOSE_C) {
        float* c = C + (long long)col * ldc + row;
        *c = fill_keeps(row, col) ? epilogue_value(c, alpha * acc[4 * j + 2 * h], beta) : 0.0f;
        if (col + 1 < N)
          c[ldc] = fill_keeps(row, col + 1) ? epilogue_value(c + ldc, alpha * acc[4 * j + 2 * h + 1], beta) : 0.0f;
        continue;
      }
      float* c = C + (long long)row * ldc + col;
      float v0 = alpha * acc[4 * j + 2 * h], v1 = alpha * acc[4 * j + 2 * h + 1];
      if (FILL != 0 && !(fill_keeps(row, col) && fill_keeps(row, col + 1))) {
        c[0] = fill_keeps(row, col) ? epilogue_value(c, v0, beta) : 0.0f;
        if (col + 1 < N) c[1] = fill_keeps(row, col + 1) ? epilogue_value(c + 1, v1, beta) : 0.0f;
        continue;
      }
      if (pairs && col + 1 < N) {
        store_two(c, v0, v1, beta);
      } else {
        c[0] = epilogue_value(c, v0, beta);
        if (col + 1 < N) c[1] = epilogue_value(c + 1, v1, beta);
      }
    }
  }
}

// A work-list tile with no K units holds only zeros when beta = 0 (alpha * 0, or the fill's):
// the warpgroup's 64 x BLOCK_N slice as it lies in C (TRANSPOSE_C: BLOCK_N rows of 64 floats)
// in 16-byte stores along C's rows, consecutive threads on consecutive addresses. (Through
// store_tile, a swapped 128 x 256 zero tile took about 6 us of scalar stores.)
__device__ __forceinline__ void store_zeros(float* C, long long ldc, int M, int N, int row0, int n0) {
  constexpr int ROWS = TRANSPOSE_C ? BLOCK_N : 64, COLS = TRANSPOSE_C ? 64 : BLOCK_N, QUADS = COLS / 4;
  const int r0 = TRANSPOSE_C ? n0 : row0, c0 = TRANSPOSE_C ? row0 : n0;  // c0: a multiple of 64
  const int rows = min(ROWS, (TRANSPOSE_C ? N : M) - r0), cols = min(COLS, (TRANSPOSE_C ? M : N) - c0);
  const bool vec = ldc % 4 == 0 && reinterpret_cast<unsigned long long>(C) % 16 == 0;
  for (int q = threadIdx.x % 128; q < ROWS * QUADS; q += 128) {
    const int r = q / QUADS, c = (q % QUADS) * 4;
    if (r >= rows || c >= cols) continue;
    float* p = C + (long long)(r0 + r) * ldc + c0 + c;
    if (vec && c + 4 <= cols) {
      *reinterpret_cast<float4*>(p) = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    } else {
      for (int e = 0; e < 4 && c + e < cols; ++e) p[e] = 0.0f;
    }
  }
}

// The end of one piece of work: a whole tile, or the last piece of a tail tile with the sum of
// the pieces before it added, is stored; another piece hands its sum on (tf32/stream_k.cuh).
__device__ __forceinline__ void finish_work(float (&acc)[ACC_REGS], const TileSchedule& s, const Work& w,
                                            const StreamKSpace& sk, int wg, float* C, long long ldc, int M, int N,
                                            float alpha, float beta) {
  if constexpr (STREAM_K) {
    if (!s.whole(w) && !sum_pieces(acc, sk, s, w, wg)) return;
  }
  const TileCoord tile = s.coord(w.tile);
  // SPLIT_K: the piece's slot, one C-shaped matrix of (TRANSPOSE_C ? N : M) rows each.
  if constexpr (SPLIT_K > 1) C += (long long)w.slot * (TRANSPOSE_C ? N : M) * ldc;
  store_tile(acc, C, ldc, M, N, tile.m0 + wg * 64, tile.n0, alpha, beta);
}

__device__ __forceinline__ void consume(int wg, const SharedRing& ring_smem, const TileSchedule& s,
                                        const StreamKSpace& sk, float* C, long long ldc, int M, int N,
                                        float alpha, float beta, bool nan_guard) {
  const int wg_row0 = wg * 64;  // this warpgroup's rows inside the tile
  Ring ring;
  auto work_on = [&](const Work& w) {
    const int stages = w.units * GROUP_STAGES;
    const OperandCursor at{s.coord(w.tile).m0, w.first_unit * GROUP_STAGES * BLOCK_K};
    // A structurally zero tile: nothing in the ring for it. With beta = 0 only zeros to store.
    if (WORK_LIST && SPLIT_K == 1 && stages == 0 && beta == 0.0f) {
      const TileCoord tile = s.coord(w.tile);
      return store_zeros(C, ldc, M, N, tile.m0 + wg_row0, tile.n0);
    }
    // Running sums: 64 x BLOCK_N per warpgroup, fragment layout of common/wgmma.cuh.
    if constexpr (TF32X3) {
      RunningSum sum;
      if (WORK_LIST && stages == 0)
        sum.reset();  // a structurally zero tile with beta: beta * C
      else
        mainloop_tf32x3(sum, ring_smem, ring, at, stages, wg_row0, nan_guard);
      finish_work(sum.total, s, w, sk, wg, C, ldc, M, N, alpha, beta);
    } else {
      float sum[ACC_REGS];
      if (WORK_LIST && stages == 0) {
#pragma unroll
        for (int j = 0; j < ACC_REGS; ++j) sum[j] = 0.0f;
      } else {
        mainloop_tf32(sum, ring_smem, ring, at, stages, wg_row0);
      }
      finish_work(sum, s, w, sk, wg, C, ldc, M, N, alpha, beta);
    }
  };
  if constexpr (WORK_LIST) {
    for (int i = s.work_begin[blockIdx.x]; i < s.work_begin[blockIdx.x + 1]; ++i) work_on(listed_work(s, i));
  } else if constexpr (STREAM_K) {
    WorkCursor cursor = first_work(s);
    Work w;
    while (next_work(s, cursor, w)) work_on(w);
  } else {
    for (int t = first_tile(); t < s.whole_tiles; t += tile_step()) work_on(Work{t, 0, s.units_per_tile, 0, 0});
  }
}

// ---- the kernel -------------------------------------------------------------------------
// Grid: min(#SMs, tiles) CTAs (1-D, persistent), THREADS threads, SMEM_TOTAL bytes of dynamic
// shared memory. Tensor maps: see the file header; for tf32 the small maps are not read (pass
// the big ones again). nonfinite: the pre-pass flag (tf32x3), or null. job: what the
// converter warps write (CONVERT_B; otherwise unused). sk: the partial sums' slots and flags
// (STREAM_K; otherwise unused). work, work_begin: the work list (WORK_LIST; otherwise unused).
// CLUSTER = 2: the generator defines CLUSTER_ATTRIBUTE as __cluster_dims__(2, 1, 1).
#ifndef CLUSTER_ATTRIBUTE
#define CLUSTER_ATTRIBUTE
#endif
extern "C" __global__ void __launch_bounds__(THREADS, 1) CLUSTER_ATTRIBUTE
KERNEL_NAME(const __grid_constant__ TensorMap map_a_big, const __grid_constant__ TensorMap map_b_big,
            const __grid_constant__ TensorMap map_a_small, const __grid_constant__ TensorMap map_b_small,
            float* __restrict__ C, long long ldc, int M, int N, int K, float alpha, float beta,
            const unsigned* __restrict__ nonfinite, const __grid_constant__ ConvertJob job, const StreamKSpace sk,
            const int4* __restrict__ work, const int* __restrict__ work_begin) {
  extern __shared__ __align__(1024) unsigned char smem[];
  const SharedRing ring_smem{(smem_u32(smem) + SMEM_ALIGN - 1) & ~unsigned(SMEM_ALIGN - 1)};
  const OperandMaps maps{{&map_a_big, &map_a_small}, {&map_b_big, &map_b_small}};

  if (threadIdx.x == 0) {
    for (int s = 0; s < STAGES; ++s) {
      mbarrier_init(ring_smem.full(s), 1);               // the producer's expect_tx arrival
      mbarrier_init(ring_smem.empty(s), 4 * CONSUMERS * CLUSTER);  // per consumer warp of the cluster
      if constexpr (TRANSFORM_B) {
        mbarrier_init(ring_smem.ready(s), READY_ARRIVALS);  // each rounding warp
        sts_u32(ring_smem.b_nonfinite(s), 0u);               // the byte no warp writes stays 0
      }
    }
    mbarrier_fence_init();
    for (int p = 0; p < PLANES; ++p) tma_prefetch_map(maps.a[p]), tma_prefetch_map(maps.b[p]);
  }
  // PDL: the launch and the lines above overlapped the pre-pass's last CTAs; what it writes
  // (planes, the non-finite flag) is read only after this.
  if constexpr (PDL) griddepcontrol_wait();
  __syncthreads();
  if constexpr (CLUSTER > 1) cluster_sync();  // the peer's barriers are initialised before its copies land here

  const TileSchedule schedule = make_schedule(M, N, K, work, work_begin);
  const int wg = threadIdx.x / 128;
  if (wg == 0) {
    if constexpr (USE_SETMAXNREG) warpgroup_reg_dealloc<PRODUCER_REGS>();
    if (threadIdx.x == 0) produce(maps, ring_smem, schedule, job);
    if constexpr (CONVERT_B) {
      // The staging tile follows the barriers (SMEM_TOTAL).
      unsigned char* tile = smem + (ring_smem.full(2 * STAGES) - smem_u32(smem));
      if (threadIdx.x >= 32) convert_b(job, reinterpret_cast<float*>(tile));
    }
    if constexpr (TRANSFORM_B && !B_WARPS_IDLE) {
      if (threadIdx.x >= 32) transform_b(ring_smem, schedule);
    }
  } else {
    if constexpr (USE_SETMAXNREG) warpgroup_reg_alloc<CONSUMER_REGS>();
    const bool nan_guard = TF32X3 && nonfinite != nullptr && *nonfinite != 0;
    consume(wg - 1, ring_smem, schedule, sk, C, ldc, M, N, alpha, beta, nan_guard);
  }
  // A CTA of a pair stays until its peer is done: the peer's copies and arrivals target it.
  if constexpr (CLUSTER > 1) cluster_sync();
}
