// Owns a retained primary context of one device (cuDevicePrimaryCtxRetain / Release).
#pragma once

#include <cuda.h>

namespace jitgemm::cuda {

// Retains the primary context of device `ordinal` and makes it current on the calling
// thread. Move-only; the destructor releases the retain (never throws, logs a failure).
class PrimaryContext {
 public:
  explicit PrimaryContext(int ordinal = 0);
  ~PrimaryContext();
  PrimaryContext(const PrimaryContext&) = delete;
  PrimaryContext& operator=(const PrimaryContext&) = delete;
  PrimaryContext(PrimaryContext&& other) noexcept;
  PrimaryContext& operator=(PrimaryContext&& other) noexcept;

  CUcontext get() const noexcept { return context_; }
  int device() const noexcept { return ordinal_; }
  // Makes the context current on the calling thread (each thread that launches needs it).
  void make_current() const;
  // Releases now and throws CudaError on failure; the object is empty afterwards.
  void release();

 private:
  int ordinal_ = -1;
  CUdevice device_ = 0;
  CUcontext context_ = nullptr;
};

}  // namespace jitgemm::cuda
