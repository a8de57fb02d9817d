// tile_schedule.cuh — the work each persistent CTA of tf32/wgmma_gemm.cu takes: output tiles,
// or with STREAM_K = 1 also pieces of tiles along K. The producer and the consumers walk the
// same sequence, so the ring's stages line up.
//
// Data-parallel (STREAM_K = 0): CTA b takes whole tiles b, b + G, b + 2G, ... (G = gridDim.x).
// When the tiles do not fill the last wave (tiles % G != 0), the CTAs without a tile in it
// idle for a whole tile's time.
//
// Stream-K tail (STREAM_K = 1; CUTLASS's "data-parallel + stream-K" hybrid): the last
// tiles % G tiles and one full wave before them (all tiles when there are fewer than G) are
// cut into units of GROUP_STAGES K stages, numbered tile by tile, and CTA b takes the unit
// range [b S / G, (b + 1) S / G) of those S units after its whole tiles. Every CTA then ends
// at about the same time. Each range holds at least one unit per CTA and spans at least one
// tile when there are G or more tiles, so at most its first piece lies inside a tile it did
// not start: a CTA writes at most one partial sum (tf32/stream_k.cuh). The CTA holding a
// tile's first unit (the owner) reaches it at the end of its range, after the CTAs holding
// the rest of the tile wrote theirs at the start of theirs; it adds them and stores the tile.
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

struct TileCoord {
  int m0, n0;  // first row and column of the C tile
};

// Grouped launch order for L2 reuse: RASTER_GROUP tile rows at a time, down the rows of a
// group before one tile column right, so the CTAs working together share a few panels.
__device__ __forceinline__ TileCoord tile_coord(int t, int tiles_m, int tiles_n) {
  const int per_group = RASTER_GROUP * tiles_n;
  const int first_row = (t / per_group) * RASTER_GROUP;
  const int rows = min(tiles_m - first_row, RASTER_GROUP);  // the last group may be shorter
  const int in_group = t % per_group;
  return {(first_row + in_group % rows) * BLOCK_M, (in_group / rows) * BLOCK_N};
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
  int slot;  // SPLIT_K > 1: the partial-sum slot (else 0)
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
  long long split_units;  // the units of tiles [whole_tiles, tiles), shared out in ranges

  // First split unit of CTA `cta`'s range (cta = G: the end of the last range).
  __device__ __forceinline__ long long split_begin(int cta) const { return split_units * cta / gridDim.x; }
  // Whether CTA `cta`'s range starts before split unit `unit`, i.e. split_begin(cta) < unit,
  // without the 64-bit division (a call, which would move the accumulators to the stack).
  __device__ __forceinline__ bool starts_before(int cta, long long unit) const {
    return split_units * cta < unit * gridDim.x;
  }
  __device__ __forceinline__ bool whole(const Work& w) const { return w.units == units_per_tile; }
  // The C tile of tile (or, CLUSTER = 2, pair) t for this CTA.
  __device__ __forceinline__ TileCoord coord(int t) const {
    if constexpr (WORK_LIST) return {(t / tiles_n) * BLOCK_M, (t % tiles_n) * BLOCK_N};  // row-major, as listed
    TileCoord c = tile_coord(t, tiles_m, tiles_n);
    if constexpr (CLUSTER > 1) c.n0 = c.n0 * CLUSTER + (int)cluster_ctarank() * BLOCK_N;
    return c;
  }
  // One past the last split unit of tile w.tile.
  __device__ __forceinline__ long long split_end_of(const Work& w) const {
    return (long long)(w.tile - whole_tiles + 1) * units_per_tile;
  }
};

__device__ __forceinline__ TileSchedule make_schedule(int M, int N, int K, const int4* work, const int* work_begin) {
  TileSchedule s;
  s.work = work, s.work_begin = work_begin;
  s.work_slot = SPLIT_K > 1 ? work_begin + gridDim.x + 1 : nullptr;
  s.tiles_m = (M + BLOCK_M - 1) / BLOCK_M;
  s.tiles_n = ((N + BLOCK_N - 1) / BLOCK_N + CLUSTER - 1) / CLUSTER;
  s.units_per_tile = k_stages(K) / GROUP_STAGES;
  const int tiles = s.tiles_m * s.tiles_n, ctas = gridDim.x;
  s.whole_tiles = tiles;
  s.split_units = 0;
  // The host launches at most one CTA per unit (launch_geometry), so every range holds one; a
  // grid larger than that runs data-parallel rather than wait for a CTA with nothing to add.
  const long long units = (long long)tiles * s.units_per_tile;
  if (STREAM_K && tiles % ctas != 0 && units >= ctas) {
    const int split = tiles > ctas ? tiles % ctas + ctas : tiles;
    s.whole_tiles = tiles - split;
    s.split_units = (long long)split * s.units_per_tile;
  }
  return s;
}

// WORK_LIST: item i of the list as a piece of work (tile numbers are row-major).
__device__ __forceinline__ Work listed_work(const TileSchedule& s, int i) {
  const int4 item = s.work[i];
  return {item.x * s.tiles_n + item.y, item.z, item.w, SPLIT_K > 1 ? s.work_slot[i] : 0};
}

// Where one CTA is in its sequence: the next whole tile, then `left` split units from unit
// `first` of tile `split_tile`. A range is at most two tiles long, so int counts do.
struct WorkCursor {
  int next_tile;
  int split_tile, first, left;
};

__device__ __forceinline__ WorkCursor first_work(const TileSchedule& s) {
  const long long begin = s.split_begin(blockIdx.x), end = s.split_begin(blockIdx.x + 1);
  return {(int)blockIdx.x, s.whole_tiles + (int)(begin / s.units_per_tile), (int)(begin % s.units_per_tile),
          (int)(end - begin)};
}

// The next piece of work into w; false when the CTA is done.
__device__ __forceinline__ bool next_work(const TileSchedule& s, WorkCursor& c, Work& w) {
  if (c.next_tile < s.whole_tiles) {
    w = {c.next_tile, 0, s.units_per_tile, 0};
    c.next_tile += gridDim.x;
    return true;
  }
  if (c.left == 0) return false;
  w = {c.split_tile, c.first, min(s.units_per_tile - c.first, c.left), 0};
  c.left -= w.units;
  c.split_tile += 1, c.first = 0;
  return true;
}
