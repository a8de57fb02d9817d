#include "launch/workspace_pool.hpp"

#include <fmt/format.h>

#include <cstdio>

#include "cuda/driver_api.hpp"

namespace jitgemm {
namespace {

// The calling thread's last pooled buffer.
struct LastBuffer {
  uint64_t pool = 0, generation = 0;
  CUstream stream = nullptr;
  CUdeviceptr ptr = 0;
  size_t bytes = 0;
};
thread_local LastBuffer t_last;

}  // namespace

uint64_t WorkspacePool::next_id() noexcept {
  static std::atomic<uint64_t> next{1};
  return next.fetch_add(1, std::memory_order_relaxed);
}

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
  const LastBuffer& last = t_last;
  if (last.pool == id_ && last.stream == stream && last.bytes >= bytes &&
      last.generation == generation_.load(std::memory_order_acquire))
    return Lease(last.ptr);
  std::lock_guard lock(mutex_);
  cuda::DeviceBuffer& buffer = buffers_[stream];
  if (buffer.size() < bytes) {
    if (buffer.size() > 0) JITGEMM_CU(cuda::driver().cuStreamSynchronize(stream), "before growing the workspace");
    buffer = cuda::DeviceBuffer(bytes);
    generation_.fetch_add(1, std::memory_order_acq_rel);
  }
  t_last = {id_, generation_.load(std::memory_order_acquire), stream, buffer.get(), buffer.size()};
  return Lease(buffer.get());
}

}  // namespace jitgemm
