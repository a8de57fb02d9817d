// tile_order.cuh — which C tile a CTA computes, in the grouped order every family launches in.
#pragma once

struct TileCoord {
  int m0, n0;  // first row and column of the C tile
};

// Grouped order for L2 reuse: tile t of tiles_m x tiles_n tiles of block_m x block_n, taken
// `group` tile rows at a time, down the rows of a group before one tile column right, so the
// CTAs working together share a few panels of A and B.
__device__ __forceinline__ TileCoord grouped_tile(int t, int tiles_m, int tiles_n, int group, int block_m,
                                                  int block_n) {
  const int per_group = group * tiles_n;             // tiles in a full group
  const int first_row = (t / per_group) * group;
  const int rows = min(tiles_m - first_row, group);  // the last group may be shorter
  const int in_group = t % per_group;
  return {(first_row + in_group % rows) * block_m, (in_group / rows) * block_n};
}

// One tile per CTA: CTA `cta` of an M x N output's ceil(M / BLOCK_M) x ceil(N / BLOCK_N) tiles.
template <int BLOCK_M, int BLOCK_N, int GROUP>
__device__ __forceinline__ TileCoord grouped_tile_coord(int cta, int M, int N) {
  static_assert(GROUP >= 1, "GROUP counts tile rows per launch group");
  return grouped_tile(cta, (M + BLOCK_M - 1) / BLOCK_M, (N + BLOCK_N - 1) / BLOCK_N, GROUP, BLOCK_M, BLOCK_N);
}
