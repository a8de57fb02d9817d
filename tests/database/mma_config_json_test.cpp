// KernelConfig JSON for the mma.sync families: every field round-trips (acc_block_k always
// written, also at its default), a record of such a config survives a save/load, and bad
// values name the field.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "database/config_json.hpp"
#include "database/json_reader.hpp"
#include "database/record_reader.hpp"
#include "database/record_samples.hpp"
#include "database/record_text.hpp"
#include "database/tuning_record.hpp"

namespace jitgemm {
namespace {

using nlohmann::json;
using testing::config_from;
using testing::sample_problem;
using testing::sample_record;

TEST(MmaConfigJson, RoundTripsEveryField) {
  for (const char* name : {"mma_tf32x3_128x128x32_w2x4_s3_a32_k1_g8", "mma_tf32x3_64x128x16_w2x4_s4_a16_k64_g4",
                           "mma_tf32_64x64x32_w2x2_s3_a0_k8_g8", "mma_tf32_128x128x32_w4x2_s2_a32_k1_g16"}) {
    const KernelConfig c = KernelConfig::parse(name);
    const json j = c;
    EXPECT_EQ(j.at("family"), "mma") << name;
    EXPECT_EQ(j.at("precision"), std::string(to_string(c.precision))) << name;
    EXPECT_EQ(j.at("params").at("acc_block_k"), c.mma_sync().acc_block_k) << name;  // written even at its default (32)
    EXPECT_EQ(j.at("params").at("warps_m"), c.mma_sync().warps_m) << name;
    EXPECT_EQ(j.at("split_k"), c.split_k) << name;
    EXPECT_EQ(config_from(json::parse(j.dump())), c) << name;
  }
  ProblemKey p = sample_problem(1000, 37, 1537, Precision::TF32x3);
  TuningRecord r = sample_record(p);
  r.config = KernelConfig::parse("mma_tf32x3_64x64x32_w2x2_s3_a32_k64_g8");
  r.top[0].config = r.config;
  r.top[1].config = KernelConfig::parse("wgmma_tf32x3_128x96x32_c2_s3_a32_b1_m0_g8");
  EXPECT_EQ(read_record_text(record_text(r, RecordLayout::Pretty)), r);  // the winner as fields, the top by name
  EXPECT_NO_THROW(validate_record(r));
}

TEST(MmaConfigJson, RangeErrorsNameTheField) {
  const KernelConfig base = KernelConfig::parse("mma_tf32x3_128x128x32_w2x4_s3_a32_k1_g8");
  auto error_after = [&](auto edit) { return testing::field_error_after(base, edit); };
  EXPECT_EQ(error_after([](json&) {}), "");
  EXPECT_NE(error_after([](json& j) { j["family"] = "mma_tf64"; }).find("family"), std::string::npos);
  EXPECT_NE(error_after([](json& j) { j["precision"] = "fp32"; }).find("precision"), std::string::npos);
  EXPECT_NE(error_after([](json& j) { j["params"]["thread_m"] = 8; }).find("params.thread_m"), std::string::npos);
  EXPECT_NE(error_after([](json& j) { j["params"]["acc_block_k"] = 12; }).find("acc_block_k"), std::string::npos);
  EXPECT_NE(error_after([](json& j) { j["block_n"] = 96; }).find("block_n"), std::string::npos);  // powers of two
  EXPECT_NE(error_after([](json& j) { j["split_k"] = 0; }).find("split_k"), std::string::npos);
}

}  // namespace
}  // namespace jitgemm
