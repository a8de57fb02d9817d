#include "cuda/device_buffer.hpp"

#include <utility>

#include "cuda/driver_api.hpp"
#include "jitgemm/error.hpp"

namespace jitgemm::cuda {

DeviceBuffer::DeviceBuffer(std::size_t bytes) {
  if (bytes == 0) return;
  JITGEMM_CU(driver().cuMemAlloc(&ptr_, bytes), "{} bytes ({})", bytes, format_bytes(bytes));
  bytes_ = bytes;
}

DeviceBuffer::~DeviceBuffer() {
  if (ptr_ == 0) return;
  if (const CUresult r = driver().cuMemFree(ptr_); r != CUDA_SUCCESS)
    fmt::print(stderr, "jitgemm: warning: cuMemFree({} bytes) failed in a destructor: {}\n", bytes_,
               describe_result(r));
}

DeviceBuffer::DeviceBuffer(DeviceBuffer&& other) noexcept
    : ptr_(std::exchange(other.ptr_, 0)), bytes_(std::exchange(other.bytes_, 0)) {}

DeviceBuffer& DeviceBuffer::operator=(DeviceBuffer&& other) noexcept {
  if (this != &other) {
    DeviceBuffer old(std::move(*this));
    ptr_ = std::exchange(other.ptr_, 0);
    bytes_ = std::exchange(other.bytes_, 0);
  }
  return *this;
}

void DeviceBuffer::check_range(const char* what, std::size_t bytes, std::size_t offset) const {
  if (offset > bytes_ || bytes > bytes_ - offset)
    throw InvalidArgument(fmt::format("DeviceBuffer::{}: bytes={} at offset={} exceed the buffer size {}", what, bytes,
                                      offset, bytes_));
}

void DeviceBuffer::copy_from_host(const void* src, std::size_t bytes, std::size_t offset) {
  check_range("copy_from_host", bytes, offset);
  if (bytes == 0) return;
  JITGEMM_CU(driver().cuMemcpyHtoD(ptr_ + offset, src, bytes), "{} bytes at offset {}", bytes, offset);
  // From pageable memory cuMemcpyHtoD returns once the bytes are staged, before the DMA has
  // reached the device; work on a non-blocking stream is not ordered after it and could read
  // the old contents. Wait for the legacy stream, which holds the copy.
  JITGEMM_CU(driver().cuStreamSynchronize(CU_STREAM_LEGACY), "after copying {} bytes at offset {}", bytes, offset);
}

void DeviceBuffer::copy_to_host(void* dst, std::size_t bytes, std::size_t offset) const {
  check_range("copy_to_host", bytes, offset);
  if (bytes == 0) return;
  // cuMemcpyDtoH runs on the legacy stream, which does not wait for non-blocking streams: wait
  // for all of the context's work first, so that what any stream wrote before this call is read.
  JITGEMM_CU(driver().cuCtxSynchronize(), "before copying {} bytes at offset {} to the host", bytes, offset);
  JITGEMM_CU(driver().cuMemcpyDtoH(dst, ptr_ + offset, bytes), "{} bytes at offset {}", bytes, offset);
}

void DeviceBuffer::copy_from_host_async(const void* src, std::size_t bytes, CUstream stream, std::size_t offset) {
  check_range("copy_from_host_async", bytes, offset);
  if (bytes == 0) return;
  JITGEMM_CU(driver().cuMemcpyHtoDAsync(ptr_ + offset, src, bytes, stream), "{} bytes at offset {}", bytes, offset);
}

void DeviceBuffer::copy_to_host_async(void* dst, std::size_t bytes, CUstream stream, std::size_t offset) const {
  check_range("copy_to_host_async", bytes, offset);
  if (bytes == 0) return;
  JITGEMM_CU(driver().cuMemcpyDtoHAsync(dst, ptr_ + offset, bytes, stream), "{} bytes at offset {}", bytes, offset);
}

void DeviceBuffer::fill_bytes_async(unsigned char value, CUstream stream) {
  if (bytes_ == 0) return;
  JITGEMM_CU(driver().cuMemsetD8Async(ptr_, value, bytes_, stream), "value {}, {} bytes", value, bytes_);
}

void DeviceBuffer::release() {
  if (ptr_ == 0) return;
  const std::size_t bytes = std::exchange(bytes_, 0);
  JITGEMM_CU(driver().cuMemFree(std::exchange(ptr_, 0)), "{} bytes", bytes);
}

}  // namespace jitgemm::cuda
