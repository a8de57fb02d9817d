// operand_triangle.cuh — a triangular (or symmetric) operand that tf32/wgmma_gemm.cu reads raw (A in
// registers, B transformed or rounded in shared memory), with no pre-pass to mask it: the
// elements outside its triangle are taken as zeros whatever memory holds there (NaN too), and a
// unit diagonal as ones, as BLAS trmm reads neither. TMA still copies them into shared memory;
// the value the kernel uses is decided here, before any rounding or inf/NaN test.
//
// KEEP (A_KEEP, B_KEEP of wgmma_gemm.cu) describes the kernel's operand as rows of K values,
// A'(m, k) and B'(n, k): 0 every element, 1 only k <= row, 2 only k >= row. UNIT: the element
// k == row is 1.
//
// Not self-standing: wgmma_gemm.cu includes it after its constants.
#pragma once

// The value the kernel uses for an element x of the operand at (row, k), given d = k - row.
// Selects, no branches: in the consumers the result is a wgmma register operand, and ptxas
// fences (warpgroup.arrive) registers that were written on divergent paths.
template <int KEEP, int UNIT>
__device__ __forceinline__ float triangle_value(float x, int d) {
  x = (KEEP == 1 && d > 0) || (KEEP == 2 && d < 0) ? 0.0f : x;
  return UNIT && d == 0 ? 1.0f : x;
}

// Whether rows row0 .. row0 + ROWS - 1 by K values k0 .. k0 + KS - 1 lie strictly inside the
// triangle, off its diagonal: nothing there to change. The work list trims each tile's K range
// to the triangle in whole units, so only the stages that meet the diagonal are masked.
template <int KEEP, int ROWS, int KS>
__device__ __forceinline__ bool triangle_inside(int row0, int k0) {
  if constexpr (KEEP == 1) return k0 + KS - 1 < row0;
  if constexpr (KEEP == 2) return k0 > row0 + ROWS - 1;
  return true;
}

// A symmetric operand read from its stored triangle (A_SYM of wgmma_gemm.cu: 1 lower, k <= row
// stored; 2 upper): whether element (row, k) lies on the other side, where the kernel reads its
// mirror (k, row). 32 x 32 sub-blocks go by their first row and K (whole on one side, or the
// diagonal block, which holds both).
template <int SYM>
__device__ __forceinline__ bool sym_mirrored(int row, int k) {
  return SYM == 1 ? k > row : k < row;
}
