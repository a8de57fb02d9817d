// Owns a CUstream (cuStreamCreate / cuStreamDestroy).
#pragma once

#include <cuda.h>

namespace jitgemm::cuda {

class Stream {
 public:
  // Creates a stream in the current context; non-blocking (no implicit sync with stream 0) by default.
  explicit Stream(unsigned flags = CU_STREAM_NON_BLOCKING);
  ~Stream();
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;
  Stream(Stream&& other) noexcept;
  Stream& operator=(Stream&& other) noexcept;

  CUstream get() const noexcept { return stream_; }
  void synchronize() const;
  // Destroys now and throws CudaError on failure; the object is empty afterwards.
  void release();

 private:
  CUstream stream_ = nullptr;
};

// Whether work queued on `stream` is being captured into a CUDA graph (cuStreamIsCapturing).
bool is_capturing(CUstream stream);

}  // namespace jitgemm::cuda
