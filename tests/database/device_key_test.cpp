// DeviceKey and EnvironmentKey: equality and checked JSON (staleness: environments_test.cpp).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "database/device_key.hpp"
#include "database/json_reader.hpp"
#include "database/record_samples.hpp"

namespace jitgemm {
namespace {

using nlohmann::json;

TEST(DeviceKey, RoundTrips) {
  DeviceKey copy = json(testing::kH100).get<DeviceKey>();
  EXPECT_EQ(copy, testing::kH100);
  EnvironmentKey env = json(testing::kEnv).get<EnvironmentKey>();
  EXPECT_EQ(env, testing::kEnv);
}

TEST(DeviceKey, RejectsBadValues) {
  json j = testing::kH100;
  j["name"] = "";
  EXPECT_THROW(j.get<DeviceKey>(), FieldError);
  j = testing::kH100;
  j["sm_count"] = 0;
  try {
    j.get<DeviceKey>();
    FAIL();
  } catch (const FieldError& e) {
    EXPECT_EQ(std::string(e.what()), "sm_count: expected 1..100000, got 0");
  }
}

}  // namespace
}  // namespace jitgemm
