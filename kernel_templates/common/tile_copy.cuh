// tile_copy.cuh — one ROWS x COLS tile of a row-major global matrix into shared memory with
// cp.async, as it lies (no transpose), for any leading dimension and base alignment.
//
// Global element (row, col) sits at matrix[row * ld + col]; the tile at (row0, col0) lands
// in shared memory at tile[r * STRIDE + c] for r < ROWS, c < COLS. Each copy moves VEC
// contiguous floats: VEC = 4 is one 16-byte cp.async and needs rows that start 16-byte
// aligned (ld % 4 == 0, 16-byte base, col0 % 4 == 0); VEC = 1 is one 4-byte cp.async per
// element and works for every ld and base.
//
// Thread map: the tile is UNITS = ROWS * COLS / VEC copies in row-major order; thread tid
// takes copies tid, tid + THREADS, ... (SLOTS of them), so consecutive threads read
// consecutive 16- or 4-byte words of a row (coalesced). Every slot sits at a compile-time
// offset (dr(s), dc(s)) from the thread's first copy: one address instruction per slot.
//
// CHECKED copies predicate every copy against the matrix extents (rows x cols of the whole
// operand): out-of-range elements are zero-filled (src-size 0 reads nothing; the source
// address then falls back to the matrix base), a float4 that straddles the column edge
// reads only its in-range floats. Unchecked copies must be known to be in range.
#pragma once

#include "common/address.cuh"
#include "common/cp_async.cuh"

template <int ROWS, int COLS, int STRIDE, int VEC, int THREADS>
struct TileCopy {
  static constexpr int UNITS_PER_ROW = COLS / VEC;
  static constexpr int UNITS = ROWS * UNITS_PER_ROW;
  static constexpr int SLOTS = (UNITS + THREADS - 1) / THREADS;
  static constexpr bool ALL_ACTIVE = UNITS >= THREADS;  // else threads >= UNITS idle

  static_assert(VEC == 1 || VEC == 4, "copies are 4 or 16 bytes");
  static_assert(COLS % VEC == 0, "a tile row must be a whole number of copies");
  static_assert(STRIDE % VEC == 0 && STRIDE >= COLS, "shared rows must hold a tile row and keep copies aligned");
  static_assert(UNITS_PER_ROW % THREADS == 0 || THREADS % UNITS_PER_ROW == 0,
                "a tile row must be a multiple or a divisor of the CTA's threads");
  static_assert(UNITS % THREADS == 0 || UNITS < THREADS, "copies must split evenly over the threads");

  // Offsets of slot s from the thread's first copy: rows, and columns (floats).
  __host__ __device__ static constexpr int dr(int s) { return (s * THREADS) / UNITS_PER_ROW; }
  __host__ __device__ static constexpr int dc(int s) { return ((s * THREADS) % UNITS_PER_ROW) * VEC; }

  const float* matrix;  // the operand's base: source of zero-filled copies
  const float* first;   // this thread's first element of the tile at shift (0, 0)
  unsigned row_bytes;   // ld * 4 (< 2^32: the kernel refuses larger ld)
  int row_first;        // row0 + this thread's first row
  int col_first;        // col0 + this thread's first column
  int rows, cols;       // extents of the whole operand
  int smem_first;       // this thread's first float inside a tile
  bool active;

  __device__ __forceinline__ TileCopy(const float* ptr, long long ld, int row0, int col0, int row_extent,
                                      int col_extent) {
    const int tid = threadIdx.x;
    const int r = tid / UNITS_PER_ROW;
    const int c = (tid % UNITS_PER_ROW) * VEC;
    matrix = ptr;
    first = ptr + (long long)(row0 + r) * ld + (col0 + c);
    row_bytes = static_cast<unsigned>(ld) * 4u;
    row_first = row0 + r;
    col_first = col0 + c;
    rows = row_extent;
    cols = col_extent;
    smem_first = r * STRIDE + c;
    active = ALL_ACTIVE || tid < UNITS;
  }

  // Copies the tile at (row0 + row_shift, col0 + col_shift) into `tile`. One of the shifts
  // is the K offset of a pipeline slice, the other a literal 0 (folded after inlining).
  template <bool CHECKED>
  __device__ __forceinline__ void copy(float* tile, int row_shift, int col_shift) const {
    if (!ALL_ACTIVE && !active) return;
    const float* origin = (row_shift == 0 ? first : add_rows(first, row_shift, row_bytes)) + col_shift;
    const unsigned dst0 = shared_address(tile + smem_first);
#pragma unroll
    for (int s = 0; s < SLOTS; ++s) {
      const unsigned dst = dst0 + (dr(s) * STRIDE + dc(s)) * 4;
      const float* src = (dr(s) == 0 ? origin : add_rows(origin, dr(s), row_bytes)) + dc(s);
      if (!CHECKED) {
        if (VEC == 4) cp_async_16(dst, src); else cp_async_4(dst, src);
        continue;
      }
      const int row = row_first + row_shift + dr(s);
      const int col = col_first + col_shift + dc(s);
      // Floats of this copy in range: 0..VEC.
      const int valid = row < rows ? min(max(cols - col, 0), VEC) : 0;
      if (VEC == 4) cp_async_16(dst, valid > 0 ? src : matrix, valid * 4);
      else cp_async_4(dst, valid > 0 ? src : matrix, valid * 4);
    }
  }
};
