// tile_order.cuh — which C tile a CTA of a one-tile-per-CTA launch computes.
#pragma once

struct TileCoord {
  int m0, n0;  // first row and column of the CTA's C tile
};

// Grouped order for L2 reuse: CTA `cta` of the ceil(M / BLOCK_M) x ceil(N / BLOCK_N) tiles
// takes them GROUP tile rows at a time, walking down the rows of a group before moving one
// tile column right, so the CTAs resident together share a few panels of A and B.
template <int BLOCK_M, int BLOCK_N, int GROUP>
__device__ __forceinline__ TileCoord grouped_tile_coord(int cta, int M, int N) {
  static_assert(GROUP >= 1, "GROUP counts tile rows per launch group");
  const int tiles_m = (M + BLOCK_M - 1) / BLOCK_M;
  const int tiles_n = (N + BLOCK_N - 1) / BLOCK_N;
  const int per_group = GROUP * tiles_n;             // CTAs in a full group
  const int first_row = (cta / per_group) * GROUP;
  const int rows = min(tiles_m - first_row, GROUP);  // the last group may be shorter
  const int in_group = cta % per_group;
  return {(first_row + in_group % rows) * BLOCK_M, (in_group / rows) * BLOCK_N};
}
