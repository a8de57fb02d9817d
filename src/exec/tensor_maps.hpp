// TMA tensor maps of the wgmma kernels' operands: a 2-D float32 matrix (a TF32 plane in the
// workspace, or a caller's matrix read in place) as boxes of one swizzle row by some rows.
// A map encodes only (address, shape, stride, box), so the same arguments give the same map:
// each thread keeps the maps it encoded last in a small table of its own, and a launch that
// repeats a call's addresses encodes nothing and takes no lock.
//
//   CUtensorMap m = operand_tensor_map(plane, rows, k, ld, box_rows, box_k);
#pragma once

#include <cuda.h>

#include <cstdint>

namespace jitgemm {

// `rows` rows of `k` floats (the contiguous dimension: K, or M for an A stored K x M) with
// `ld` floats between rows; a box is box_k contiguous values (32: 128-byte swizzle, 16: 64-byte,
// else 32-byte) by box_rows rows; reads past either dimension come back as zeros. Throws
// CudaError naming the arguments when the driver refuses them.
CUtensorMap operand_tensor_map(CUdeviceptr base, int64_t rows, int64_t k, int64_t ld, int box_rows, int box_k);

}  // namespace jitgemm
