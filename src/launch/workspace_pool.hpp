// Device workspace of a Runtime (split-K partial products), one grow-only buffer per
// stream: work on one stream is ordered, so reusing its buffer is safe; two streams never
// share one. Thread-safe. Buffers live until the Runtime goes.
#pragma once

#include <cuda.h>

#include <map>
#include <mutex>

#include "cuda/device_buffer.hpp"

namespace jitgemm {

class WorkspacePool {
 public:
  // A buffer of at least `bytes` for `stream` (0 when bytes == 0). Growing a stream's
  // buffer first waits for the stream, since queued work may still use the old one.
  CUdeviceptr get(CUstream stream, size_t bytes);

 private:
  std::mutex mutex_;
  std::map<CUstream, cuda::DeviceBuffer> buffers_;
};

}  // namespace jitgemm
