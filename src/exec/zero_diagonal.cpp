#include "exec/zero_diagonal.hpp"

#include <algorithm>
#include <climits>

#include "cuda/driver_api.hpp"

namespace jitgemm {

void zero_diagonal(CUdeviceptr x, int64_t rows, int64_t cols, int64_t ld, CUstream stream) {
  const int64_t count = std::min(rows, cols);
  if (count <= 0) return;
  // Diagonal element i lies (ld + 1) * i floats from x: the pitch of a count x 1 region.
  const size_t pitch_bytes = sizeof(float) * static_cast<size_t>(ld + 1);
  if (pitch_bytes <= static_cast<size_t>(INT_MAX)) {
    JITGEMM_CU(cuda::driver().cuMemsetD2D32Async(x, pitch_bytes, 0u, 1, static_cast<size_t>(count), stream),
               "diagonal of {} elements, pitch {} B", count, pitch_bytes);
    return;
  }
  // Pitches past the driver's pitch limit (ld >= 2^29: then at most 2^11 rows by the 2^40
  // element bound of validate): one element at a time.
  for (int64_t i = 0; i < count; ++i)
    JITGEMM_CU(cuda::driver().cuMemsetD32Async(x + pitch_bytes * static_cast<size_t>(i), 0u, 1, stream),
               "diagonal element {}", i);
}

}  // namespace jitgemm
