// Owns one device allocation (cuMemAlloc / cuMemFree) and the copies in and out of it.
#pragma once

#include <cuda.h>

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace jitgemm::cuda {

class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  // Allocates `bytes` in the current context (0 bytes: an empty buffer). Throws CudaError.
  explicit DeviceBuffer(std::size_t bytes);
  ~DeviceBuffer();
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  DeviceBuffer(DeviceBuffer&& other) noexcept;
  DeviceBuffer& operator=(DeviceBuffer&& other) noexcept;

  CUdeviceptr get() const noexcept { return ptr_; }
  template <class T>
  T* as() const noexcept {
    return reinterpret_cast<T*>(static_cast<std::uintptr_t>(ptr_));
  }
  std::size_t size() const noexcept { return bytes_; }

  // Copies of `bytes` at byte `offset`, complete when they return: work on any stream,
  // non-blocking ones too, sees what copy_from_host wrote, and copy_to_host reads what work on
  // any stream wrote before the call (it waits for the whole context first); InvalidArgument
  // when out of range.
  void copy_from_host(const void* src, std::size_t bytes, std::size_t offset = 0);
  void copy_to_host(void* dst, std::size_t bytes, std::size_t offset = 0) const;
  // Stream-ordered versions (the host memory must stay alive until the copy completes).
  void copy_from_host_async(const void* src, std::size_t bytes, CUstream stream, std::size_t offset = 0);
  void copy_to_host_async(void* dst, std::size_t bytes, CUstream stream, std::size_t offset = 0) const;
  // Sets every byte to `value` on `stream`.
  void fill_bytes_async(unsigned char value, CUstream stream);

  template <class T>
  void copy_from_host(std::span<const T> src) {
    copy_from_host(src.data(), src.size_bytes());
  }
  template <class T>
  std::vector<T> to_host_vector(std::size_t count) const {
    std::vector<T> out(count);
    copy_to_host(out.data(), count * sizeof(T));
    return out;
  }

  // Frees now and throws CudaError on failure; the object is empty afterwards.
  void release();

 private:
  void check_range(const char* what, std::size_t bytes, std::size_t offset) const;

  CUdeviceptr ptr_ = 0;
  std::size_t bytes_ = 0;
};

}  // namespace jitgemm::cuda
