// DeviceInfo helpers that need no device.
#include "cuda/device_info.hpp"

#include <gtest/gtest.h>

namespace jitgemm::cuda {
namespace {

TEST(ShortGpuName, KnownGpusByTheirShortNameOthersWithSafeCharacters) {
  EXPECT_EQ(short_gpu_name("NVIDIA H200"), "H200");
  EXPECT_EQ(short_gpu_name("NVIDIA H100 80GB HBM3"), "H100");
  EXPECT_EQ(short_gpu_name("Tesla V100/32"), "Tesla_V100_32");
}

}  // namespace
}  // namespace jitgemm::cuda
