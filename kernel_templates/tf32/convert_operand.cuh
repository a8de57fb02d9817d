// convert_operand.cuh — tf32/wgmma_gemm.cu with CONVERT_B = 1 (tf32, A in registers): warps
// 1..3 of the producer warpgroup write B's rounded TF32 plane themselves, instead of the
// pre-pass (tf32/split_operand.cu) running before the kernel. The tensor cores are the
// kernel's limit (about 93% busy at 128 x 256 on an H200), so this memory-bound work hides
// behind them, and the pre-pass's time (a read and a write of B) leaves the critical path.
//
// Not self-standing: wgmma_gemm.cu includes it after its constants.
//
// Work: the plane (R rows of ld_dst values of K) in units of 64 rows x 64 K, numbered K chunk
// first (unit u: chunk u / row_tiles, rows 64 (u % row_tiles) ..), the order in which every
// tile's main loop needs them. Any CTA's converter takes the next unit from a global counter,
// stages the source tile in shared memory with cp.async, rounds it (cvt.rna; NaN stays NaN),
// stores it to the plane, and counts the unit in chunk_done[chunk] (release). The TMA thread
// waits (acquire) until chunk_done of a stage's chunk reaches row_tiles before loading it; it
// never waits for work nobody has taken: its own converter keeps taking units until none are
// left, so the wait ends even if other CTAs were not resident.
#pragma once

#include "common/cp_async.cuh"
#include "common/global_sync.cuh"
#include "common/smem.cuh"

struct ConvertJob {
  const float* src;      // the caller's matrix B comes from (CONVERT_TRANSPOSED: element (r, k) at src[k * ld_src + r])
  long long ld_src;
  float* dst;            // B's plane: rows x ld_dst, K-major (the tensor map's memory)
  long long ld_dst;      // a multiple of 32 floats
  unsigned* next_unit;   // units taken (zeroed by the host before the launch)
  unsigned* chunk_done;  // per 64-K chunk: units written (zeroed too)
  int rows;              // R
  int k;                 // K
};

constexpr int CONVERT_TILE = 64;      // rows and K values per unit
constexpr int CONVERT_THREADS = 96;   // warps 1..3 of the producer warpgroup
constexpr unsigned CONVERT_BARRIER = 4;  // named barrier (0: __syncthreads, 1..2: the consumers' votes)
// Staging tile, in the source's layout: [k][r] with stride 65 for a transposed source (4-byte
// copies; the column reads of the store phase hit distinct banks two by two), else [r][k]
// with stride 68 (16-byte rows). Then the claimed unit number.
constexpr int CONVERT_STRIDE = CONVERT_TRANSPOSED ? CONVERT_TILE + 1 : CONVERT_TILE + 4;
static_assert(!CONVERT_B || CONVERT_SMEM_BYTES == CONVERT_TILE * (CONVERT_TILE + 4) * 4 + 16,
              "wgmma_gemm.cu reserves the staging tile and the claimed unit");

static_assert(!CONVERT_B || (!TF32X3 && A_IN_REGISTERS), "CONVERT_B: tf32 with A in registers");
static_assert(!CONVERT_B || BLOCK_K <= CONVERT_TILE, "CONVERT_B: a stage must lie in one 64-K chunk");
static_assert(CONVERT_VEC == 1 || CONVERT_VEC == 4, "CONVERT_VEC: 4 (16-byte aligned rows) or 1");

__device__ __forceinline__ int convert_row_tiles(const ConvertJob& job) { return (job.rows + CONVERT_TILE - 1) / CONVERT_TILE; }

// Issues the copies of the source tile (rows r0.., K k0..) -> tile, zeros outside R x K.
// ct: 0 .. CONVERT_THREADS-1.
__device__ __forceinline__ void stage_source_tile(const ConvertJob& job, float* tile, int r0, int k0, int ct) {
  const unsigned base = shared_address(tile);
  if (CONVERT_TRANSPOSED || CONVERT_VEC == 1) {
    // One float per copy; consecutive threads take consecutive addresses of the source.
    for (int i = ct; i < CONVERT_TILE * CONVERT_TILE; i += CONVERT_THREADS) {
      const int outer = i / CONVERT_TILE, inner = i % CONVERT_TILE;  // transposed: k, r; else r, k
      const int r = r0 + (CONVERT_TRANSPOSED ? inner : outer), k = k0 + (CONVERT_TRANSPOSED ? outer : inner);
      const bool in = r < job.rows && k < job.k;
      const float* from = in ? job.src + (CONVERT_TRANSPOSED ? (long long)k * job.ld_src + r : (long long)r * job.ld_src + k)
                             : job.src;
      cp_async_4(base + 4 * (outer * CONVERT_STRIDE + inner), from, in ? 4 : 0);
    }
  } else {
    // 16-byte pieces of K-contiguous rows: 16 per row.
    for (int i = ct; i < CONVERT_TILE * CONVERT_TILE / 4; i += CONVERT_THREADS) {
      const int rr = i / 16, kk = 4 * (i % 16);
      const int r = r0 + rr, k = k0 + kk;
      const int valid = r < job.rows ? min(max(job.k - k, 0), 4) : 0;
      const float* from = valid > 0 ? job.src + (long long)r * job.ld_src + k : job.src;
      cp_async_16(base + 4 * (rr * CONVERT_STRIDE + kk), from, 4 * valid);
    }
  }
  cp_async_commit();  // the caller waits (cp_async_wait<0>) before the tile is read
}

