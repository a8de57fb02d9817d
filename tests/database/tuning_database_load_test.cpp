// TuningDatabase::load: round trips, the file format, and damaged files that must give
// a DatabaseError naming the file and the position while leaving the bytes unchanged.
#include <gtest/gtest.h>

#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <limits>
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
  EXPECT_EQ(text.rfind("{\n  \"schema_version\": 5,\n  \"records\": [\n    {\n", 0), 0u) << text.substr(0, 80);
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
  EXPECT_NE(message.find("damaged.json: schema_version: expected 5, got 7"), std::string::npos) << message;
  j["schema_version"] = 0;
  EXPECT_NE(load_error(j.dump()).find("schema_version: expected 1..5, got 0"), std::string::npos);
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

// Every byte of a message is printable text (no control bytes from the file).
bool printable_message(const std::string& message) {
  for (char c : message)
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) return false;
  return message.find("\xC2\x9B") == std::string::npos;
}

// Issue 14: the damaged-file corpus of tests/fixtures/: each file is rejected with a
// DatabaseError naming the file and the position, its quotes of the file escaped.
TEST(TuningDatabaseLoad, TheDamagedCorpusIsRejectedNamingFileAndPosition) {
  struct Case {
    const char* file;
    const char* expected;  // after "<path>: "
  };
  const Case cases[] = {
      {"damaged_number_range.json", "invalid JSON in records[2].timing.runs: number overflow parsing '1e400'"},
      {"damaged_duplicate_key.json", "records[1].device: duplicate key \"sm\""},
      {"damaged_unbuildable.json", "records[3].config: simt_fp32_128x256x16_w2x4_t8x16_s1_k1_g8 cannot be built"},
      {"damaged_checksum.json",
       "records[0] (NVIDIA H100 80GB HBM3|sm90|gemm.fp32.NN.general.general.full.1024x1024x1024.tight.tight.tight.v444): "
       "checksum: the record hashes to "},
      {"damaged_no_checksum.json", "records[4].checksum: missing"},
      {"damaged_control_chars.json", "records[0].timing.runs\\x1B[2J\\x7F: unknown field"},
      {"tuning_damaged.json", "records[3].config.stages: expected 1..8, got 0"},
      {"damaged_v4_top_unsorted.json",
       "records[1].top[1].median_ms: expected >= the median_ms of top[0] (3.5320700000000005): the list is sorted "
       "fastest first, got 3.301 (at byte 2778)"},
      {"damaged_v4_top_too_long.json", "records[2].top[8]: more than 8 candidates (a record keeps the 8 fastest; "
                                       "the history file keeps every one) (at byte 5349)"},
      {"damaged_v4_counts.json",
       "records[0].outcomes: the counts add up to 213, expected candidate_count (212) (at byte 1019)"},
      {"tuning_truncated.json", "invalid JSON at byte 2501"},
  };
  for (const Case& c : cases) {
    const std::string path = std::string(JITGEMM_SOURCE_DIR "/tests/fixtures/") + c.file;
    const std::string before = read_text(path);
    try {
      TuningDatabase::load(path);
      ADD_FAILURE() << c.file << " loaded";
    } catch (const DatabaseError& e) {
      EXPECT_EQ(std::string(e.what()).rfind(path + ": " + c.expected, 0), 0u) << e.what();
      EXPECT_TRUE(printable_message(e.what())) << e.what();
    }
    EXPECT_EQ(read_text(path), before);
  }
}

// The corpus cases that cannot live in the source tree: a symbolic link loop and a file past
// the size cap (refused before a byte is read).
TEST(TuningDatabaseLoad, ASymlinkLoopAndAnOversizeFileAreDatabaseErrorsNamingTheFile) {
  const fs::path dir = testing::temp_dir("db_corpus");
  const fs::path loop = dir / "loop.json";
  fs::create_symlink("loop.json", loop);
  try {
    TuningDatabase::load(loop);
    ADD_FAILURE() << "a symlink loop loaded";
  } catch (const DatabaseError& e) {
    EXPECT_NE(std::string(e.what()).find("open(" + loop.string() + ") failed: Too many levels of symbolic links"),
              std::string::npos)
        << e.what();
  }
  const fs::path big = dir / "big.json";
  std::ofstream(big) << "{}";
  fs::resize_file(big, (size_t{256} << 20) + 1);  // sparse: no disk space used
  const auto start = std::chrono::steady_clock::now();
  try {
    TuningDatabase::load(big);
    ADD_FAILURE() << "an oversize file loaded";
  } catch (const DatabaseError& e) {
    EXPECT_NE(std::string(e.what()).find(big.string() + ": larger than the 256 MiB a tuning database file may hold "
                                         "(268435457 bytes; not read)"),
              std::string::npos)
        << e.what();
  }
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(1)) << "the oversize file was read";
}

