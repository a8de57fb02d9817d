// jitgemm-db end to end: runs the built binary on the fixture databases in
// tests/fixtures/ and checks output, exit status and that inputs stay untouched.
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "cuda/driver_api.hpp"
#include "database/candidate_history.hpp"
#include "database/tuning_database.hpp"
#include "support/test_support.hpp"
#include "tools/run_tool.hpp"

namespace {

namespace fs = std::filesystem;

const std::string kBinary = JITGEMM_BINARY_DIR "/jitgemm-db";
const std::string kFixtures = JITGEMM_SOURCE_DIR "/tests/fixtures/";
const std::string kSmall = kFixtures + "tuning_small.json";
const std::string kH100 = "NVIDIA H100 80GB HBM3";
const std::string kKey4096 =
    "NVIDIA H100 80GB HBM3|sm90|gemm.fp32.NN.general.general.full.4096x4096x4096.tight.tight.tight.v444";

using Result = jitgemm::testing::ToolResult;
using jitgemm::testing::read_file_text;

std::string read_text(const fs::path& path) { return read_file_text(path); }
std::string quoted(const std::string& arg) { return jitgemm::testing::shell_quoted(arg); }

// Runs jitgemm-db with `args` (and an optional "VAR=value " prefix for the environment).
Result run_db(const std::vector<std::string>& args, const std::string& env = "") {
  return jitgemm::testing::run_tool(kBinary, args, env);
}

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

// The schema_version a file declares.
int nlohmann_schema(const std::string& path) {
  const std::string text = read_file_text(path);
  const size_t at = text.find("\"schema_version\": ");
  return at == std::string::npos ? 0 : std::stoi(text.substr(at + 18));
}

class JitgemmDb : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_TRUE(fs::exists(kBinary)) << kBinary << " is not built"; }
};

TEST_F(JitgemmDb, HelpListsEverySubcommand) {
  Result r = run_db({"--help"});
  EXPECT_EQ(r.status, 0);
  for (const char* sub : {"list", "show", "diff", "merge", "verify", "prune", "explain", "--db"})
    EXPECT_TRUE(has(r.out, sub)) << sub << "\n" << r.out;
}

TEST_F(JitgemmDb, BadUsageExitsTwoWithAMessage) {
  // Issue 14, defect 8: usage errors returned CLI11's own codes (104-109), not the documented 2.
  Result r = run_db({"--bogus", "list"});
  EXPECT_EQ(r.status, 2);
  EXPECT_TRUE(has(r.out + r.err, "--bogus")) << r.out << r.err;
  r = run_db({});
  EXPECT_EQ(r.status, 2);
  EXPECT_TRUE(has(r.out + r.err, "subcommand")) << r.out << r.err;
  r = run_db({"--db", kSmall, "explain", "--m", "0", "--n", "1", "--k", "1", "--device", kH100, "--sm", "90"});
  EXPECT_EQ(r.status, 2);
  r = run_db({"--db", kSmall, "explain", "--m", "64", "--n", "64", "--k", "64", "--trans-a", "X", "--device", kH100,
              "--sm", "90"});
  EXPECT_EQ(r.status, 2);
  EXPECT_TRUE(has(r.err, "--trans-a")) << r.err;
}

TEST_F(JitgemmDb, MissingDatabaseIsAnError) {
  Result r = run_db({"--db", kFixtures + "no_such.json", "list"});
  EXPECT_EQ(r.status, 2);
  EXPECT_TRUE(has(r.err, "no_such.json: no such file")) << r.err;
}

