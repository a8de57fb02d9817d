#include "cuda/event.hpp"

#include <utility>

#include "cuda/driver_api.hpp"
#include "jitgemm/error.hpp"

namespace jitgemm::cuda {
namespace {

CUevent handle_of(const Event& event, const char* what) {
  if (event.get() == nullptr) throw InvalidArgument(fmt::format("{}: the event was moved from or released", what));
  return event.get();
}

}  // namespace

Event::Event(unsigned flags) { JITGEMM_CU(driver().cuEventCreate(&event_, flags), "flags {}", flags); }

Event::~Event() {
  if (event_ == nullptr) return;
  if (const CUresult r = driver().cuEventDestroy(event_); r != CUDA_SUCCESS)
    fmt::print(stderr, "jitgemm: warning: cuEventDestroy failed in a destructor: {}\n", describe_result(r));
}

Event::Event(Event&& other) noexcept : event_(std::exchange(other.event_, nullptr)) {}

Event& Event::operator=(Event&& other) noexcept {
  if (this != &other) {
    Event old(std::move(*this));
    event_ = std::exchange(other.event_, nullptr);
  }
  return *this;
}

void Event::record(CUstream stream) const {
  JITGEMM_CU(driver().cuEventRecord(handle_of(*this, "Event::record"), stream), "stream {}",
             static_cast<const void*>(stream));
}

void Event::synchronize() const { JITGEMM_CU(driver().cuEventSynchronize(handle_of(*this, "Event::synchronize"))); }

void Event::release() {
  if (event_ == nullptr) return;
  JITGEMM_CU(driver().cuEventDestroy(std::exchange(event_, nullptr)));
}

float elapsed_ms(const Event& start, const Event& stop) {
  CUevent start_event = handle_of(start, "elapsed_ms(start)");
  CUevent stop_event = handle_of(stop, "elapsed_ms(stop)");
  stop.synchronize();
  float ms = 0.0f;
  JITGEMM_CU(driver().cuEventElapsedTime(&ms, start_event, stop_event), "start, stop");
  return ms;
}

}  // namespace jitgemm::cuda
