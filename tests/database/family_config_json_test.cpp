// Every family's configs through the database's JSON: each candidate of each family's space
// round-trips (the nlohmann form of schema 1-3, and schema 4's object and name forms), its
// "params" hold exactly the family's field table, and the enums and flags are written by name.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "codegen/kernel_family.hpp"
#include "database/config_fields.hpp"
#include "database/config_json.hpp"
#include "database/json_cursor.hpp"
#include "database/record_reader.hpp"
#include "database/record_text.hpp"

namespace jitgemm {
namespace {

using nlohmann::json;

ProblemKey key_of(Precision p, int64_t m, int64_t n, int64_t k) {
  ProblemKey key;
  key.precision = p;
  key.m = m, key.n = n, key.k = k;
  return key;
}

TEST(FamilyConfigJson, EveryCandidateOfEveryFamilyRoundTrips) {
  const std::pair<KernelFamily, ProblemKey> spaces[] = {
      {KernelFamily::Simt, key_of(Precision::FP32, 1000, 1000, 1000)},
      {KernelFamily::MmaSync, key_of(Precision::TF32x3, 100, 1000, 1000)},
      {KernelFamily::MmaSync, key_of(Precision::TF32, 100, 1000, 1000)},
      {KernelFamily::Wgmma, key_of(Precision::TF32x3, 1000, 1000, 1000)},
      {KernelFamily::Wgmma, key_of(Precision::TF32, 1000, 1000, 1000)}};
  for (const auto& [family, key] : spaces) {
    const KernelFamilyRules& rules = family_rules(family);
    const auto space = rules.candidates(key, StaticLimits{});
    ASSERT_FALSE(space.empty());
    for (const KernelConfig& c : space) {
      const json j = c;
      EXPECT_EQ(j.at("family"), std::string(to_string(family))) << c.name();
      size_t written = 0;
      for (const ConfigField& f : rules.fields()) written += f.left_out(f.get(c)) ? 0 : 1;
      EXPECT_EQ(j.at("params").size(), written) << c.name();
      for (const ConfigField& f : rules.fields()) {
        if (f.left_out(f.get(c))) {  // a later field at its former meaning: not written
          EXPECT_FALSE(j.at("params").contains(std::string(f.name))) << c.name() << " " << f.name;
          continue;
        }
        const json& v = j.at("params").at(std::string(f.name));
        switch (f.kind) {
          case ConfigField::Kind::Integer: EXPECT_TRUE(v.is_number_integer()) << c.name() << " " << f.name; break;
          case ConfigField::Kind::Boolean: EXPECT_TRUE(v.is_boolean()) << c.name() << " " << f.name; break;
          case ConfigField::Kind::Name: EXPECT_TRUE(v.is_string()) << c.name() << " " << f.name; break;
        }
      }
      EXPECT_EQ(testing::config_from(json::parse(j.dump())), c) << c.name();
      // The schema-4 reader's forms: the object (a record's winner), written and read by hand
      // with the same rules, and the name (its top candidates, the history).
      std::string text;
      append_config_object(text, c);
      EXPECT_EQ(json::parse(text), j) << text;
      JsonCursor in(text);
      EXPECT_EQ(read_config_object(in), c) << text;
      EXPECT_EQ(config_from_name(c.name()), c) << c.name();
    }
  }
}

// SIMT's early_barrier came after records were written without it: such a record reads as the
// barrier at the last row, a config with it written reads back with it, and the false value
// is not written, so the older files stay as they were (and their checksums hold).
TEST(FamilyConfigJson, AFieldAddedLaterReadsAsItsFormerMeaningWhereAbsent) {
  const std::string before =
      R"({"family": "simt", "precision": "fp32", "block_m": 128, "block_n": 256, "block_k": 8, "stages": 4, )"
      R"("split_k": 1, "raster_group": 8, "params": {"warps_m": 2, "warps_n": 4, "thread_m": 8, "thread_n": 16}})";
  const KernelConfig old = testing::config_from(json::parse(before));
  EXPECT_FALSE(old.simt().early_barrier);
  JsonCursor in(before);
  EXPECT_EQ(read_config_object(in), old);
  std::string written;
  append_config_object(written, old);
  EXPECT_EQ(json::parse(written), json::parse(before)) << written;
  EXPECT_EQ(old.name(), "simt_fp32_128x256x8_w2x4_t8x16_s4_k1_g8");

  KernelConfig early = old;
  early.simt().early_barrier = true;
  EXPECT_EQ(early.name(), "simt_fp32_128x256x8_w2x4_t8x16_s4_k1_g8_eb");
  EXPECT_EQ(config_from_name(early.name()), early);
  const json j = early;
  EXPECT_EQ(j.at("params").at("early_barrier"), true);
  EXPECT_EQ(testing::config_from(json::parse(j.dump())), early);
  std::string text;
  append_config_object(text, early);
  JsonCursor early_in(text);
  EXPECT_EQ(read_config_object(early_in), early);

  // The field keeps its type rule where present.
  json wrong = json::parse(before);
  wrong["params"]["early_barrier"] = 1;
  EXPECT_THROW(testing::config_from(wrong), FieldError);
  const std::string wrong_text = wrong.dump();
  JsonCursor wrong_in(wrong_text);
  EXPECT_THROW(read_config_object(wrong_in), FieldError);
}

}  // namespace
}  // namespace jitgemm