TEST_F(JitgemmDb, ListShowsEveryRecord) {
  Result r = run_db({"--db", kSmall, "list"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(has(r.out, kKey4096)) << r.out;
  EXPECT_TRUE(has(r.out, "simt_fp32_128x128x8_w2x4_t8x8_s3_k1_g8"));
  EXPECT_TRUE(has(r.out, "0.82x"));  // cuBLAS 2.781 ms / 3.412 ms
  EXPECT_TRUE(has(r.out, "5 of 5 records"));
  r = run_db({"list", "--device", "h200"}, "JITGEMM_TUNING_DB=" + quoted(kSmall) + " ");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(has(r.out, "1 of 5 records")) << r.out;
  EXPECT_FALSE(has(r.out, kH100));
}

TEST_F(JitgemmDb, ShowPrintsAllFieldsAndSortedCandidates) {
  Result r = run_db({"--db", kSmall, "show", kKey4096});
  ASSERT_EQ(r.status, 0) << r.err;
  for (const char* part : {"sm90, 132 SMs", "driver 12080", "templates 5c1e0a9d2b7f4e31", "stages 3",
                           "median 3.4120 ms", "25 runs", "L2 flushed", "tolerance 1.000e-05",
                           "2025-06-02T14:05:11Z",
                           "212 tried: 3 ok, 1 spills, 1 launch_failed, 1 wrong_result, 206 unrecorded",
                           "top 6 of 6 listed, from", "(schema 1: its records list their candidates)"})
    EXPECT_TRUE(has(r.out, part)) << part << "\n" << r.out;
  size_t ok = r.out.rfind(" ok "), spills = r.out.find(" spills "), wrong = r.out.find(" wrong_result ");
  ASSERT_NE(spills, std::string::npos);
  EXPECT_LT(ok, spills);
  EXPECT_LT(ok, wrong);
  r = run_db({"--db", kSmall, "show", "4096x4096x4096"});
  EXPECT_EQ(r.status, 2);
  EXPECT_TRUE(has(r.err, "matches 2 records")) << r.err;
  r = run_db({"--db", kSmall, "show", "2048x8192x1024"});
  EXPECT_EQ(r.status, 0) << r.err;
}

TEST_F(JitgemmDb, VerifyReportsDamageWithFileAndPosition) {
  const std::string damaged = kFixtures + "tuning_damaged.json", truncated = kFixtures + "tuning_truncated.json";
  const std::string before = read_text(damaged);
  Result r = run_db({"verify", kSmall});
  EXPECT_EQ(r.status, 0);
  EXPECT_TRUE(has(r.out, "tuning_small.json: ok: 5 records")) << r.out;
  r = run_db({"verify", kSmall, damaged, truncated});
  EXPECT_EQ(r.status, 1);
  EXPECT_TRUE(has(r.err, "tuning_damaged.json: records[3].config.stages: expected 1..8, got 0")) << r.err;
  EXPECT_TRUE(has(r.err, "tuning_truncated.json: invalid JSON at byte 2501")) << r.err;
  EXPECT_EQ(read_text(damaged), before);
}

TEST_F(JitgemmDb, DiffMergeAndPrune) {
  const std::string dir = jitgemm::testing::temp_dir("jitgemm_db_edit");
  const std::string copy = dir + "/copy.json", merged = dir + "/merged.json";
  fs::copy_file(kSmall, copy);
  Result r = run_db({"diff", kSmall, copy});
  EXPECT_EQ(r.status, 0);
  EXPECT_TRUE(has(r.out, "identical: 5 records"));

  r = run_db({"--db", copy, "prune", "--device", "NVIDIA H200", "--dry-run"});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(has(r.out, "would remove 1 of 5")) << r.out;
  EXPECT_EQ(read_text(copy), read_text(kSmall));
  r = run_db({"--db", copy, "prune", "--older-than", "2025-06-03"});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(has(r.out, "removed 2 of 5")) << r.out;

  r = run_db({"diff", kSmall, copy});
  EXPECT_EQ(r.status, 1);
  EXPECT_TRUE(has(r.out, "only in " + kSmall + " (2)")) << r.out;
  EXPECT_TRUE(has(r.out, kKey4096));

  r = run_db({"merge", merged, copy, kSmall});
  EXPECT_EQ(r.status, 0) << r.err;
  r = run_db({"diff", kSmall, merged});
  EXPECT_EQ(r.status, 0) << r.out;
  r = run_db({"--db", merged, "prune"});
  EXPECT_EQ(r.status, 2);
  EXPECT_TRUE(has(r.err, "give at least one of")) << r.err;
}

// show: the full table from the history file beside the database when it has the record's
// entry, else the record's own top list, saying which.
TEST_F(JitgemmDb, ShowReadsTheCandidatesFromTheHistoryWhenThereIsOne) {
  const std::string v4 = kFixtures + "tuning_v4.json";
  Result r = run_db({"--db", v4, "show", "4000x4000x4000"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(has(r.out, "top 6 of 6 listed, from " + kFixtures + "tuning_v4.history.json:")) << r.out;
  size_t ok = r.out.rfind(" ok "), spills = r.out.find(" spills "), launch = r.out.find(" launch_failed ");
  ASSERT_NE(spills, std::string::npos) << r.out;
  EXPECT_LT(ok, spills);
  EXPECT_LT(spills, launch);
  EXPECT_TRUE(has(r.out, "cuLaunchKernel: CUDA_ERROR_INVALID_VALUE")) << r.out;  // a detail only the history keeps
  r = run_db({"--db", v4, "show", "4000x4000x4000", "--top", "2"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(has(r.out, "top 2 of 6 listed")) << r.out;
  // Without the history: the record's own fastest candidates.
  const std::string dir = jitgemm::testing::temp_dir("jitgemm_db_show");
  const std::string alone = dir + "/alone.json";
  fs::copy_file(v4, alone);
  r = run_db({"--db", alone, "show", "4000x4000x4000"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(has(r.out, "212 tried: 3 ok, 1 spills, 1 launch_failed, 1 wrong_result, 206 unrecorded")) << r.out;
  EXPECT_TRUE(has(r.out, "top 3 of 3 ok, from the record (no history file " + dir + "/alone.history.json)")) << r.out;
  EXPECT_FALSE(has(r.out, " spills ")) << r.out;
}

// A record that knows how long its tuning took says so; diff names the field.
TEST_F(JitgemmDb, ShowPrintsHowLongTheTuningTook) {
  const std::string dir = jitgemm::testing::temp_dir("jitgemm_db_tune_s");
  jitgemm::TuningDatabase db = jitgemm::TuningDatabase::load(kSmall);
  jitgemm::TuningRecord r = *db.find(kKey4096);
  Result before = run_db({"--db", kSmall, "show", kKey4096});
  ASSERT_EQ(before.status, 0) << before.err;
  EXPECT_FALSE(has(before.out, "the tuning took")) << before.out;
  r.tune_s = 17.25;
  db.upsert(r);
  db.save(dir + "/timed.json");
  Result shown = run_db({"--db", dir + "/timed.json", "show", kKey4096});
  ASSERT_EQ(shown.status, 0) << shown.err;
  EXPECT_TRUE(has(shown.out, "(the tuning took 17.2 s)")) << shown.out;
  Result diff = run_db({"diff", kSmall, dir + "/timed.json"});
  EXPECT_EQ(diff.status, 1);
  EXPECT_TRUE(has(diff.out, "tune_s differ")) << diff.out;
}

// A damaged history is said clearly by show (on stderr) and verify (exit 1), and never stops
// the database from loading: list, show and the database's own verify work.
TEST_F(JitgemmDb, ADamagedHistoryIsReportedAndTheDatabaseStillLoads) {
  const std::string db = kFixtures + "tuning_v4_damaged_history.json";
  const std::string history = kFixtures + "tuning_v4_damaged_history.history.json";
  const std::string damage = history + ": histories[1].checksum: the entry (" + kH100 +
                             "|sm90|gemm.fp32.NN.general.general.full.4000x4000x4000";
  Result r = run_db({"--db", db, "list"});
  EXPECT_EQ(r.status, 0) << r.err;
  r = run_db({"--db", db, "show", "4000x4000x4000"});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(has(r.err, "jitgemm-db: " + damage)) << r.err;
  EXPECT_TRUE(has(r.err, "(showing the candidates the database keeps instead)")) << r.err;
  EXPECT_TRUE(has(r.out, "top 3 of 3 ok, from the record (the history file " + history + " is damaged)")) << r.out;
  r = run_db({"verify", db});
  EXPECT_EQ(r.status, 1);
  EXPECT_TRUE(has(r.out, db + ": ok: 5 records")) << r.out;
  EXPECT_TRUE(has(r.err, damage)) << r.err;
  r = run_db({"verify", history});
  EXPECT_EQ(r.status, 1);
  EXPECT_TRUE(has(r.err, damage)) << r.err;
  EXPECT_EQ(jitgemm::TuningDatabase::load(db).size(), 5u);
}

// verify checks a history file given by name too, against the database beside it: entries of
// no record are counted, an entry whose candidates are not what its record counts is an error.
TEST_F(JitgemmDb, VerifyChecksAHistoryFileAgainstItsDatabase) {
  Result r = run_db({"verify", kFixtures + "tuning_v4.json", kFixtures + "tuning_v4.history.json"});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(has(r.out, kFixtures + "tuning_v4.json: ok: 5 records")) << r.out;
  EXPECT_TRUE(has(r.out, kFixtures + "tuning_v4.history.json: ok: 5 entries, 5 of them for records of " + kFixtures +
                             "tuning_v4.json"))
      << r.out;
  // Against a database whose record has other counts; and with a record pruned.
  const std::string dir = jitgemm::testing::temp_dir("jitgemm_db_verify_history");
  fs::copy_file(kFixtures + "tuning_v4.json", dir + "/db.json");
  fs::copy_file(kFixtures + "tuning_v4.history.json", dir + "/db.history.json");
  jitgemm::TuningDatabase db = jitgemm::TuningDatabase::load(dir + "/db.json");
  jitgemm::TuningRecord changed = db.records().front();
  changed.outcomes.by_outcome[jitgemm::CandidateOutcome::Spills] += 1;
  changed.outcomes.unrecorded -= 1;
  db.upsert(changed);
  db.erase(db.records().back().key());
  db.save(dir + "/db.json");  // the history untouched
  r = run_db({"verify", dir + "/db.json"});
  EXPECT_EQ(r.status, 1);
  EXPECT_TRUE(has(r.err, dir + "/db.history.json: the entry of " + changed.key())) << r.err;
  EXPECT_TRUE(has(r.err, "are not the 7 the record counts")) << r.err;
}

// merge carries the candidate tables along: from the inputs' history files, and from the lists
// of an input of schema 1-3; the output's history keeps those of the records that won.
TEST_F(JitgemmDb, MergeCarriesTheHistoriesAlong) {
  const std::string dir = jitgemm::testing::temp_dir("jitgemm_db_merge_history");
  Result r = run_db({"merge", dir + "/from_v4.json", kFixtures + "tuning_v4.json"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(has(r.out, "history: " + dir + "/from_v4.history.json (5 candidate tables)")) << r.out;
  EXPECT_EQ(jitgemm::TuningHistory::load(dir + "/from_v4.history.json").entries(),
            jitgemm::TuningHistory::load(kFixtures + "tuning_v4.history.json").entries());
  r = run_db({"merge", dir + "/from_v1.json", kSmall});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(jitgemm::TuningHistory::load(dir + "/from_v1.history.json").size(), 5u);
  r = run_db({"diff", dir + "/from_v1.json", kSmall});
  EXPECT_EQ(r.status, 0) << r.out;
  r = run_db({"--db", dir + "/from_v1.json", "show", kKey4096});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(has(r.out, "from " + dir + "/from_v1.history.json")) << r.out;
  // Rewriting a file in place as schema 5: its lists go to its history.
  fs::copy_file(kSmall, dir + "/old.json");
  r = run_db({"merge", dir + "/old.json", dir + "/old.json"});
  ASSERT_EQ(r.status, 0) << r.err;
  r = run_db({"verify", dir + "/old.json"});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(has(r.out, dir + "/old.history.json: ok: 5 entries, 5 of them")) << r.out;
  EXPECT_EQ(nlohmann_schema(dir + "/old.json"), 5);
  // An input's damaged history is a warning: the records are merged, its tables are not.
  r = run_db({"merge", dir + "/from_damaged.json", kFixtures + "tuning_v4_damaged_history.json"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(has(r.err, "warning: " + kFixtures + "tuning_v4_damaged_history.history.json: histories[1]")) << r.err;
  EXPECT_EQ(jitgemm::TuningDatabase::load(dir + "/from_damaged.json").size(), 5u);
  EXPECT_FALSE(fs::exists(dir + "/from_damaged.history.json"));
}

// prune --stale compares only the environment fields it is given (staleness() with the
// other fields not known).
TEST_F(JitgemmDb, PruneStaleComparesOnlyTheGivenFields) {
  Result r = run_db({"--db", kSmall, "prune", "--stale", "--driver", "12090", "--dry-run"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(has(r.out, "stale (driver_version 12080 -> 12090)")) << r.out;
  EXPECT_TRUE(has(r.out, "would remove 5 of 5")) << r.out;
  r = run_db({"--db", kSmall, "prune", "--stale", "--driver", "12080", "--nvrtc", "12080", "--dry-run"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(has(r.out, "would remove 0 of 5")) << r.out;
  r = run_db({"--db", kSmall, "prune", "--stale", "--dry-run"});
  EXPECT_EQ(r.status, 2);
  EXPECT_TRUE(has(r.err, "prune --stale: give the current environment")) << r.err;
}

TEST_F(JitgemmDb, ExplainSaysWhyEachRecordMatchesOrNot) {
  Result r = run_db({"--db", kSmall, "explain", "--m", "3000", "--n", "4096", "--k", "4096", "--device", kH100,
                     "--sm", "90", "--driver", "12090"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(has(r.out, "decision: nearest: " + kKey4096 + " (distance 0.45: tuned 4096x4096x4096, asked "
                         "3000x4096x4096), config adapted from simt_fp32_128x128x8_w2x4_t8x8_s3_k1_g8")) << r.out;
  // The config that would run: the record's tiles with the split of this shape.
  EXPECT_TRUE(has(r.out, "\nconfig:   simt_fp32_128x128x8_w2x4_t8x8_s3_k")) << r.out;
  EXPECT_TRUE(has(r.out, "stale:    driver_version 12080 -> 12090")) << r.out;
  EXPECT_TRUE(has(r.out, "env:      driver 12090, nvrtc ")) << r.out;
  EXPECT_TRUE(has(r.out, "transposes differ (NT vs NN)")) << r.out;
  EXPECT_TRUE(has(r.out, "device name differs (NVIDIA H200 vs " + kH100 + ")")) << r.out;
  r = run_db({"--db", kSmall, "explain", "--m", "4096", "--n", "4096", "--k", "4096", "--device", kH100, "--sm", "90"});
  EXPECT_TRUE(has(r.out, "decision: exact: " + kKey4096 + "\nconfig:   simt_fp32_128x128x8_w2x4_t8x8_s3_k1_g8\n"))
      << r.out;
  r = run_db({"--db", kSmall, "explain", "--m", "4096", "--n", "4096", "--k", "4096", "--device", kH100, "--sm", "80"});
  EXPECT_TRUE(has(r.out, "decision: default: no record of this kind")) << r.out;
  EXPECT_TRUE(has(r.out, "sm differs (90 vs 80)")) << r.out;
}

// A nearest record farther than the factor-of-two bound is not served, by the Runtime or by
// explain: the default runs.
TEST_F(JitgemmDb, ExplainNamesTheDefaultWhenTheNearestRecordIsTooFar) {
  Result r = run_db({"--db", kSmall, "explain", "--m", "100", "--n", "4096", "--k", "4096", "--device", kH100,
                     "--sm", "90"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(has(r.out, "decision: default: nearest record " + kKey4096 +
                             " is more than a factor of two away (tuned 4096x4096x4096, asked 100x4096x4096: M 4096 "
                             "vs 100)")) << r.out;
  EXPECT_TRUE(has(r.out, "stale:    - (no record served)")) << r.out;
  EXPECT_TRUE(has(r.out, "too far")) << r.out;
  EXPECT_FALSE(has(r.out, "<-")) << r.out;
}

// Without a CUDA driver the driver version is not known here: explain says so and compares
// the other fields only.
TEST_F(JitgemmDb, ExplainWithoutADriverDoesNotCompareTheDriverVersion) {
  if (jitgemm::cuda::gpu_available()) GTEST_SKIP() << "a CUDA driver loads here: its version is known";
  Result r = run_db({"--db", kSmall, "explain", "--m", "4096", "--n", "4096", "--k", "4096", "--device", kH100,
                     "--sm", "90", "--nvrtc", "99990"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(has(r.out, "env:      driver: not known here (give --driver), nvrtc 99990")) << r.out;
  EXPECT_FALSE(has(r.out, "driver_version")) << r.out;
  EXPECT_TRUE(has(r.out, "stale:    nvrtc_version 12080 -> 99990")) << r.out;
}

// Every byte of `output` is printable text or a line break: nothing from a file steers the terminal.
bool printable_only(const std::string& output) {
  for (char c : output)
    if (c != '\n' && (static_cast<unsigned char>(c) < 0x20 || c == 0x7f)) return false;
  return output.find("\xC2\x9B") == std::string::npos;  // U+009B, CSI
}

// Issue 14, defect 8: device names (and any other file text) were printed raw, terminal escapes
// and all. tuning_control_chars.json names a device "NVIDIA <ESC>[31mH100<U+009B>2J<DEL>" and
// holds a candidate detail with an OSC sequence: every subcommand prints them as "\xNN".
TEST_F(JitgemmDb, FileTextIsPrintedEscaped) {
  const std::string file = kFixtures + "tuning_control_chars.json";
  const std::string escaped = "NVIDIA \\x1B[31mH100\\xC2\\x9B2J\\x7F";
  Result r = run_db({"--db", file, "list"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(has(r.out, escaped + "|sm90|gemm.fp32.NN.general.general.full.1024x1024x1024")) << r.out;
  EXPECT_TRUE(printable_only(r.out + r.err)) << r.out;
  r = run_db({"--db", file, "show", "1024x1024x1024"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(has(r.out, "device:      " + escaped + " (sm90")) << r.out;
  EXPECT_TRUE(has(r.out, "ptxas \\x1B]0;owned\\x07 spill")) << r.out;
  EXPECT_TRUE(printable_only(r.out + r.err)) << r.out;
  r = run_db({"diff", file, kSmall});
  EXPECT_EQ(r.status, 1);
  EXPECT_TRUE(has(r.out, escaped)) << r.out;
  EXPECT_TRUE(printable_only(r.out + r.err)) << r.out;
  r = run_db({"--db", file, "explain", "--m", "1024", "--n", "1024", "--k", "1024", "--device", "NVIDIA H100 80GB HBM3",
              "--sm", "90", "--driver", "12080"});
  ASSERT_EQ(r.status, 0) << r.err;
  // That device is a sibling of the H100 (sm90, 132 SMs): its record of this problem serves.
  EXPECT_TRUE(has(r.out, "decision: sibling: " + escaped + "|sm90|")) << r.out;
  EXPECT_TRUE(has(r.out, "another device (" + escaped + "), of the same sm and SM count")) << r.out;
  EXPECT_TRUE(printable_only(r.out + r.err)) << r.out;
  r = run_db({"--db", file, "explain", "--m", "1024", "--n", "1024", "--k", "1024", "--device", "NVIDIA H100 80GB HBM3",
              "--sm", "90", "--sm-count", "114", "--driver", "12080"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(has(r.out, "device name differs (" + escaped)) << r.out;
  EXPECT_TRUE(printable_only(r.out + r.err)) << r.out;
  r = run_db({"--db", file, "show", "no such key \x1b[2J"});
  EXPECT_EQ(r.status, 2);
  EXPECT_TRUE(printable_only(r.out + r.err)) << r.err;
  // Error messages that quote the file: a field named with an escape.
  r = run_db({"verify", kFixtures + "damaged_control_chars.json"});
  EXPECT_EQ(r.status, 1);
  EXPECT_TRUE(has(r.err, "records[0].timing.runs\\x1B[2J\\x7F: unknown field")) << r.err;
  EXPECT_TRUE(printable_only(r.out + r.err)) << r.err;
}

// Issue 14: verify checks each file on its own and names file and position for every kind of
// damage in the corpus, a symbolic link loop among them (it stopped verify before).
TEST_F(JitgemmDb, VerifyReportsEveryFileOfTheDamagedCorpus) {
  const std::string dir = jitgemm::testing::temp_dir("jitgemm_db_corpus");
  const std::string loop = dir + "/loop.json";
  fs::create_symlink("loop.json", loop);
  std::vector<std::string> args = {"verify", kFixtures + "tuning_checked.json", loop};
  const std::vector<std::pair<std::string, std::string>> damaged = {
      {"damaged_number_range.json", "invalid JSON in records[2].timing.runs: number overflow parsing '1e400'"},
      {"damaged_duplicate_key.json", "records[1].device: duplicate key \"sm\""},
      {"damaged_unbuildable.json", "records[3].config: simt_fp32_128x256x16_w2x4_t8x16_s1_k1_g8 cannot be built"},
      {"damaged_checksum.json", "records[0] (" + kH100 + "|sm90|gemm.fp32.NN.general.general.full.1024x1024x1024"},
      {"damaged_no_checksum.json", "records[4].checksum: missing"},
      {"damaged_v4_top_unsorted.json", "records[1].top[1].median_ms: expected >= the median_ms of top[0]"},
      {"damaged_v4_top_too_long.json", "records[2].top[8]: more than 8 candidates"},
      {"damaged_v4_counts.json", "records[0].outcomes: the counts add up to 213, expected candidate_count (212) (at byte"},
  };
  for (const auto& [file, message] : damaged) args.push_back(kFixtures + file);
  args.push_back(kSmall);
  const Result r = run_db(args);
  EXPECT_EQ(r.status, 1);
  EXPECT_TRUE(has(r.out, "tuning_checked.json: ok: 5 records")) << r.out;
  EXPECT_TRUE(has(r.out, "tuning_small.json: ok: 5 records")) << r.out;
  EXPECT_TRUE(has(r.err, loop + ": cannot read: Too many levels of symbolic links")) << r.err;
  for (const auto& [file, message] : damaged) EXPECT_TRUE(has(r.err, kFixtures + file + ": " + message)) << r.err;
}

// Issue 14, defect 8: a record dated 9999 won every later merge. Now it loads and lists, verify
// warns of it, and merge keeps the real tuning whichever side it is on, naming the record.
TEST_F(JitgemmDb, AFutureDatedRecordNeverWinsAMerge) {
  const std::string future = kFixtures + "tuning_future_dated.json";
  const std::string key = "NVIDIA H200|sm90|gemm.fp32.NN.general.general.full.4096x4096x4096.tight.tight.tight.v444";
  Result r = run_db({"--db", future, "list"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(has(r.out, "9999-12-31")) << r.out;
  r = run_db({"verify", future});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(has(r.err, "warning: " + future + ": record " + key + ": tuned_at 9999-12-31T23:59:59Z is more than a "
                         "day after now")) << r.err;
  // A real tuning of the same record, dated an hour ago and with another config.
  const std::string dir = jitgemm::testing::temp_dir("jitgemm_db_future");
  const std::string real = dir + "/real.json";
  {
    jitgemm::TuningDatabase db;
    jitgemm::TuningRecord record = *jitgemm::TuningDatabase::load(kFixtures + "tuning_checked.json").find(key);
    record.tuned_at = jitgemm::format_utc_timestamp(std::chrono::system_clock::now() - std::chrono::hours(1));
    record.config.stages = 4;
    db.upsert(record);
    db.save(real);
  }
  // Into a copy of the future-dated file, and the future-dated file into the real one.
  for (const auto& [start, in] : {std::pair{future, real}, std::pair{real, future}}) {
    const std::string target = dir + "/merged.json";
    fs::remove(target);
    fs::copy_file(start, target);
    r = run_db({"merge", target, in});
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_TRUE(has(r.err, "record " + key + ": tuned_at 9999-12-31T23:59:59Z")) << r.err;
    const jitgemm::TuningDatabase merged = jitgemm::TuningDatabase::load(target);
    ASSERT_NE(merged.find(key), nullptr);
    EXPECT_EQ(merged.find(key)->config.stages, 4) << "merging " << in << " into " << start << ": the future date won";
    EXPECT_EQ(merged.size(), 5u);
  }
}

}  // namespace
