#include "cuda/device_info.hpp"

#include <array>

#include "cuda/driver_api.hpp"
#include "jitgemm/error.hpp"

namespace jitgemm::cuda {
namespace {

int attribute(CUdevice device, int ordinal, CUdevice_attribute which, const char* what) {
  int value = 0;
  JITGEMM_CU(driver().cuDeviceGetAttribute(&value, which, device), "{}, device {}", what, ordinal);
  return value;
}

}  // namespace

int device_count() {
  int count = 0;
  JITGEMM_CU(driver().cuDeviceGetCount(&count));
  return count;
}

std::string short_gpu_name(const std::string& device_name) {
  for (const char* known : {"H200", "H100", "H20", "GH200", "B200"})
    if (device_name.find(known) != std::string::npos) return known;
  std::string name = device_name;
  for (char& ch : name)
    if (ch == ' ' || ch == '/') ch = '_';
  return name;
}

DeviceInfo query_device(int ordinal) {
  const DriverApi& api = driver();
  const int count = device_count();
  if (ordinal < 0 || ordinal >= count)
    throw InvalidArgument(fmt::format("query_device: ordinal={} is out of range (the driver sees {} device{})",
                                      ordinal, count, count == 1 ? "" : "s"));
  CUdevice device = 0;
  JITGEMM_CU(api.cuDeviceGet(&device, ordinal), "ordinal {}", ordinal);

  DeviceInfo info;
  info.ordinal = ordinal;
  std::array<char, 256> name{};
  JITGEMM_CU(api.cuDeviceGetName(name.data(), static_cast<int>(name.size()), device), "device {}", ordinal);
  info.name = name.data();
  info.cc_major = attribute(device, ordinal, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, "COMPUTE_CAPABILITY_MAJOR");
  info.cc_minor = attribute(device, ordinal, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, "COMPUTE_CAPABILITY_MINOR");
  info.sm_count = attribute(device, ordinal, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, "MULTIPROCESSOR_COUNT");
  info.l2_bytes = attribute(device, ordinal, CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE, "L2_CACHE_SIZE");
  info.max_smem_per_block_optin = attribute(device, ordinal, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN,
                                            "MAX_SHARED_MEMORY_PER_BLOCK_OPTIN");
  JITGEMM_CU(api.cuDriverGetVersion(&info.driver_version));
  JITGEMM_CU(api.cuDeviceTotalMem(&info.total_memory_bytes, device), "device {}", ordinal);
  return info;
}

}  // namespace jitgemm::cuda
