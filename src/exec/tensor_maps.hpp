// TMA tensor maps of the wgmma kernels' operands: a 2-D float32 matrix (a TF32 plane in the
// workspace, or a caller's matrix read in place) as boxes of one swizzle row by some rows.
// A map encodes only (address, shape, stride, box, element), so the same arguments give the same map:
// each thread keeps the maps it encoded last in a small table of its own, and a launch that
// repeats a call's addresses encodes nothing and takes no lock.
//
//   CUtensorMap m = operand_tensor_map(plane, rows, k, ld, box_rows, box_k, TmaElement::Float32);
#pragma once

#include <cuda.h>

#include <cstdint>

namespace jitgemm {

// What a copy through the map does to each float. Float32: copied as it is. Tf32: rounded to
// TF32 on the way (CU_TENSOR_MAP_DATA_TYPE_TFLOAT32; measured on an H200, session 35: a tf32
// product of a raw B so copied has cuBLAS TF32's error, 2.79e-5 on 4096^3 uniform [0, 1)
// inputs, where the same copy as Float32, the tensor cores dropping the low 13 bits, gave the
// truncation's bias, 3.5e-4). tf32 mode reads every operand so, and needs no rounding of its
// own; tf32x3 splits exact floats and reads Float32.
enum class TmaElement { Float32, Tf32 };

// `rows` rows of `k` floats (the contiguous dimension: K, or M for an A stored K x M) with
// `ld` floats between rows; a box is box_k contiguous values (32: 128-byte swizzle, 16: 64-byte,
// else 32-byte) by box_rows rows; reads past either dimension come back as zeros. Throws
// CudaError naming the arguments when the driver refuses them.
CUtensorMap operand_tensor_map(CUdeviceptr base, int64_t rows, int64_t k, int64_t ld, int box_rows, int box_k,
                               TmaElement element);

}  // namespace jitgemm