// tile -> rounded plane rows r0.., K k0.. (up to ld_dst: zeros past K come from the tile).
// Sixteen threads write one row's 256 bytes.
__device__ __forceinline__ void store_plane_tile(const ConvertJob& job, const float* tile, int r0, int k0, int ct) {
  for (int i = ct; i < CONVERT_TILE * CONVERT_TILE / 4; i += CONVERT_THREADS) {
    const int rr = i / 16, kk = 4 * (i % 16);
    if (r0 + rr >= job.rows || k0 + kk >= job.ld_dst) continue;
    float v[4];
#pragma unroll
    for (int j = 0; j < 4; ++j)
      v[j] = tf32_round(CONVERT_TRANSPOSED ? tile[(kk + j) * CONVERT_STRIDE + rr] : tile[rr * CONVERT_STRIDE + kk + j]);
    *reinterpret_cast<float4*>(job.dst + (long long)(r0 + rr) * job.ld_dst + k0 + kk) = make_float4(v[0], v[1], v[2], v[3]);
  }
}

// The converter loop of warps 1..3 of the producer warpgroup: units until none are left,
// software-pipelined: the next unit's copies are in flight while the current unit's stores
// drain (the proxy fence waits for them), and the unit after that is claimed meanwhile.
__device__ __forceinline__ void convert_b(const ConvertJob& job, float* tile) {
  const int ct = threadIdx.x - 32;
  unsigned* claimed = reinterpret_cast<unsigned*>(tile + CONVERT_TILE * (CONVERT_TILE + 4));
  const int row_tiles = convert_row_tiles(job);
  const unsigned units = row_tiles * ((job.ld_dst + CONVERT_TILE - 1) / CONVERT_TILE);
  auto origin = [&](unsigned u, int& r0, int& k0) {
    r0 = (u % row_tiles) * CONVERT_TILE, k0 = (u / row_tiles) * CONVERT_TILE;
  };
  if (ct == 0) claimed[0] = atomicAdd(job.next_unit, 1u);
  barrier_sync(CONVERT_BARRIER, CONVERT_THREADS);
  unsigned u = claimed[0];  // the same in every thread
  unsigned after = 0;       // ct 0: the claim after the next
  if (ct == 0) after = atomicAdd(job.next_unit, 1u);
  int r0, k0;
  if (u < units) origin(u, r0, k0), stage_source_tile(job, tile, r0, k0, ct);
  while (u < units) {
    cp_async_wait<0>();
    barrier_sync(CONVERT_BARRIER, CONVERT_THREADS);  // tile holds unit u; claimed[0] has been read
    store_plane_tile(job, tile, r0, k0, ct);
    if (ct == 0) claimed[0] = after;
    barrier_sync(CONVERT_BARRIER, CONVERT_THREADS);  // the tile is read; the next claim is published
    const unsigned next = claimed[0];
    const int chunk = u / row_tiles;
    if (ct == 0 && next < units) after = atomicAdd(job.next_unit, 1u);
    int nr0 = 0, nk0 = 0;
    if (next < units) origin(next, nr0, nk0), stage_source_tile(job, tile, nr0, nk0, ct);
    fence_proxy_async_global();  // u's stores are done for the TMA loads that follow the count
    barrier_sync(CONVERT_BARRIER, CONVERT_THREADS);  // every thread's stores fenced; claimed[0] read
    // The barrier orders every thread's stores before this release (cumulativity).
    if (ct == 0) add_release_gpu(job.chunk_done + chunk, 1u);
    u = next, r0 = nr0, k0 = nk0;
  }
}

// For the TMA thread: blocks until the chunk of K values k0.. is in the plane (chunks are
// checked in order; `ready` counts those already seen complete). With STREAM_K or WORK_LIST a
// piece may start inside K, so every chunk up to k0's is checked.
__device__ __forceinline__ void wait_for_chunk(const ConvertJob& job, int k0, int& ready) {
  const int chunk = k0 / CONVERT_TILE;
  if (chunk < ready) return;
  const unsigned row_tiles = convert_row_tiles(job);
  if constexpr (STREAM_K || WORK_LIST) {
    for (; ready < chunk; ++ready)
      while (load_acquire_gpu(job.chunk_done + ready) < row_tiles) __nanosleep(64);
  }
  while (load_acquire_gpu(job.chunk_done + chunk) < row_tiles) __nanosleep(64);
  fence_proxy_async_global();
  ready = chunk + 1;
}
