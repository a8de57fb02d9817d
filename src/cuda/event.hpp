// Owns a CUevent (cuEventCreate / cuEventDestroy) and times the span between two events.
#pragma once

#include <cuda.h>

namespace jitgemm::cuda {

class Event {
 public:
  // CU_EVENT_DEFAULT records timing; pass CU_EVENT_DISABLE_TIMING for pure sync events.
  explicit Event(unsigned flags = CU_EVENT_DEFAULT);
  ~Event();
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;
  Event(Event&& other) noexcept;
  Event& operator=(Event&& other) noexcept;

  CUevent get() const noexcept { return event_; }
  void record(CUstream stream) const;
  void synchronize() const;
  // Destroys now and throws CudaError on failure; the object is empty afterwards.
  void release();

 private:
  CUevent event_ = nullptr;
};

// Milliseconds between two recorded events (cuEventElapsedTime). Waits for `stop` first.
float elapsed_ms(const Event& start, const Event& stop);

}  // namespace jitgemm::cuda
