#include "launch/workspace_pool.hpp"

#include <fmt/format.h>

#include <cstdio>

#include "cuda/driver_api.hpp"

namespace jitgemm {

WorkspacePool::Lease::~Lease() {
  if (!stream_ordered_) return;
  if (const CUresult r = cuda::driver().cuMemFreeAsync(ptr_, ordered_on_); r != CUDA_SUCCESS)
    fmt::print(stderr, "jitgemm: warning: cuMemFreeAsync of a captured workspace failed: {}\n",
               cuda::describe_result(r));
}

WorkspacePool::Lease WorkspacePool::get(CUstream stream, size_t bytes, bool capturing) {
  if (bytes == 0) return Lease(CUdeviceptr{0});
  if (capturing) {
    CUdeviceptr ptr = 0;
    JITGEMM_CU(cuda::driver().cuMemAllocAsync(&ptr, bytes, stream), "{} bytes of workspace in a CUDA graph capture",
               bytes);
    return Lease(ptr, stream);
  }
  std::lock_guard lock(mutex_);
  cuda::DeviceBuffer& buffer = buffers_[stream];
  if (buffer.size() < bytes) {
    if (buffer.size() > 0) JITGEMM_CU(cuda::driver().cuStreamSynchronize(stream), "before growing the workspace");
    buffer = cuda::DeviceBuffer(bytes);
  }
  return Lease(buffer.get());
}

}  // namespace jitgemm
