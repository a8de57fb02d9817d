// KernelConfig JSON for the wgmma families: their fields round-trip, records written before
// those fields existed still load (defaults only when absent), and bad values name the field.
#include <gtest/gtest.h>

#include <fstream>

#include <nlohmann/json.hpp>

#include "codegen/candidate_space.hpp"
#include "database/config_json.hpp"
#include "database/json_reader.hpp"
#include "database/record_samples.hpp"
#include "database/tuning_database.hpp"
#include "database/tuning_record.hpp"

namespace jitgemm {
namespace {

using nlohmann::json;
using testing::config_from;
using testing::sample_problem;
using testing::sample_record;

KernelConfig wgmma_config() { return KernelConfig::parse("wgmma_tf32x3_128x96x16_c2_s8_a32_b1_m16_g4"); }

// The FieldError message for the wgmma config's JSON after `edit`, or "" when it loads.
template <class Edit>
std::string error_after(Edit edit) {
  return testing::field_error_after(wgmma_config(), edit);
}

TEST(WgmmaConfigJson, RoundTripsEveryField) {
  for (const char* name : {"wgmma_tf32x3_128x96x16_c2_s8_a32_b1_m16_g4", "wgmma_tf32_128x256x32_c2_s4_a0_b1_m0_g8",
                           "wgmma_tf32x3_128x192x32_c2_s2_a16_b1_m0_g8"}) {
    const KernelConfig c = KernelConfig::parse(name);
    const json j = c;
    for (const char* field : {"consumers", "acc_block_k", "acc_buffers", "sum_blocks"})
      EXPECT_TRUE(j.contains(field)) << name << " " << field;
    EXPECT_EQ(config_from(json::parse(j.dump())), c) << name;
  }
  ProblemKey p = sample_problem(4096, 4096, 4096, Precision::TF32x3);
  TuningRecord r = sample_record(p);
  r.config = wgmma_config();
  r.candidates[0].config = r.config;
  r.candidates[1].config = KernelConfig::parse("wgmma_tf32x3_128x128x32_c2_s3_a32_b1_m0_g8");
  TuningRecord back;
  from_json(json::parse(json(r).dump(2)), back);
  EXPECT_EQ(back, r);
  EXPECT_NO_THROW(validate_record(r));
}

TEST(WgmmaConfigJson, StreamKRoundTripsAndIsWrittenOnlyWhenSet) {
  const KernelConfig sk = KernelConfig::parse("wgmma_tf32x3_128x128x32_c2_s3_a32_b1_m0_g8_sk");
  EXPECT_EQ(json(sk).at("stream_k"), 1);
  EXPECT_FALSE(json(sk).contains("a_in_registers"));
  EXPECT_EQ(config_from(json::parse(json(sk).dump())), sk);
  const KernelConfig plain = KernelConfig::parse("wgmma_tf32x3_128x128x32_c2_s3_a32_b1_m0_g8");
  EXPECT_FALSE(json(plain).contains("stream_k"));
  const std::string error = testing::field_error_after(sk, [](json& j) { j["stream_k"] = 3; });
  EXPECT_NE(error.find("stream_k"), std::string::npos) << error;
}

TEST(WgmmaConfigJson, ClusterRoundTripsAndIsWrittenOnlyWhenSet) {
  const KernelConfig pair = KernelConfig::parse("wgmma_tf32x3_128x128x32_c2_s3_a32_b1_m0_g8_x2");
  EXPECT_EQ(json(pair).at("cluster"), 2);
  EXPECT_EQ(config_from(json::parse(json(pair).dump())), pair);
  EXPECT_FALSE(json(KernelConfig::parse("wgmma_tf32x3_128x128x32_c2_s3_a32_b1_m0_g8")).contains("cluster"));
  const std::string error = testing::field_error_after(pair, [](json& j) { j["cluster"] = 4; });
  EXPECT_NE(error.find("cluster"), std::string::npos) << error;
}

TEST(WgmmaConfigJson, RegisterAFieldsRoundTripAndStayOutOfPlaneConfigs) {
  const KernelConfig cvt = KernelConfig::parse("wgmma_tf32_128x256x32_c2_s4_a0_b1_m0_g8_rs_cvt");
  EXPECT_EQ(json(cvt).at("convert_b"), 1);
  EXPECT_EQ(config_from(json::parse(json(cvt).dump())), cvt);
  const KernelConfig tw = KernelConfig::parse("wgmma_tf32_128x192x32_c2_s3_a0_b1_m0_g8_rs_swap_tw");
  EXPECT_EQ(json(tw).at("transform_b"), 1);
  EXPECT_EQ(config_from(json::parse(json(tw).dump())), tw);
  EXPECT_FALSE(json(cvt).contains("transform_b"));
  const std::string error = testing::field_error_after(tw, [](json& j) { j["transform_b"] = 2; });
  EXPECT_NE(error.find("transform_b"), std::string::npos) << error;
  const KernelConfig rs = KernelConfig::parse("wgmma_tf32x3_128x128x32_c2_s4_a32_b1_m0_g8_rst_swap");
  const json j = rs;
  EXPECT_EQ(j.at("a_in_registers"), 1);
  EXPECT_EQ(j.at("a_round"), 0);
  EXPECT_EQ(j.at("swap_ab"), 1);
  EXPECT_EQ(config_from(json::parse(j.dump())), rs);
  const json planes = KernelConfig::parse("wgmma_tf32x3_128x128x32_c2_s3_a32_b1_m0_g8");
  for (const char* field : {"a_in_registers", "a_round", "swap_ab"}) EXPECT_FALSE(planes.contains(field)) << field;
  json bad = j;
  bad["swap_ab"] = 2;
  try {
    config_from(bad);
    ADD_FAILURE() << "swap_ab = 2 accepted";
  } catch (const std::exception& e) {
    EXPECT_NE(std::string(e.what()).find("swap_ab"), std::string::npos) << e.what();
  }
}

TEST(WgmmaConfigJson, SimtConfigsKeepTheirOldForm) {
  const json j = KernelConfig{};
  for (const char* field : {"consumers", "acc_block_k", "acc_buffers", "sum_blocks"}) EXPECT_FALSE(j.contains(field));
  EXPECT_EQ(j.size(), 11u);
}

TEST(WgmmaConfigJson, AbsentFieldsTakeTheDefaultsOnlyWhenAbsent) {
  json j = wgmma_config();
  for (const char* field : {"consumers", "acc_block_k", "acc_buffers", "sum_blocks"}) j.erase(field);
  const KernelConfig c = config_from(j);
  const KernelConfig d;
  EXPECT_EQ(c.consumers, d.consumers);
  EXPECT_EQ(c.acc_block_k, d.acc_block_k);
  EXPECT_EQ(c.acc_buffers, d.acc_buffers);
  EXPECT_EQ(c.sum_blocks, d.sum_blocks);
  // Present but null or of the wrong type is damage, not absence.
  EXPECT_NE(error_after([](json& j) { j["sum_blocks"] = nullptr; }).find("sum_blocks"), std::string::npos);
  EXPECT_NE(error_after([](json& j) { j["consumers"] = "2"; }).find("consumers"), std::string::npos);
}

TEST(WgmmaConfigJson, RangeErrorsNameTheField) {
  EXPECT_NE(error_after([](json& j) { j["consumers"] = 3; }).find("consumers"), std::string::npos);
  EXPECT_NE(error_after([](json& j) { j["acc_buffers"] = 0; }).find("acc_buffers"), std::string::npos);
  EXPECT_NE(error_after([](json& j) { j["acc_block_k"] = 12; }).find("acc_block_k: expected a multiple of 8"),
            std::string::npos);
  EXPECT_NE(error_after([](json& j) { j["sum_blocks"] = -1; }).find("sum_blocks"), std::string::npos);
  EXPECT_NE(error_after([](json& j) { j["block_n"] = 80; }).find("block_n: expected one of 64, 96"), std::string::npos);
  EXPECT_NE(error_after([](json& j) { j["consumers"] = 1; }).find("block_m: expected 64 * consumers"),
            std::string::npos);
  EXPECT_NE(error_after([](json& j) { j["accumulators"] = 1; }).find("accumulators: unknown field"),
            std::string::npos);
  // block_n 96 is a wgmma width, not a SIMT tile.
  EXPECT_EQ(error_after([](json& j) { j["block_n"] = 96; }), "");
  json simt = KernelConfig{};
  simt["block_n"] = 96;
  EXPECT_THROW(config_from(simt), FieldError);
}

TEST(WgmmaConfigJson, ShippedFilesWithoutTheFieldsStillLoad) {
  for (const char* path : {JITGEMM_SOURCE_DIR "/tuning_db/jitgemm_tuning.json",
                           JITGEMM_SOURCE_DIR "/tests/fixtures/tuning_small.json"}) {
    const TuningDatabase db = TuningDatabase::load(path);
    ASSERT_FALSE(db.records().empty()) << path;
    std::ifstream in(path);
    const json file = json::parse(in);
    size_t without = 0;
    for (const json& record : file.at("records")) {
      if (record.at("config").contains("consumers")) continue;  // a record written since
      ++without;
      const KernelConfig c = config_from(record.at("config"));
      EXPECT_EQ(c.consumers, KernelConfig{}.consumers) << path << ": " << c.name();
      EXPECT_EQ(c.acc_block_k, KernelConfig{}.acc_block_k) << path << ": " << c.name();
      EXPECT_EQ(c.acc_buffers, KernelConfig{}.acc_buffers) << path << ": " << c.name();
      EXPECT_EQ(c.sum_blocks, KernelConfig{}.sum_blocks) << path << ": " << c.name();
    }
    EXPECT_GT(without, 0u) << path;
  }
}

}  // namespace
}  // namespace jitgemm