// A record dated in the future is handled as designed: it loads (list and show work); merge
// does not let it win by its date (tuning_database_save_test.cpp).
TEST(TuningDatabaseLoad, AFutureDatedRecordLoads) {
  const TuningDatabase db = TuningDatabase::load(JITGEMM_SOURCE_DIR "/tests/fixtures/tuning_future_dated.json");
  ASSERT_EQ(db.size(), 5u);
  int future = 0;
  for (const TuningRecord& r : db.records()) future += is_future_dated(r, std::chrono::system_clock::now());
  EXPECT_EQ(future, 1);
  EXPECT_EQ(db.records().back().tuned_at, "9999-12-31T23:59:59Z");
}

// Issue 14, defect 8: no checksum, so a flipped digit in a timing passed verify.
TEST(TuningDatabaseLoad, EveryRecordCarriesItsChecksumAndAChangedValueIsCaught) {
  const TuningDatabase db = three_records();
  const std::string text = db.dump();
  const json j = json::parse(text);
  ASSERT_EQ(j.at("schema_version"), TuningDatabase::kSchemaVersion);
  for (const json& record : j.at("records")) EXPECT_EQ(record.at("checksum").get<std::string>().size(), 32u);
  EXPECT_EQ(TuningDatabase::parse(text, "saved").records(), db.records());
  // A digit changed in any of these numbers, each value still valid field by field.
  const TuningRecord& second = db.records()[1];
  for (const char* field : {"\"tflops\": ", "\"cublas_median_ms\": ", "\"cublas_rel_error\": "}) {
    const size_t record_at = text.find("\"problem\": \"" + second.problem.canonical() + "\"");
    ASSERT_NE(record_at, std::string::npos);
    const size_t at = text.find(field, record_at) + std::string(field).size();
    std::string changed = text;
    changed[at] = changed[at] == '1' ? '2' : '1';
    const std::string message = load_error(changed);
    EXPECT_NE(message.find("damaged.json: records[1] (" + second.key() + "): checksum: the record hashes to"),
              std::string::npos)
        << field << ": " << message;
  }
  // What JSON keeps differently from the struct checks the same after a round trip: a
  // register count of -1, an error of -0 (its own bits), integers read back unsigned.
  TuningDatabase odd;
  TuningRecord r = sample_record(sample_problem(64, 64, 64));
  r.top[1].registers = -1;
  r.accuracy.cublas_rel_error = -0.0;
  odd.upsert(r);
  EXPECT_EQ(TuningDatabase::parse(odd.dump(), "odd").records(), odd.records());
  // The checksum itself damaged: missing, or not 32 hex digits.
  json missing = j;
  missing["records"][2].erase("checksum");
  EXPECT_NE(load_error(missing.dump()).find("damaged.json: records[2].checksum: missing"), std::string::npos);
  json malformed = j;
  malformed["records"][0]["checksum"] = "XYZ";
  EXPECT_NE(load_error(malformed.dump()).find("records[0].checksum: expected 32 lower-case hex digits, got \"XYZ\""),
            std::string::npos);
}

// A file of schema 1-3 as its records were: each listing its candidates (schema_version and
// checksums as `version` had them).
json legacy_file(int version) {
  json records = json::array();
  const TuningDatabase db = three_records();
  for (const TuningRecord& r : db.records()) {
    TuningRecord listed = r;
    listed.candidate_count = 212;  // more tried than listed, as the shipped records of earlier releases
    records.push_back(testing::legacy_record_json(listed, testing::sample_candidates(r.timing.median_ms), version >= 3));
  }
  return json{{"schema_version", version}, {"records", records}};
}

