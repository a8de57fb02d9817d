// work_list.hpp — the output tiles of a structured product and the K range each one needs,
// ordered for balance. With triangular operands or an output fill most tiles need only part
// of K, and some none at all; the kernels (WORK_LIST = 1) walk this list instead of the grid.
//
//   WorkList list = build_work_list({Triangle::Lower, Triangle::Lower, Triangle::Lower},
//                                   {4096, 4096, 4096}, {128, 128, 32}, 132);
//   list.items[list.cta_begin[b] .. list.cta_begin[b + 1])   // what persistent CTA b computes
//
// Tile (I, J) covers rows [I·BM, (I+1)·BM) and columns [J·BN, (J+1)·BN) of the kernel's
// M x N output. op(A) lower needs k < (I+1)·BM, upper k >= I·BM; op(B) lower needs
// k >= J·BN, upper k < (J+1)·BN; the range is widened to whole K units (the kernel's K step),
// since the elements of a unit outside the triangle are zeros the kernel reads (the pre-pass
// or the structured copy wrote them). A tile whose range is empty, or that lies wholly in
// the strict triangle a fill zeroes, gets 0 units: the kernel stores it with no arithmetic
// (zeros, or beta·C).
//
// Persistent kernels (ctas > 0): items are dealt longest first, each to the CTA with the
// least work so far (LPT list scheduling), and cta_begin delimits each CTA's share. One-tile
// CTAs (ctas == 0): the items are simply ordered longest first, and the hardware, which
// starts CTAs in index order as SMs free up, deals them the same way.
//
// Split K (splits > 1, persistent wgmma): each tile's range is cut into `splits` nearly equal
// pieces, each an item of its own that writes its partial sum to slot s (its piece's index,
// slots[i] of item i) of a workspace the split-K reduction then adds in slot order: the same
// bits every run. Pieces are listed piece-major (every tile's piece 0, then piece 1, ...), so
// the CTAs working at the same time read the same K range of the shared operand panels.
#pragma once

#include <cstdint>
#include <vector>

#include "problem/operand_structure.hpp"

namespace jitgemm {

// One tile and its K range, as the kernels read it (an int4).
struct WorkItem {
  int32_t tile_m = 0, tile_n = 0;  // tile row and column
  int32_t first_unit = 0;          // first K unit
  int32_t units = 0;               // K units (0: no arithmetic)

  friend bool operator==(const WorkItem&, const WorkItem&) = default;
};
static_assert(sizeof(WorkItem) == 16, "a WorkItem is read as an int4");

struct WorkShape {
  int64_t m = 0, n = 0, k = 0;  // the kernel's M x N output, K
};
struct WorkTiling {
  int block_m = 0, block_n = 0;
  int unit_k = 0;  // K per unit
};

struct WorkList {
  std::vector<WorkItem> items;
  std::vector<int32_t> cta_begin;  // persistent: ctas + 1 offsets into items; else empty
  std::vector<int32_t> slots;      // split K: the partial-sum slot of each item; else empty
  int64_t units = 0;               // the sum of the items' units
  int64_t busiest_cta_units = 0;   // persistent: the largest share (in units, plus one per tile)
  // Average share over the largest (1: perfect), in units plus one per tile for its epilogue.
  double balance = 1.0;
  // The words to upload: the items, then cta_begin, then slots.
  std::vector<int32_t> words() const;
};

// The K units [first, first + count) tile (i, j) needs (count 0: none).
WorkItem tile_work(const ProductTriangles& t, const WorkShape& shape, const WorkTiling& tiling, int64_t i, int64_t j);

// Throws InvalidArgument for a tiling, shape or split out of range (splits > 1 needs ctas > 0).
WorkList build_work_list(const ProductTriangles& t, const WorkShape& shape, const WorkTiling& tiling, int ctas,
                         int splits = 1);

}  // namespace jitgemm
