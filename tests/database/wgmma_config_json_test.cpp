// KernelConfig JSON (schema 2) for the wgmma family: its typed parameters round-trip under
// "params" (enums by name, flags as bools), bad values name the field, and nothing of another
// family can be written.
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

KernelConfig wgmma_config() { return KernelConfig::parse("wgmma_tf32x3_128x96x16_c2_s8_a32_b1_m16_g4"); }

// The FieldError message for the wgmma config's JSON after `edit`, or "" when it loads.
template <class Edit>
std::string error_after(Edit edit) {
  return testing::field_error_after(wgmma_config(), edit);
}

TEST(WgmmaConfigJson, RoundTripsEveryField) {
  for (const char* name :
       {"wgmma_tf32x3_128x96x16_c2_s8_a32_b1_m16_g4", "wgmma_tf32_128x256x32_c2_s4_a0_b1_m0_g8",
        "wgmma_tf32x3_128x192x32_c2_s2_a16_b1_m0_g8", "wgmma_tf32x3_128x128x32_c2_s3_a32_b1_m0_g8_sk",
        "wgmma_tf32x3_128x128x32_c2_s3_a32_b1_m0_g8_x2", "wgmma_tf32_128x256x32_c2_s4_a0_b1_m0_g8_rs_cvt",
        "wgmma_tf32_128x192x32_c2_s3_a0_b1_m0_g8_rs_swap_tw", "wgmma_tf32x3_128x128x32_c2_s4_a32_b1_m0_g8_rst_swap",
        "wgmma_tf32x3_64x128x32_c1_s4_a32_b1_m0_g8"}) {
    const KernelConfig c = KernelConfig::parse(name);
    const json j = c;
    EXPECT_EQ(j.at("family"), "wgmma") << name;
    for (const char* field : {"consumers", "acc_block_k", "acc_buffers", "sum_blocks", "a", "swap_ab", "b", "schedule",
                              "cluster"})
      EXPECT_TRUE(j.at("params").contains(field)) << name << " " << field;
    EXPECT_EQ(config_from(json::parse(j.dump())), c) << name;
  }
  ProblemKey p = sample_problem(4096, 4096, 4096, Precision::TF32x3);
  TuningRecord r = sample_record(p);
  r.config = wgmma_config();
  r.top[0].config = r.config;
  r.top[1].config = KernelConfig::parse("wgmma_tf32x3_128x128x32_c2_s3_a32_b1_m0_g8");
  EXPECT_EQ(read_record_text(record_text(r, RecordLayout::Pretty)), r);  // the winner as fields, the top by name
  EXPECT_NO_THROW(validate_record(r));
}

TEST(WgmmaConfigJson, OperandSourcesAndScheduleAreNamedEnums) {
  const json rs = KernelConfig::parse("wgmma_tf32x3_128x128x32_c2_s4_a32_b1_m0_g8_rst_swap_sk");
  EXPECT_EQ(rs.at("params").at("a"), "registers_truncated");
  EXPECT_EQ(rs.at("params").at("swap_ab"), true);
  EXPECT_EQ(rs.at("params").at("b"), "planes");
  EXPECT_EQ(rs.at("params").at("schedule"), "stream_k");
  const json tw = KernelConfig::parse("wgmma_tf32_128x192x32_c2_s3_a0_b1_m0_g8_rs_tw");
  EXPECT_EQ(tw.at("params").at("a"), "registers");
  EXPECT_EQ(tw.at("params").at("b"), "transformed");
  const json cvt = KernelConfig::parse("wgmma_tf32_128x256x32_c2_s4_a0_b1_m0_g8_rs_cvt");
  EXPECT_EQ(cvt.at("params").at("b"), "converted");
  // Unknown names, numbers where a name or a bool belongs: errors naming the field path.
  for (auto [edit, field] : std::initializer_list<std::pair<void (*)(json&), const char*>>{
           {[](json& j) { j["params"]["a"] = "registers_rounded"; }, "params.a"},
           {[](json& j) { j["params"]["b"] = 2; }, "params.b"},
           {[](json& j) { j["params"]["swap_ab"] = 1; }, "params.swap_ab"},
           {[](json& j) { j["params"]["schedule"] = "stream-k"; }, "params.schedule"}}) {
    const std::string error = error_after(edit);
    EXPECT_NE(error.find(field), std::string::npos) << error;
  }
}