// Files of schema 2 (the shipped records of earlier releases) have no checksums: they load
// unchecked through the migration and save as schema 4 with checksums.
TEST(TuningDatabaseLoad, SchemaTwoRecordsLoadUncheckedAndSaveWithChecksums) {
  json v2 = legacy_file(2);
  v2["records"][1]["tflops"] = 1.5;  // nothing to check it against
  const TuningDatabase db = TuningDatabase::from_json(v2, "v2.json");
  ASSERT_EQ(db.size(), 3u);
  EXPECT_EQ(db.records()[1].tflops, 1.5);
  const json saved = json::parse(db.dump());
  EXPECT_EQ(saved.at("schema_version"), TuningDatabase::kSchemaVersion);
  for (const json& record : saved.at("records")) EXPECT_TRUE(record.contains("checksum"));
  EXPECT_EQ(TuningDatabase::parse(db.dump(), "saved").records(), db.records());
  // Only schema 3 and 4 have checksums.
  v2["records"][0]["checksum"] = "0123456789abcdef0123456789abcdef";
  EXPECT_NE(load_error(v2.dump()).find("damaged.json: records[0].checksum: unknown field in schema 2"),
            std::string::npos);
}

// Schema 3 -> 4: a record's list becomes its counts by outcome (those it counted but did not
// list: unrecorded) and its fastest verified candidates; the lists themselves come back as
// tables for the history file (load_with_tables), never through load().
TEST(TuningDatabaseLoad, SchemaThreeRecordsLoadCompactedAndTheirListsComeBackAsTables) {
  const json v3 = legacy_file(3);
  const fs::path path = fs::path(testing::temp_dir("db_v3")) / "old.json";
  write_text(path, v3.dump(2));
  const TuningDatabase db = TuningDatabase::load(path);
  ASSERT_EQ(db.size(), 3u);
  for (const TuningRecord& r : db.records()) {
    EXPECT_EQ(r.candidate_count, 212);
    EXPECT_EQ(r.outcomes.count(CandidateOutcome::Ok), 2);
    EXPECT_EQ(r.outcomes.count(CandidateOutcome::Spills), 1);
    EXPECT_EQ(r.outcomes.unrecorded, 207);
    ASSERT_EQ(r.top.size(), 2u);
    EXPECT_EQ(r.top[0].config, r.config);
    EXPECT_LT(r.top[0].median_ms, r.top[1].median_ms);
    EXPECT_NO_THROW(validate_record(r));
  }
  const LoadedDatabase loaded = TuningDatabase::load_with_tables(path);
  EXPECT_EQ(loaded.schema_version, 3);
  EXPECT_EQ(loaded.database.records(), db.records());
  ASSERT_EQ(loaded.tables.size(), 3u);
  for (const CandidateHistory& table : loaded.tables) {
    const TuningRecord* r = db.find(table.key);
    ASSERT_NE(r, nullptr) << table.key;
    EXPECT_EQ(table.tuned_at, r->tuned_at);
    EXPECT_EQ(table.candidates, testing::sample_candidates(r->timing.median_ms));
    EXPECT_EQ(history_mismatch(table, *r), "");
  }
  // A schema-3 record changed after it was written is still caught by its schema-3 checksum.
  json changed = v3;
  changed["records"][1]["candidates"][2]["spill_bytes"] = 95;
  EXPECT_NE(load_error(changed.dump(2)).find("damaged.json: records[1] ("), std::string::npos);
  // The fixtures of schema 3 keep loading.
  EXPECT_EQ(TuningDatabase::load(JITGEMM_SOURCE_DIR "/tests/fixtures/tuning_checked.json").size(), 5u);
}

// Schema 4 -> 5: the same records, 5 adding a record's optional tune_s (so that a jitgemm that
// knows only 4 says "newer" about a file that has them, not "damaged"). A file of 4 loads as it
// is, with the compact reader and its checksums, and saves as 5 with the same records.
TEST(TuningDatabaseLoad, SchemaFourLoadsAsItIsAndSavesAsFive) {
  const std::string v4 = JITGEMM_SOURCE_DIR "/tests/fixtures/tuning_v4.json";
  const LoadedDatabase loaded = TuningDatabase::load_with_tables(v4);
  EXPECT_EQ(loaded.schema_version, 4);
  EXPECT_TRUE(loaded.tables.empty());
  const TuningDatabase db = TuningDatabase::load(v4);
  EXPECT_EQ(db.records(), loaded.database.records());
  const json saved = json::parse(db.dump());
  EXPECT_EQ(saved.at("schema_version"), 5);
  EXPECT_EQ(TuningDatabase::parse(db.dump(), "saved").records(), db.records());
  // A changed record of a schema-4 file is caught as before.
  json changed = json::parse(read_text(v4));
  changed["records"][0]["tflops"] = 1.25;
  EXPECT_NE(load_error(changed.dump(2)).find("damaged.json: records[0] ("), std::string::npos);
  // A record with tune_s in a file of 5 round-trips; one beyond 5 is a newer schema.
  TuningDatabase timed = db;
  TuningRecord r = db.records().front();
  r.tune_s = 8.5;
  timed.upsert(r);
  EXPECT_EQ(TuningDatabase::parse(timed.dump(), "timed").find(r.key())->tune_s, 8.5);
  json newer = json::parse(timed.dump());
  newer["schema_version"] = 6;
  EXPECT_NE(load_error(newer.dump(2)).find("expected 5, got 6 (written by a newer jitgemm"), std::string::npos)
      << load_error(newer.dump(2));
}

