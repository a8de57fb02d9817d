// build_work_list: per-tile K ranges of a structured product, dealt longest first.
#include "exec/work_list.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <climits>
#include <functional>
#include <queue>
#include <utility>

#include "jitgemm/error.hpp"

namespace jitgemm {
namespace {

// A tile's cost for balancing: its units, plus one for its epilogue (a zero tile still stores).
int64_t cost(const WorkItem& w) { return int64_t{w.units} + 1; }

}  // namespace

std::vector<int32_t> WorkList::words() const {
  std::vector<int32_t> out;
  out.reserve(items.size() * 4 + cta_begin.size());
  for (const WorkItem& w : items) out.insert(out.end(), {w.tile_m, w.tile_n, w.first_unit, w.units});
  out.insert(out.end(), cta_begin.begin(), cta_begin.end());
  out.insert(out.end(), slots.begin(), slots.end());
  return out;
}

WorkItem tile_work(const ProductTriangles& t, const WorkShape& shape, const WorkTiling& tiling, int64_t i, int64_t j) {
  const int64_t row0 = i * tiling.block_m, row1 = std::min(shape.m, row0 + tiling.block_m);
  const int64_t col0 = j * tiling.block_n, col1 = std::min(shape.n, col0 + tiling.block_n);
  WorkItem w{static_cast<int32_t>(i), static_cast<int32_t>(j), 0, 0};
  // Wholly inside the strict triangle the fill zeroes: no product at all.
  if (t.c == Triangle::Lower && row1 - 1 < col0) return w;
  if (t.c == Triangle::Upper && row0 > col1 - 1) return w;
  int64_t begin = 0, end = shape.k;
  if (t.a == Triangle::Lower) end = std::min(end, row1);  // op(A)(r, k) = 0 for k > r
  if (t.a == Triangle::Upper) begin = std::max(begin, row0);
  if (t.b == Triangle::Lower) begin = std::max(begin, col0);  // op(B)(k, c) = 0 for k < c
  if (t.b == Triangle::Upper) end = std::min(end, col1);
  if (begin >= end) return w;
  const int64_t first = begin / tiling.unit_k, last = (end + tiling.unit_k - 1) / tiling.unit_k;
  w.first_unit = static_cast<int32_t>(first);
  w.units = static_cast<int32_t>(last - first);
  return w;
}

WorkList build_work_list(const ProductTriangles& t, const WorkShape& shape, const WorkTiling& tiling, int ctas,
                         int splits) {
  if (tiling.block_m < 1 || tiling.block_n < 1 || tiling.unit_k < 1)
    throw InvalidArgument(fmt::format("build_work_list: tiles {}x{} with K units of {} must be positive",
                                      tiling.block_m, tiling.block_n, tiling.unit_k));
  if (shape.m < 0 || shape.n < 0 || shape.k < 0 || ctas < 0)
    throw InvalidArgument(fmt::format("build_work_list: shape {}x{}x{} and ctas={} must be >= 0", shape.m, shape.n,
                                      shape.k, ctas));
  if (splits < 1 || (splits > 1 && ctas == 0))
    throw InvalidArgument(fmt::format("build_work_list: splits={} must be >= 1, and 1 without persistent CTAs (ctas={})",
                                      splits, ctas));
  const int64_t tiles_m = (shape.m + tiling.block_m - 1) / tiling.block_m;
  const int64_t tiles_n = (shape.n + tiling.block_n - 1) / tiling.block_n;
  if (tiles_m * tiles_n * splits > INT_MAX / 4 || (shape.k + tiling.unit_k - 1) / tiling.unit_k > INT_MAX)
    throw InvalidArgument(fmt::format("build_work_list: {} x {} tiles in {} K pieces with K {} do not fit 32-bit work "
                                      "items",
                                      tiles_m, tiles_n, splits, shape.k));
  // Items with their slots, piece-major: piece s of every tile, row-major, then piece s + 1.
  struct Piece {
    WorkItem item;
    int32_t slot;
  };
  std::vector<WorkItem> tiles;
  tiles.reserve(static_cast<size_t>(tiles_m * tiles_n));
  for (int64_t i = 0; i < tiles_m; ++i)
    for (int64_t j = 0; j < tiles_n; ++j) tiles.push_back(tile_work(t, shape, tiling, i, j));
  std::vector<Piece> pieces;
  pieces.reserve(tiles.size() * static_cast<size_t>(splits));
  for (int s = 0; s < splits; ++s)
    for (const WorkItem& w : tiles) {
      // Piece s holds units [units * s / splits, units * (s + 1) / splits) of the tile's range.
      const int64_t begin = int64_t{w.units} * s / splits, end = int64_t{w.units} * (s + 1) / splits;
      pieces.push_back({{w.tile_m, w.tile_n, static_cast<int32_t>(w.first_unit + begin), static_cast<int32_t>(end - begin)},
                        s});
    }
  // Longest first; equal lengths keep the order above (neighbours share operand panels).
  std::stable_sort(pieces.begin(), pieces.end(),
                   [](const Piece& x, const Piece& y) { return x.item.units > y.item.units; });
  WorkList list;
  int64_t total_cost = 0;
  for (const Piece& p : pieces) list.units += p.item.units, total_cost += cost(p.item);
  auto keep = [&](const Piece& p) {
    list.items.push_back(p.item);
    if (splits > 1) list.slots.push_back(p.slot);
  };
  if (ctas == 0 || pieces.empty()) {
    for (const Piece& p : pieces) keep(p);
    return list;
  }

  // LPT: each item to the CTA with the least work so far (ties: the lower index).
  using Load = std::pair<int64_t, int>;  // (cost so far, cta)
  std::priority_queue<Load, std::vector<Load>, std::greater<Load>> least;
  for (int b = 0; b < ctas; ++b) least.push({0, b});
  std::vector<std::vector<Piece>> share(static_cast<size_t>(ctas));
  for (const Piece& p : pieces) {
    auto [load, b] = least.top();
    least.pop();
    share[static_cast<size_t>(b)].push_back(p);
    least.push({load + cost(p.item), b});
  }
  int64_t busiest = 0;
  while (!least.empty()) busiest = std::max(busiest, least.top().first), least.pop();
  list.cta_begin.push_back(0);
  for (const auto& s : share) {
    for (const Piece& p : s) keep(p);
    list.cta_begin.push_back(static_cast<int32_t>(list.items.size()));
  }
  list.busiest_cta_units = busiest;
  list.balance = busiest > 0 ? static_cast<double>(total_cost) / (static_cast<double>(busiest) * ctas) : 1.0;
  return list;
}

}  // namespace jitgemm