TEST(WgmmaConfigJson, EveryParameterIsRequiredAndNoOtherFamilysIsAccepted) {
  for (const char* field : {"consumers", "acc_block_k", "a", "schedule", "cluster"}) {
    const std::string error = error_after([&](json& j) { j["params"].erase(field); });
    EXPECT_NE(error.find(std::string("params.") + field + ": missing"), std::string::npos) << error;
  }
  EXPECT_NE(error_after([](json& j) { j["params"]["warps_m"] = 2; }).find("params.warps_m: unknown field"),
            std::string::npos);
  EXPECT_NE(error_after([](json& j) { j.erase("params"); }).find("params: missing"), std::string::npos);
  EXPECT_NE(error_after([](json& j) { j["precision"] = "fp32"; }).find("precision"), std::string::npos);
  EXPECT_NE(error_after([](json& j) { j["family"] = "wgmma_tf32x3"; }).find("family"), std::string::npos);
}

TEST(WgmmaConfigJson, RangeErrorsNameTheField) {
  EXPECT_NE(error_after([](json& j) { j["params"]["consumers"] = 3; }).find("params.consumers"), std::string::npos);
  EXPECT_NE(error_after([](json& j) { j["params"]["acc_buffers"] = 0; }).find("params.acc_buffers"),
            std::string::npos);
  EXPECT_NE(error_after([](json& j) { j["params"]["acc_block_k"] = 12; })
                .find("params.acc_block_k: expected a multiple of 8"),
            std::string::npos);
  EXPECT_NE(error_after([](json& j) { j["params"]["sum_blocks"] = -1; }).find("params.sum_blocks"), std::string::npos);
  EXPECT_NE(error_after([](json& j) { j["params"]["cluster"] = 4; }).find("params.cluster"), std::string::npos);
  EXPECT_NE(error_after([](json& j) { j["block_n"] = 80; }).find("block_n: expected one of 64, 96"), std::string::npos);
  EXPECT_NE(error_after([](json& j) { j["params"]["consumers"] = 1; }).find("block_m: expected 64 * consumers"),
            std::string::npos);
  EXPECT_NE(error_after([](json& j) { j["accumulators"] = 1; }).find("accumulators: unknown field"),
            std::string::npos);
  // Present but null or of the wrong type is damage.
  EXPECT_NE(error_after([](json& j) { j["params"]["sum_blocks"] = nullptr; }).find("sum_blocks"), std::string::npos);
  EXPECT_NE(error_after([](json& j) { j["params"]["consumers"] = "2"; }).find("consumers"), std::string::npos);
  // block_n 96 is a wgmma width, not a SIMT tile.
  EXPECT_EQ(error_after([](json& j) { j["block_n"] = 96; }), "");
  json simt = KernelConfig{};
  simt["block_n"] = 96;
  EXPECT_THROW(config_from(simt), FieldError);
}

TEST(SimtConfigJson, HoldsItsOwnParametersOnly) {
  const json j = KernelConfig{};
  EXPECT_EQ(j.at("family"), "simt");
  EXPECT_EQ(j.at("precision"), "fp32");
  EXPECT_EQ(j.at("params").size(), 4u);
  for (const char* field : {"warps_m", "warps_n", "thread_m", "thread_n"}) EXPECT_TRUE(j.at("params").contains(field));
  EXPECT_EQ(config_from(j), KernelConfig{});
  const std::string error = testing::field_error_after(KernelConfig{}, [](json& c) { c["params"]["consumers"] = 2; });
  EXPECT_NE(error.find("params.consumers: unknown field"), std::string::npos) << error;
}

}  // namespace
}  // namespace jitgemm
