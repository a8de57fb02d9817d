// tile_schedule.cuh — the work each persistent CTA of tf32/wgmma_gemm.cu takes: output tiles,
// or with STREAM_K = 1 also pieces of tiles along K. The producer and the consumers walk the
// same sequence, so the ring's stages line up.
//
// Data-parallel (STREAM_K = 0): CTA b takes whole tiles b, b + G, b + 2G, ... (G = gridDim.x).
// When the tiles do not fill the last wave (tiles % G != 0), the CTAs without a tile in it
// idle for a whole tile's time.
//
// Stream-K tail (STREAM_K = 1): the tiles of the last, partial wave (all tiles when there
// are fewer than G) are cut along K into P pieces each, P from tail_pieces() (1: no cut, the
// schedule is data-parallel). After its whole tiles, CTA b takes the pieces b, b + G, ...
// numbered piece-major (piece 0 of every tail tile, then piece 1, ...), so the CTAs that run
// at one time work on one or two K ranges of the tail tiles and share their operand panels in
// L2, as in the whole waves. (The first version cut the tail into one contiguous range of
// units per CTA, CUTLASS's stream-K: every CTA then read its own K range, the tail's panels
// did not fit in L2, and on the H200 4096^3 tf32x3 products ran 15% slower than with no
// tail, transA 44%.) The pieces of a tile are summed in piece order through one slot of
// partial sums (tf32/stream_k.cuh), and the CTA of the last piece stores the tile.
//
// Work list (WORK_LIST = 1, a structured product; exec/work_list.hpp): CTA b takes the items
// work[work_begin[b] .. work_begin[b + 1]), each a tile (row, column) and its K units, dealt
// by the host longest first to the least-loaded CTA. No stream-K tail, no CTA pairs.
// SPLIT_K > 1: the items are pieces of tiles along K, and piece i writes its partial sum to
// slot work_slot[i] (the list's third array, after work_begin); the split-K reduction adds
// the slots in order afterwards.
//
// Not self-standing: wgmma_gemm.cu includes it after its constants.
#pragma once

#include "common/tile_order.cuh"

// Tile t in the grouped launch order, RASTER_GROUP tile rows at a time (common/tile_order.cuh).
__device__ __forceinline__ TileCoord tile_coord(int t, int tiles_m, int tiles_n) {
  return grouped_tile(t, tiles_m, tiles_n, RASTER_GROUP, BLOCK_M, BLOCK_N);
}

// K stages per tile: TMA zero-fills past K, so the count may round up to whole blocks.
__device__ __forceinline__ int k_stages(int K) {
  const int stages = (K + BLOCK_K - 1) / BLOCK_K;
  return (stages + GROUP_STAGES - 1) / GROUP_STAGES * GROUP_STAGES;
}

// One piece of work: K units [first_unit, first_unit + units) of tile `tile` (launch order).
struct Work {
  int tile;
  int first_unit;
  int units;
  int slot;   // SPLIT_K > 1: the partial-sum slot; STREAM_K: the tail tile's (0 .. tail_tiles - 1)
  int piece;  // STREAM_K: which of the tail tile's pieces (else 0)
};

// CLUSTER = 2: the two CTAs of a cluster (consecutive blockIdx.x) take the two tiles of a pair,
// side by side along N with the same rows, so that they share A's tile; the pairs are walked
// like tiles (a pair past N on the right computes zeros and stores nothing).
__device__ __forceinline__ int first_tile() { return blockIdx.x / CLUSTER; }
__device__ __forceinline__ int tile_step() { return gridDim.x / CLUSTER; }

struct TileSchedule {
  int tiles_m, tiles_n;   // tiles_n: tile pairs along N when CLUSTER = 2
  const int4* work;       // WORK_LIST: the items {tile row, tile column, first unit, units}
  const int* work_begin;  // WORK_LIST: gridDim.x + 1 offsets into work
  const int* work_slot;   // SPLIT_K > 1: one slot per item, after work_begin
  int units_per_tile;     // GROUP_STAGES stages each
  int whole_tiles;        // tiles [0, whole_tiles) go round-robin, whole
  int tail_tiles;         // STREAM_K: tiles [whole_tiles, whole_tiles + tail_tiles) go in pieces
  int pieces;             // STREAM_K: pieces per tail tile (1: no tail)

