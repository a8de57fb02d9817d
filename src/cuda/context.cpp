#include "cuda/context.hpp"

#include <utility>

#include "cuda/device_info.hpp"
#include "cuda/driver_api.hpp"
#include "jitgemm/error.hpp"

namespace jitgemm::cuda {

PrimaryContext::PrimaryContext(int ordinal) : ordinal_(ordinal) {
  const DriverApi& api = driver();
  const int count = device_count();
  if (ordinal < 0 || ordinal >= count)
    throw InvalidArgument(fmt::format("PrimaryContext: device={} is out of range (the driver sees {} device{})",
                                      ordinal, count, count == 1 ? "" : "s"));
  JITGEMM_CU(api.cuDeviceGet(&device_, ordinal), "ordinal {}", ordinal);
  JITGEMM_CU(api.cuDevicePrimaryCtxRetain(&context_, device_), "device {}", ordinal);
  try {
    make_current();
  } catch (...) {
    api.cuDevicePrimaryCtxRelease(device_);
    throw;
  }
}

PrimaryContext::~PrimaryContext() {
  if (context_ == nullptr) return;
  if (const CUresult r = driver().cuDevicePrimaryCtxRelease(device_); r != CUDA_SUCCESS)
    fmt::print(stderr, "jitgemm: warning: cuDevicePrimaryCtxRelease(device {}) failed in a destructor: {}\n",
               ordinal_, describe_result(r));
}

PrimaryContext::PrimaryContext(PrimaryContext&& other) noexcept
    : ordinal_(std::exchange(other.ordinal_, -1)),
      device_(std::exchange(other.device_, 0)),
      context_(std::exchange(other.context_, nullptr)) {}

PrimaryContext& PrimaryContext::operator=(PrimaryContext&& other) noexcept {
  if (this != &other) {
    PrimaryContext old(std::move(*this));
    ordinal_ = std::exchange(other.ordinal_, -1);
    device_ = std::exchange(other.device_, 0);
    context_ = std::exchange(other.context_, nullptr);
  }
  return *this;
}

void PrimaryContext::make_current() const {
  if (context_ == nullptr) throw InvalidArgument("PrimaryContext::make_current: the context was moved from or released");
  JITGEMM_CU(driver().cuCtxSetCurrent(context_), "primary context of device {}", ordinal_);
}

void PrimaryContext::release() {
  if (context_ == nullptr) return;
  const CUdevice device = device_;
  const int ordinal = ordinal_;
  context_ = nullptr;
  ordinal_ = -1;
  JITGEMM_CU(driver().cuDevicePrimaryCtxRelease(device), "device {}", ordinal);
}

}  // namespace jitgemm::cuda
