// The diagonal of a stored matrix set to 0 without a kernel: one strided 32-bit memset
// (cuMemsetD2D32Async with a "row" of one float and a pitch of ld + 1 floats walks the
// diagonal). Used by the unit-diagonal projection of a gradient (jitgemm/backward.hpp), whose
// diagonal is no parameter.
#pragma once

#include <cuda.h>

#include <cstdint>

namespace jitgemm {

// x[i * ld + i] = 0 for i < min(rows, cols), stream-ordered. Nothing for an empty matrix.
void zero_diagonal(CUdeviceptr x, int64_t rows, int64_t cols, int64_t ld, CUstream stream);

}  // namespace jitgemm