  __device__ __forceinline__ bool whole(const Work& w) const { return w.units == units_per_tile; }
  // The C tile of tile (or, CLUSTER = 2, pair) t for this CTA.
  __device__ __forceinline__ TileCoord coord(int t) const {
    if constexpr (WORK_LIST) return {(t / tiles_n) * BLOCK_M, (t % tiles_n) * BLOCK_N};  // row-major, as listed
    TileCoord c = tile_coord(t, tiles_m, tiles_n);
    if constexpr (CLUSTER > 1) c.n0 = c.n0 * CLUSTER + (int)cluster_ctarank() * BLOCK_N;
    return c;
  }
};

// What handing a piece's partial sum on costs (tf32/stream_k.cuh: each warpgroup reads and
// writes a 64 x BLOCK_N slice in L2), counted in K units: about two 32-wide stages.
constexpr int PIECE_COST_UNITS = (64 + GROUP_STAGES * BLOCK_K - 1) / (GROUP_STAGES * BLOCK_K);
constexpr int MAX_PIECES = 16;

// The pieces each of `tail` tiles of `units` K units is cut into, over `ctas` CTAs: the P in
// 1 .. MAX_PIECES (at most one per unit) whose busiest CTA, ceil(tail P / ctas) pieces of
// units / P units each and their hand-over, finishes first; 1 when no cut gains.
__device__ __forceinline__ int tail_pieces(int tail, int ctas, int units) {
  int best = 1;
  float best_time = (float)units * ((tail + ctas - 1) / ctas);
  for (int p = 2; p <= min(MAX_PIECES, units); ++p) {
    const float time = (float)((tail * p + ctas - 1) / ctas) * ((float)units / p + PIECE_COST_UNITS);
    if (time < best_time) best = p, best_time = time;
  }
  return best;
}

__device__ __forceinline__ TileSchedule make_schedule(int M, int N, int K, const int4* work, const int* work_begin) {
  TileSchedule s;
  s.work = work, s.work_begin = work_begin;
  s.work_slot = SPLIT_K > 1 ? work_begin + gridDim.x + 1 : nullptr;
  s.tiles_m = (M + BLOCK_M - 1) / BLOCK_M;
  s.tiles_n = ((N + BLOCK_N - 1) / BLOCK_N + CLUSTER - 1) / CLUSTER;
  s.units_per_tile = k_stages(K) / GROUP_STAGES;
  const int tiles = s.tiles_m * s.tiles_n, ctas = gridDim.x;
  s.whole_tiles = tiles, s.tail_tiles = 0, s.pieces = 1;
  if (STREAM_K && tiles % ctas != 0) {
    const int tail = tiles % ctas, pieces = tail_pieces(tail, ctas, s.units_per_tile);
    if (pieces > 1) s.whole_tiles = tiles - tail, s.tail_tiles = tail, s.pieces = pieces;
  }
  return s;
}

// WORK_LIST: item i of the list as a piece of work (tile numbers are row-major).
__device__ __forceinline__ Work listed_work(const TileSchedule& s, int i) {
  const int4 item = s.work[i];
  return {item.x * s.tiles_n + item.y, item.z, item.w, SPLIT_K > 1 ? s.work_slot[i] : 0, 0};
}

// Where one CTA is in its sequence: the next whole tile, then the next tail piece (numbered
// piece-major: piece p of tail tile t is p * tail_tiles + t).
struct WorkCursor {
  int next_tile;
  int next_piece;
};

__device__ __forceinline__ WorkCursor first_work(const TileSchedule&) {
  return {(int)blockIdx.x, (int)blockIdx.x};
}

// The next piece of work into w; false when the CTA is done. Piece p of a tile holds units
// [p U / P, (p + 1) U / P) (U units, P pieces).
__device__ __forceinline__ bool next_work(const TileSchedule& s, WorkCursor& c, Work& w) {
  if (c.next_tile < s.whole_tiles) {
    w = {c.next_tile, 0, s.units_per_tile, 0, 0};
    c.next_tile += gridDim.x;
    return true;
  }
  if (c.next_piece >= s.tail_tiles * s.pieces) return false;
  const int piece = c.next_piece / s.tail_tiles, t = c.next_piece % s.tail_tiles;
  const int first = piece * s.units_per_tile / s.pieces, end = (piece + 1) * s.units_per_tile / s.pieces;
  w = {s.whole_tiles + t, first, end - first, t, piece};
  c.next_piece += gridDim.x;
  return true;
}
