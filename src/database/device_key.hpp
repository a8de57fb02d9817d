// The device and environment layers of a tuning record's key: which GPU a record was
// tuned on (DeviceKey, part of the lookup key) and with which software (EnvironmentKey,
// compared to flag a record as stale by staleness() in environments.hpp; a stale record is
// still served).
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

namespace jitgemm {

namespace cuda { struct DeviceInfo; }

struct DeviceKey {
  std::string name;  // as the driver reports it, e.g. "NVIDIA H100 80GB HBM3"
  int sm = 0;        // compute capability major * 10 + minor, e.g. 90
  int sm_count = 0;  // multiprocessors

  friend bool operator==(const DeviceKey&, const DeviceKey&) = default;
};

struct EnvironmentKey {
  int driver_version = 0;       // cuDriverGetVersion encoding: 1000 * major + 10 * minor
  int nvrtc_version = 0;        // same encoding, from nvrtcVersion
  std::string template_hash;    // hash of the kernel templates the record was tuned with
  std::string jitgemm_version;  // "0.1.0"

  friend bool operator==(const EnvironmentKey&, const EnvironmentKey&) = default;
};

// The key of the device `info` describes.
DeviceKey device_key(const cuda::DeviceInfo& info);

// Another GPU of the same architecture and SM count (an H100 SXM and an H200: sm90, 132 SMs):
// a config tuned on one is built for, and schedules its tiles over, the other as well, so its
// record for exactly a problem serves the other where that has none (serving_policy.hpp).
inline bool is_sibling(const DeviceKey& record, const DeviceKey& device) {
  return record.name != device.name && record.sm == device.sm && record.sm_count == device.sm_count;
}
// This process's environment: the driver of `info`, the NVRTC linked, this jitgemm's
// version, and `template_hash`, the hash of the kernel template that served or was tuned.
EnvironmentKey current_environment(const cuda::DeviceInfo& info, const std::string& template_hash);

// The fields that differ, one line each: "driver_version 12040 -> 12080" (from -> to).

// JSON: {"name", "sm", "sm_count"} and {"driver_version", "nvrtc_version",
// "template_hash", "jitgemm_version"}. from_json checks every field (FieldError).
void to_json(nlohmann::json& j, const DeviceKey& d);
void from_json(const nlohmann::json& j, DeviceKey& d);
void to_json(nlohmann::json& j, const EnvironmentKey& e);
void from_json(const nlohmann::json& j, EnvironmentKey& e);

}  // namespace jitgemm
