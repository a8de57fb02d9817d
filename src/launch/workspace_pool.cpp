#include "launch/workspace_pool.hpp"

#include "cuda/driver_api.hpp"

namespace jitgemm {

CUdeviceptr WorkspacePool::get(CUstream stream, size_t bytes) {
  if (bytes == 0) return 0;
  std::lock_guard lock(mutex_);
  cuda::DeviceBuffer& buffer = buffers_[stream];
  if (buffer.size() < bytes) {
    if (buffer.size() > 0) JITGEMM_CU(cuda::driver().cuStreamSynchronize(stream), "before growing the workspace");
    buffer = cuda::DeviceBuffer(bytes);
  }
  return buffer.get();
}

}  // namespace jitgemm
