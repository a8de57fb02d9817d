// TuningDatabase::load: round trips, the file format, and damaged files that must give
// a DatabaseError naming the file and the position while leaving the bytes unchanged.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "database/record_samples.hpp"
#include "database/tuning_database.hpp"
#include "jitgemm/error.hpp"
#include "support/test_support.hpp"

namespace jitgemm {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using testing::sample_problem;
using testing::read_text;
using testing::sample_record;
using testing::write_text;

TuningDatabase three_records() {
  TuningDatabase db;
  db.upsert(sample_record(sample_problem(4096, 4096, 4096)));
  db.upsert(sample_record(sample_problem(1024, 1024, 1024), testing::kH200));
  db.upsert(sample_record(sample_problem(256, 8192, 512, Precision::TF32)));
  return db;
}

// The DatabaseError message from loading `text`, or "" when it loads.
std::string load_error(const std::string& text, const std::string& file_name = "damaged.json") {
  fs::path path = fs::path(testing::temp_dir("db_load")) / file_name;
  write_text(path, text);
  std::string message;
  try {
    TuningDatabase::load(path);
  } catch (const DatabaseError& e) {
    message = e.what();
  }
  EXPECT_EQ(read_text(path), text) << "load modified the file";
  return message;
}

json valid_json() { return three_records().to_json(); }

TEST(TuningDatabaseLoad, MissingFileIsEmptyAndNotCreated) {
  fs::path path = fs::path(testing::temp_dir("db_missing")) / "none.json";
  EXPECT_TRUE(TuningDatabase::load(path).empty());
  EXPECT_FALSE(fs::exists(path));
}

TEST(TuningDatabaseLoad, RoundTripsEveryRecordThroughAFile) {
  fs::path path = fs::path(testing::temp_dir("db_roundtrip")) / "tuning.json";
  TuningDatabase db = three_records();
  db.save(path);
  TuningDatabase loaded = TuningDatabase::load(path);
  EXPECT_EQ(loaded.records(), db.records());
  EXPECT_EQ(read_text(path), db.dump());
}

TEST(TuningDatabaseLoad, FileIsSortedPrettyAndVersioned) {
  std::string text = three_records().dump();
  EXPECT_EQ(text.rfind("{\n  \"schema_version\": 2,\n  \"records\": [\n    {\n", 0), 0u) << text.substr(0, 80);
  EXPECT_EQ(text.back(), '\n');
  TuningDatabase db = three_records();
  const std::vector<TuningRecord>& records = db.records();
  for (size_t i = 1; i < records.size(); ++i) EXPECT_LT(records[i - 1].key(), records[i].key());
  json reversed = valid_json();
  std::reverse(reversed["records"].begin(), reversed["records"].end());
  EXPECT_EQ(TuningDatabase::from_json(reversed, "reversed").dump(), text);
}

TEST(TuningDatabaseLoad, NotJsonNamesFileAndByte) {
  std::string message = load_error("this is not json");
  EXPECT_NE(message.find("damaged.json"), std::string::npos) << message;
  EXPECT_NE(message.find("invalid JSON at byte 2"), std::string::npos) << message;
}

TEST(TuningDatabaseLoad, TruncatedFileNamesFileAndByte) {
  std::string text = three_records().dump();
  std::string truncated = text.substr(0, text.size() / 2);
  std::string message = load_error(truncated, "truncated.json");
  EXPECT_NE(message.find("truncated.json: invalid JSON at byte " + std::to_string(truncated.size() + 1)),
            std::string::npos)
      << message;
  EXPECT_NE(load_error("").find("invalid JSON at byte 1"), std::string::npos);
}

// Issue 14, defects 2 and 4: a number beyond double's range escaped as a raw JSON-library
// exception (no file); duplicate keys were accepted, the last one winning.
TEST(TuningDatabaseLoad, OutOfRangeNumbersAndDuplicateKeysAreDamageNamingTheFile) {
  std::string text = valid_json().dump(2);
  const size_t runs = text.find("\"runs\": 25");
  ASSERT_NE(runs, std::string::npos);
  std::string huge = text;
  huge.replace(runs, 11, "\"runs\": 1e400");
  std::string message = load_error(huge);
  EXPECT_NE(message.find("damaged.json: invalid JSON"), std::string::npos) << message;
  EXPECT_NE(message.find("1e400"), std::string::npos) << message;
  message = load_error(R"({"schema_version": 2, "schema_version": 2, "records": []})");
  EXPECT_NE(message.find("damaged.json: duplicate key \"schema_version\""), std::string::npos) << message;
  std::string twice = text;
  twice.replace(runs, 11, "\"runs\": 25, \"runs\": 26");
  message = load_error(twice);
  EXPECT_NE(message.find("duplicate key \"runs\""), std::string::npos) << message;
  // The same key in two objects is fine.
  EXPECT_EQ(load_error(text), "");
}

// Issue 14, defect 3: a winner valid field by field but not buildable (stages 1, thread_m 3)
// passed verify and was served, and the launch threw.
TEST(TuningDatabaseLoad, AnUnbuildableWinnerIsDamageNamingTheRecord) {
  for (auto edit : {+[](json& c) { c["stages"] = 1; }, +[](json& c) { c["params"]["thread_m"] = 3; }}) {
    json j = valid_json();
    edit(j["records"][1]["config"]);
    const std::string message = load_error(j.dump(2));
    EXPECT_NE(message.find("damaged.json: records[1].config: simt_fp32_"), std::string::npos) << message;
    EXPECT_NE(message.find("cannot be built"), std::string::npos) << message;
  }
}

TEST(TuningDatabaseLoad, WrongSchemaVersion) {
  json j = valid_json();
  j["schema_version"] = 7;
  std::string message = load_error(j.dump(2));
  EXPECT_NE(message.find("damaged.json: schema_version: expected 2, got 7"), std::string::npos) << message;
  j["schema_version"] = 0;
  EXPECT_NE(load_error(j.dump()).find("schema_version: expected 1..2, got 0"), std::string::npos);
  j.erase("schema_version");
  EXPECT_NE(load_error(j.dump()).find("damaged.json: schema_version: missing"), std::string::npos);
}

TEST(TuningDatabaseLoad, WrongTypeNamesRecordAndField) {
  json j = valid_json();
  j["records"][2]["timing"]["runs"] = "25";
  std::string message = load_error(j.dump(2));
  EXPECT_NE(message.find("damaged.json: records[2].timing.runs: expected integer, got \"25\""), std::string::npos)
      << message;
}

TEST(TuningDatabaseLoad, MissingFieldNamesRecordAndField) {
  json j = valid_json();
  j["records"][1]["config"]["params"].erase("warps_n");
  std::string message = load_error(j.dump(2));
  EXPECT_NE(message.find("damaged.json: records[1].config.params.warps_n: missing"), std::string::npos) << message;
}

TEST(TuningDatabaseLoad, RangeErrorNamesRecordAndField) {
  json j = valid_json();
  j["records"][0]["config"]["stages"] = 0;
  std::string message = load_error(j.dump(2));
  EXPECT_NE(message.find("damaged.json: records[0].config.stages: expected 1..8, got 0"), std::string::npos)
      << message;
}

TEST(TuningDatabaseLoad, TopLevelShapeErrors) {
  EXPECT_NE(load_error("[]").find("expected a JSON object at the top level, got array"), std::string::npos);
  EXPECT_NE(load_error(R"({"schema_version": 1})").find("records: missing"), std::string::npos);
  EXPECT_NE(load_error(R"({"schema_version": 1, "records": {}})").find("records: expected array, got object"),
            std::string::npos);
  EXPECT_NE(load_error(R"({"schema_version": 1, "records": [], "extra": 1})").find("extra: unknown field"),
            std::string::npos);
  EXPECT_NE(load_error(R"({"schema_version": 1, "records": [7]})").find("records[0]: expected object, got integer"),
            std::string::npos);
}

TEST(TuningDatabaseLoad, DuplicateKeysAreRejected) {
  json j = valid_json();
  j["records"].push_back(j["records"][1]);
  EXPECT_NE(load_error(j.dump()).find("records: duplicate key"), std::string::npos);
}

TEST(TuningDatabaseLoad, UnreadablePathIsADatabaseError) {
  fs::path dir = testing::temp_dir("db_dir_as_file");
  EXPECT_THROW(TuningDatabase::load(dir), DatabaseError);
}

TEST(TuningDatabase, UpsertEraseFind) {
  TuningDatabase db = three_records();
  TuningRecord r = sample_record(sample_problem(4096, 4096, 4096));
  r.config.stages = 5;
  db.upsert(r);
  EXPECT_EQ(db.size(), 3u);
  ASSERT_NE(db.find(r.key()), nullptr);
  EXPECT_EQ(db.find(r.key())->config.stages, 5);
  EXPECT_TRUE(db.erase(r.key()));
  EXPECT_FALSE(db.erase(r.key()));
  EXPECT_EQ(db.find(r.key()), nullptr);
  EXPECT_EQ(db.size(), 2u);
}

}  // namespace
}  // namespace jitgemm