// Every error of the schema-4 reader names the file, the record and field, and the byte.
TEST(TuningDatabaseLoad, SchemaFourErrorsNameTheFileTheFieldAndTheByte) {
  const std::string text = three_records().dump();
  const size_t runs = text.find("\"runs\": 25", text.find("\"records\"")) + 8;  // records[0]'s value
  std::string bad = text;
  bad.replace(runs, 2, "\"25\"");
  EXPECT_TRUE(load_error(bad).ends_with("/damaged.json: records[0].timing.runs: expected integer, got \"25\" (at byte " +
                                        std::to_string(runs + 1) + ")"))
      << load_error(bad);
  bad = text;
  bad.replace(runs, 2, "0");
  EXPECT_NE(load_error(bad).find("records[0].timing.runs: expected 1..1000000, got 0 (at byte "), std::string::npos);
  // A syntax error: the byte and the member being read.
  bad = text;
  bad.replace(runs, 2, "2x");
  EXPECT_NE(load_error(bad).find("/damaged.json: invalid JSON at byte " + std::to_string(runs + 2) +
                                 " (in records[0].timing.runs): syntax error: invalid number '2x'"),
            std::string::npos)
      << load_error(bad);
  // Control characters and bytes that are not UTF-8 inside a string.
  bad = text;
  bad.replace(text.find("NVIDIA H100"), 6, "NVI\x01IA");
  EXPECT_NE(load_error(bad).find("syntax error: invalid string: control character U+0001 must be escaped"),
            std::string::npos);
  bad = text;
  bad.replace(text.find("NVIDIA H100"), 6, "NVI\xffIA");
  EXPECT_NE(load_error(bad).find("device.name: not UTF-8: \"NVI\\xFFIA"), std::string::npos) << load_error(bad);
}

// The loader's rules of the compact form, each named with the file and the position.
TEST(TuningDatabaseLoad, TheTopListAndTheCountsAreCheckedNamingFileAndPosition) {
  json j = valid_json();
  std::swap(j["records"][2]["top"][0], j["records"][2]["top"][1]);
  EXPECT_NE(load_error(j.dump(2)).find("damaged.json: records[2].top[1].median_ms: expected >= the median_ms of "
                                       "top[0]"),
            std::string::npos)
      << load_error(j.dump(2));
  j = valid_json();
  j["records"][0]["candidate_count"] = 7;
  std::string message = load_error(j.dump(2));
  EXPECT_NE(message.find("damaged.json: records[0].outcomes: the counts add up to 5, expected candidate_count (7) "
                         "(at byte "),
            std::string::npos)
      << message;
  j = valid_json();
  for (int i = 0; i < 7; ++i) j["records"][1]["top"].push_back(j["records"][1]["top"][1]);
  j["records"][1]["outcomes"]["ok"] = 9;
  j["records"][1]["candidate_count"] = 12;
  message = load_error(j.dump(2));
  EXPECT_NE(message.find("damaged.json: records[1].top[8]: more than 8 candidates"), std::string::npos) << message;
  EXPECT_NE(message.find("(at byte "), std::string::npos) << message;
}

// The shipped records were re-saved with their checksums: every load of them verifies each one.
TEST(TuningDatabaseLoad, TheShippedDatabaseCarriesChecksums) {
  const std::string path = JITGEMM_SOURCE_DIR "/tuning_db/jitgemm_tuning.json";
  const json j = json::parse(read_text(path));
  EXPECT_EQ(j.at("schema_version"), TuningDatabase::kSchemaVersion);
  for (const json& record : j.at("records")) EXPECT_TRUE(record.contains("checksum")) << record.at("problem");
  EXPECT_EQ(TuningDatabase::load(path).size(), j.at("records").size());
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
