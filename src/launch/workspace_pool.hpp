// Device workspace of a Runtime (split-K partial products, pre-pass planes), one grow-only
// buffer per stream: work on one stream is ordered, so reusing its buffer is safe; two
// streams never share one. During a CUDA graph capture the call gets its own stream-ordered
// allocation instead (cuMemAllocAsync, freed by cuMemFreeAsync after the call's work): the
// graph owns that memory, and no later growth of a pooled buffer can pull it from under a
// replay. Thread-safe. Pooled buffers live until the Runtime goes.
//
// A repeated call takes no lock: each thread remembers the last buffer it was given (pool,
// stream, address, size) with the pool's generation, which every growth of any buffer bumps;
// a remembered buffer of the current generation is still the stream's.
//
//   WorkspacePool::Lease ws = workspaces.get(stream, plan.workspace.total_bytes);
//   launcher.launch(..., ws.get(), stream);   // ws released after the launches are queued
#pragma once

#include <cuda.h>

#include <atomic>
#include <cstdint>
#include <map>
#include <mutex>

#include "cuda/device_buffer.hpp"

namespace jitgemm {

class WorkspacePool {
 public:
  // One call's workspace; a capture's allocation is freed (stream-ordered) when it goes.
  class Lease {
   public:
    Lease() = default;
    ~Lease();
    Lease(const Lease&) = delete;
    Lease& operator=(const Lease&) = delete;
    CUdeviceptr get() const noexcept { return ptr_; }

   private:
    friend class WorkspacePool;
    Lease(CUdeviceptr ptr, CUstream ordered_on) : ptr_(ptr), ordered_on_(ordered_on), stream_ordered_(true) {}
    explicit Lease(CUdeviceptr pooled) : ptr_(pooled) {}
    CUdeviceptr ptr_ = 0;
    CUstream ordered_on_ = nullptr;
    bool stream_ordered_ = false;
  };

  // A workspace of at least `bytes` for `stream` (0 when bytes == 0). Growing a stream's
  // buffer first waits for the stream, since queued work may still use the old one.
  // `capturing`: the stream is being captured (cuda::is_capturing).
  Lease get(CUstream stream, size_t bytes, bool capturing);

 private:
  const uint64_t id_ = next_id();  // names this pool in the threads' memories
  std::atomic<uint64_t> generation_{0};
  std::mutex mutex_;
  std::map<CUstream, cuda::DeviceBuffer> buffers_;

  static uint64_t next_id() noexcept;
};

}  // namespace jitgemm
