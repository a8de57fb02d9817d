// operand_triangle.cuh — a triangular operand that tf32/wgmma_gemm.cu reads raw (A in
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

template <int KEEP, int UNIT>
__device__ __forceinline__ float triangle_value(float x, int row, int k) {
  if (KEEP == 1 && k > row) return 0.0f;
  if (KEEP == 2 && k < row) return 0.0f;
  if (UNIT && k == row) return 1.0f;
  return x;
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
