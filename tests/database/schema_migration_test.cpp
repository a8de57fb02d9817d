// Schema 1 -> 2 -> 3 -> 4: the schema-1 fixtures load through the migrations, every config
// keeps its identity (name; the candidates' in the tables for the history), the shipped
// database saves as the current schema and reads back equal, and schema-1 configs that schema 1
// itself rejected still fail, by name.
#include <gtest/gtest.h>

#include <fstream>

#include <nlohmann/json.hpp>

#include "database/json_reader.hpp"
#include "database/record_samples.hpp"
#include "database/schema_migration.hpp"
#include "database/record_json.hpp"
#include "database/tuning_database.hpp"
#include <fmt/format.h>

namespace jitgemm {
namespace {

using nlohmann::json;

json file_json(const char* path) {
  std::ifstream in(path);
  return json::parse(in);
}

// The name a schema-1 config object describes: the old name() layout of its family.
std::string v1_name(const json& c) {
  const std::string family = c.at("family");
  auto i = [&](const char* f, int d) { return c.contains(f) ? c.at(f).get<int>() : d; };
  std::string name = fmt::format("{}_{}x{}x{}", family, i("block_m", 0), i("block_n", 0), i("block_k", 0));
  if (family.starts_with("simt"))
    return name + fmt::format("_w{}x{}_t{}x{}_s{}_k{}_g{}", i("warps_m", 2), i("warps_n", 4), i("thread_m", 8),
                              i("thread_n", 8), i("stages", 3), i("split_k", 1), i("raster_group", 8));
  if (family.starts_with("mma"))
    return name + fmt::format("_w{}x{}_s{}_a{}_k{}_g{}", i("warps_m", 2), i("warps_n", 4), i("stages", 3),
                              i("acc_block_k", 32), i("split_k", 1), i("raster_group", 8));
  name += fmt::format("_c{}_s{}_a{}_b{}_m{}_g{}", i("consumers", 2), i("stages", 3), i("acc_block_k", 32),
                      i("acc_buffers", 1), i("sum_blocks", 0), i("raster_group", 8));
  if (i("a_in_registers", 0) == 1) name += i("a_round", 1) == 1 ? "_rs" : "_rst";
  if (i("swap_ab", 0) == 1) name += "_swap";
  if (i("convert_b", 0) == 1) name += "_cvt";
  if (i("transform_b", 0) == 1) name += "_tw";
  if (i("stream_k", 0) == 1) name += "_sk";
  if (i("cluster", 1) != 1) name += fmt::format("_x{}", i("cluster", 1));
  return name;
}

TEST(SchemaMigration, SchemaOneFilesLoadWithEveryConfigAsItWas) {
  for (const char* path : {JITGEMM_SOURCE_DIR "/tests/fixtures/tuning_small.json"}) {
    const json file = file_json(path);
    ASSERT_EQ(file.at("schema_version"), 1) << path;
    const LoadedDatabase loaded = TuningDatabase::load_with_tables(path);
    const TuningDatabase& db = loaded.database;
    ASSERT_EQ(db.size(), file.at("records").size()) << path;
    TuningHistory tables;
    for (const CandidateHistory& table : loaded.tables) tables.upsert(table);
    size_t configs = 0;
    for (const json& record : file.at("records")) {
      const TuningRecord* r = db.find(TuningRecord{ProblemKey::parse(record.at("problem").get<std::string>()),
                                                   record.at("device").get<DeviceKey>()}
                                          .key());
      ASSERT_NE(r, nullptr) << path;
      EXPECT_EQ(r->config.name(), v1_name(record.at("config"))) << path;
      ++configs;
      const CandidateHistory* table = tables.find(*r);
      ASSERT_NE(table, nullptr) << path;
      for (size_t i = 0; i < record.at("candidates").size(); ++i, ++configs)
        EXPECT_EQ(table->candidates.at(i).config.name(), v1_name(record.at("candidates")[i].at("config"))) << path;
    }
    EXPECT_GT(configs, 10u) << path;
  }
}

TEST(SchemaMigration, TheShippedDatabaseSavesAsTheCurrentSchemaAndReadsBackEqual) {
  const char* path = JITGEMM_SOURCE_DIR "/tuning_db/jitgemm_tuning.json";
  const TuningDatabase db = TuningDatabase::load(path);
  ASSERT_FALSE(db.empty());
  // Whatever version it is stored in, it saves as the current one and reads back equal.
  const std::string text = db.dump();
  EXPECT_EQ(json::parse(text).at("schema_version"), TuningDatabase::kSchemaVersion);
  EXPECT_EQ(TuningDatabase::parse(text, "saved").records(), db.records());
  bool wgmma = false;
  for (const TuningRecord& r : db.records()) wgmma |= r.config.family() == KernelFamily::Wgmma;
  EXPECT_TRUE(wgmma);
}

TEST(SchemaMigration, RegisterFlagsBecomeTheEnums) {
  const json v1 = {{"family", "wgmma_tf32x3"}, {"block_m", 128}, {"block_n", 128}, {"block_k", 32},
                   {"warps_m", 2},             {"warps_n", 4},   {"thread_m", 8},   {"thread_n", 8},
                   {"stages", 4},              {"split_k", 1},   {"raster_group", 8}, {"a_in_registers", 1},
                   {"a_round", 0},             {"swap_ab", 1},   {"transform_b", 1}, {"stream_k", 1}};
  const json v2 = migrate_config_v1(v1);
  EXPECT_EQ(v2.at("family"), "wgmma");
  EXPECT_EQ(v2.at("precision"), "tf32x3");
  EXPECT_EQ(v2.at("params").at("a"), "registers_truncated");
  EXPECT_EQ(v2.at("params").at("swap_ab"), true);
  EXPECT_EQ(v2.at("params").at("b"), "transformed");
  EXPECT_EQ(v2.at("params").at("schedule"), "stream_k");
  KernelConfig c;
  from_json(v2, c);
  EXPECT_EQ(c.name(), "wgmma_tf32x3_128x128x32_c2_s4_a32_b1_m0_g8_rst_swap_tw_sk");
}

TEST(SchemaMigration, WhatSchemaOneForbadeStaysAnErrorNamingTheField) {
  json file = file_json(JITGEMM_SOURCE_DIR "/tests/fixtures/tuning_small.json");
  auto error_after = [&](auto edit) {
    json j = file;
    edit(j);
    try {
      TuningDatabase::from_json(j, "old.json");
    } catch (const DatabaseError& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  // A SIMT config with a wgmma field off its default; a wgmma one with both sources of B.
  std::string e = error_after([](json& j) { j["records"][0]["config"]["consumers"] = 1; });
  EXPECT_NE(e.find("old.json: records[0].config.consumers: simt does not read this field"), std::string::npos) << e;
  e = error_after([](json& j) { j["records"][0]["candidates"][1]["config"]["family"] = "simt_tf32"; });
  EXPECT_NE(e.find("records[0].candidates[1].config.family"), std::string::npos) << e;
  e = error_after([](json& j) {
    json& c = j["records"][0]["config"];
    c["family"] = "wgmma_tf32";
    c["warps_m"] = 2, c["warps_n"] = 4, c["thread_m"] = 8, c["thread_n"] = 8;
    c["a_in_registers"] = 1, c["convert_b"] = 1, c["transform_b"] = 1;
  });
  EXPECT_NE(e.find("records[0].config.transform_b"), std::string::npos) << e;
  EXPECT_EQ(error_after([](json&) {}), "");
}

}  // namespace
}  // namespace jitgemm
