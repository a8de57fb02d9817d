// DeviceKey and EnvironmentKey: this machine's device, and JSON (see device_key.hpp;
// current_environment, which asks NVRTC, is in current_environment.cpp).
#include "database/device_key.hpp"

#include <climits>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cuda/device_info.hpp"
#include "database/json_reader.hpp"

namespace jitgemm {

using json_reader::read_int;
using json_reader::read_string;

DeviceKey device_key(const cuda::DeviceInfo& info) {
  return DeviceKey{info.name, info.cc_major * 10 + info.cc_minor, info.sm_count};
}

void to_json(nlohmann::json& j, const DeviceKey& d) {
  j = nlohmann::json{{"name", d.name}, {"sm", d.sm}, {"sm_count", d.sm_count}};
}

void from_json(const nlohmann::json& j, DeviceKey& d) {
  json_reader::expect_fields(j, {"name", "sm", "sm_count"});
  d.name = read_string(j, "name");
  d.sm = static_cast<int>(read_int(j, "sm", 10, 999));
  d.sm_count = static_cast<int>(read_int(j, "sm_count", 1, 100000));
}

void to_json(nlohmann::json& j, const EnvironmentKey& e) {
  j = nlohmann::json{{"driver_version", e.driver_version},
                     {"nvrtc_version", e.nvrtc_version},
                     {"template_hash", e.template_hash},
                     {"jitgemm_version", e.jitgemm_version}};
}

void from_json(const nlohmann::json& j, EnvironmentKey& e) {
  json_reader::expect_fields(j, {"driver_version", "nvrtc_version", "template_hash", "jitgemm_version"});
  e.driver_version = static_cast<int>(read_int(j, "driver_version", 1, INT_MAX));
  e.nvrtc_version = static_cast<int>(read_int(j, "nvrtc_version", 1, INT_MAX));
  e.template_hash = read_string(j, "template_hash");
  e.jitgemm_version = read_string(j, "jitgemm_version");
}

}  // namespace jitgemm
