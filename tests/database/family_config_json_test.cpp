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
      EXPECT_EQ(j.at("params").size(), rules.fields().size()) << c.name();
      for (const ConfigField& f : rules.fields()) {
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

}  // namespace
}  // namespace jitgemm
