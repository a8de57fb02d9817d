#include "cuda/stream.hpp"

#include <utility>

#include "cuda/driver_api.hpp"
#include "jitgemm/error.hpp"

namespace jitgemm::cuda {

Stream::Stream(unsigned flags) { JITGEMM_CU(driver().cuStreamCreate(&stream_, flags), "flags {}", flags); }

Stream::~Stream() {
  if (stream_ == nullptr) return;
  if (const CUresult r = driver().cuStreamDestroy(stream_); r != CUDA_SUCCESS)
    fmt::print(stderr, "jitgemm: warning: cuStreamDestroy failed in a destructor: {}\n", describe_result(r));
}

Stream::Stream(Stream&& other) noexcept : stream_(std::exchange(other.stream_, nullptr)) {}

Stream& Stream::operator=(Stream&& other) noexcept {
  if (this != &other) {
    Stream old(std::move(*this));
    stream_ = std::exchange(other.stream_, nullptr);
  }
  return *this;
}

void Stream::synchronize() const {
  if (stream_ == nullptr) throw InvalidArgument("Stream::synchronize: the stream was moved from or released");
  JITGEMM_CU(driver().cuStreamSynchronize(stream_));
}

void Stream::release() {
  if (stream_ == nullptr) return;
  JITGEMM_CU(driver().cuStreamDestroy(std::exchange(stream_, nullptr)));
}

bool is_capturing(CUstream stream) {
  CUstreamCaptureStatus status = CU_STREAM_CAPTURE_STATUS_NONE;
  JITGEMM_CU(driver().cuStreamIsCapturing(stream, &status), "stream {}", static_cast<void*>(stream));
  return status != CU_STREAM_CAPTURE_STATUS_NONE;
}

}  // namespace jitgemm::cuda
