// tma.cuh — bulk tensor copies global -> shared through the Tensor Memory Accelerator (sm_90).
//
// PTX ISA, "Data Movement and Conversion Instructions: cp.async.bulk.tensor" and
// "prefetch.tensormap" (docs.nvidia.com/cuda/parallel-thread-execution, anchors
// #data-movement-and-conversion-instructions-cp-async-bulk-tensor and
// #data-movement-and-conversion-instructions-prefetch-prefetchu; section 9.7.9.25.5 in ISA 8.x).
//
// The copy is described by a tensor map (CUtensorMap, 128 opaque bytes, 64-byte aligned)
// that the host encodes with cuTensorMapEncodeTiled and passes as a
// `const __grid_constant__` kernel parameter: the instruction reads it from parameter space
// through its generic address. For a 2-D map over a row-major plane:
//   globalDim     {cols, rows}          elements; reads past them land as zeros in shared
//                                       memory (OOB fill NONE), so edge tiles need no masks
//   globalStrides {row_bytes}           multiple of 16
//   boxDim        {box_cols, box_rows}  the shared tile, box_cols * 4 bytes <= swizzle span
//   swizzle       32/64/128-byte        the layout wgmma's descriptor swizzle mode names
// Every copy writes the whole box (zeros included) and completes box bytes of transactions
// on the mbarrier it names, whatever part of the box was in bounds.
#pragma once

// Layout-compatible with CUtensorMap from cuda.h (NVRTC carries no cuda.h): the driver
// writes these bytes, the kernel only takes their address.
struct __align__(64) TensorMap {
  unsigned long long opaque[16];
};
static_assert(sizeof(TensorMap) == 128, "CUtensorMap is 128 bytes");

// Pulls the tensor map into the TMA unit's descriptor cache ahead of the first copy.
__device__ __forceinline__ void tma_prefetch_map(const TensorMap* map) {
  asm volatile("prefetch.tensormap [%0];\n" ::"l"(reinterpret_cast<unsigned long long>(map))
               : "memory");
}

// cp.async.bulk.tensor.2d: the box whose first element is (col, row) of `map` -> shared
// memory at `dst` (32-bit shared address, aligned to the swizzle atom: 1024 bytes for
// 128-byte swizzle), completing box bytes on mbarrier `bar`. Issued by one thread.
// col is the inner (contiguous) coordinate, row the outer one, both in elements; either
// may point past the tensor (the box is zero-filled there).
__device__ __forceinline__ void tma_load_2d(unsigned dst, const TensorMap* map, unsigned bar,
                                            int col, int row) {
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes"
      " [%0], [%1, {%2, %3}], [%4];\n" ::"r"(dst),
      "l"(reinterpret_cast<unsigned long long>(map)), "r"(col), "r"(row), "r"(bar)
      : "memory");
}

// The same box, written at the same shared offset `dst` of every CTA of the cluster whose bit
// is set in `cta_mask`, each completing the box bytes on its own mbarrier at offset `bar`
// (.multicast::cluster). Issued by one thread of one CTA.
__device__ __forceinline__ void tma_load_2d_multicast(unsigned dst, const TensorMap* map, unsigned bar, int col,
                                                      int row, unsigned short cta_mask) {
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster"
      " [%0], [%1, {%2, %3}], [%4], %5;\n" ::"r"(dst),
      "l"(reinterpret_cast<unsigned long long>(map)), "r"(col), "r"(row), "r"(bar), "h"(cta_mask)
      : "memory");
}
