// What the tuner and the launcher need to know about one device, read through the driver.
#pragma once

#include <cstddef>
#include <string>

namespace jitgemm::cuda {

struct DeviceInfo {
  int ordinal = 0;
  std::string name;                  // "NVIDIA H100 80GB HBM3"
  int cc_major = 0;                  // compute capability, 9.0 on Hopper
  int cc_minor = 0;
  int sm_count = 0;                  // streaming multiprocessors
  int l2_bytes = 0;                  // L2 cache size
  int max_smem_per_block_optin = 0;  // dynamic shared memory a block may opt into
  int driver_version = 0;            // e.g. 13000 for CUDA 13.0
  std::size_t total_memory_bytes = 0;
};

// Queries device `ordinal` (initialising the driver if needed). Throws InvalidArgument
// when the ordinal is out of range, CudaError when the driver or a query fails.
DeviceInfo query_device(int ordinal);

// Number of devices the driver sees; throws CudaError when no driver is usable.
int device_count();

// "H200" / "H100" / ... for a known GPU, else the device name with spaces and slashes
// replaced by '_': used in result file names.
std::string short_gpu_name(const std::string& device_name);

}  // namespace jitgemm::cuda
