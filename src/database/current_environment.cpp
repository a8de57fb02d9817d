// current_environment (device_key.hpp): in a file of its own because it asks the NVRTC
// library for its version, and the database library that jitgemm-db links (jitgemm_records in
// CMakeLists.txt) has no NVRTC; libjitgemm compiles this file, jitgemm-db does not.
#include <string>

#include "compile/compiler.hpp"
#include "cuda/device_info.hpp"
#include "database/device_key.hpp"
#include "jitgemm/runtime.hpp"

namespace jitgemm {

EnvironmentKey current_environment(const cuda::DeviceInfo& info, const std::string& template_hash) {
  return EnvironmentKey{info.driver_version, nvrtc_version(), template_hash, std::string(version())};
}

}  // namespace jitgemm
