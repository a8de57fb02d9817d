// TuningDatabase writes: save_merged keeps other records, moves damaged files aside,
// refuses newer schemas, leaves no temp files, and concurrent writers lose nothing.
#include <gtest/gtest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>

#include <fmt/format.h>

#include "database/record_samples.hpp"
#include "database/tuning_database.hpp"
#include "jitgemm/error.hpp"
#include "support/test_support.hpp"

namespace jitgemm {
namespace {

namespace fs = std::filesystem;
using testing::sample_problem;
using testing::read_text;
using testing::sample_record;

// Files in `dir` whose names contain `part`.
int count_files(const fs::path& dir, const std::string& part) {
  int n = 0;
  for (const auto& entry : fs::directory_iterator(dir)) n += entry.path().filename().string().find(part) != std::string::npos;
  return n;
}

TEST(TuningDatabaseSave, SaveMergedCreatesDirectoryAndKeepsOtherRecords) {
  fs::path path = fs::path(testing::temp_dir("db_save")) / "nested" / "tuning.json";
  SaveReport first = TuningDatabase::save_merged(path, {sample_record(sample_problem(64, 64, 64)),
                                                        sample_record(sample_problem(128, 128, 128))});
  EXPECT_EQ(first.written, 2);
  EXPECT_FALSE(first.moved_aside);
  TuningRecord replacement = sample_record(sample_problem(64, 64, 64));
  replacement.config.stages = 6;
  TuningDatabase::save_merged(path, {replacement, sample_record(sample_problem(256, 64, 64))});
  TuningDatabase db = TuningDatabase::load(path);
  ASSERT_EQ(db.size(), 3u);
  EXPECT_EQ(db.find(replacement.key())->config.stages, 6);
  EXPECT_EQ(count_files(path.parent_path(), ".tmp."), 0);
  EXPECT_TRUE(fs::exists(path.string() + ".lock"));
}

TEST(TuningDatabaseSave, DamagedFileIsMovedAsideNotOverwritten) {
  fs::path dir = testing::temp_dir("db_damaged");
  fs::path path = dir / "tuning.json";
  const std::string damaged = "{\"schema_version\": 1, \"records\": [ {\"problem\": ";
  std::ofstream(path) << damaged;
  SaveReport report = TuningDatabase::save_merged(path, {sample_record(sample_problem(64, 64, 64))});
  ASSERT_TRUE(report.moved_aside.has_value());
  EXPECT_NE(report.moved_aside->filename().string().find("tuning.json.damaged-"), std::string::npos);
  EXPECT_EQ(read_text(*report.moved_aside), damaged);
  EXPECT_NE(report.warning.find("invalid JSON at byte"), std::string::npos) << report.warning;
  EXPECT_NE(report.warning.find(report.moved_aside->string()), std::string::npos) << report.warning;
  EXPECT_EQ(TuningDatabase::load(path).size(), 1u);

  // A second damaged file in the same second gets its own name.
  std::ofstream(path, std::ios::trunc) << "garbage";
  SaveReport again = TuningDatabase::save_merged(path, {sample_record(sample_problem(64, 64, 64))});
  ASSERT_TRUE(again.moved_aside.has_value());
  EXPECT_NE(*again.moved_aside, *report.moved_aside);
  EXPECT_EQ(read_text(*report.moved_aside), damaged);
  EXPECT_EQ(read_text(*again.moved_aside), "garbage");
  EXPECT_EQ(count_files(dir, ".damaged-"), 2);
}

// Issue 14, defect 6: merging into a symlinked database replaced the link by a plain file and
// left the real file unchanged.
TEST(TuningDatabaseSave, ASymlinkedDatabaseUpdatesTheFileItNamesAndStaysALink) {
  const fs::path dir = testing::temp_dir("db_symlink");
  const fs::path real = dir / "real.json", link = dir / "db.json";
  TuningDatabase::save_merged(real, {sample_record(sample_problem(64, 64, 64))});
  fs::create_symlink("real.json", link);
  TuningDatabase::save_merged(link, {sample_record(sample_problem(128, 128, 128))});
  EXPECT_TRUE(fs::is_symlink(link));
  EXPECT_EQ(TuningDatabase::load(real).size(), 2u);
  EXPECT_EQ(TuningDatabase::load(link).size(), 2u);
  // A damaged target is moved aside as a file; the link then names the new database.
  std::ofstream(real) << "garbage";
  const SaveReport report = TuningDatabase::save_merged(link, {sample_record(sample_problem(64, 64, 64))});
  ASSERT_TRUE(report.moved_aside.has_value());
  EXPECT_EQ(report.moved_aside->parent_path(), dir);
  EXPECT_EQ(report.moved_aside->filename().string().rfind("real.json.damaged-", 0), 0u);
  EXPECT_TRUE(fs::is_symlink(link));
  EXPECT_EQ(TuningDatabase::load(real).size(), 1u);
}

// Issue 14, defect 5: temp files of killed writers were never cleaned (87 files, 469 MB after
// 150 kills). The next locked write removes this database's, and no other file.
TEST(TuningDatabaseSave, TheNextWriteRemovesTempFilesOfKilledWriters) {
  const fs::path dir = testing::temp_dir("db_temp_files");
  const fs::path db = dir / "tuning.json";
  TuningDatabase::save_merged(db, {sample_record(sample_problem(64, 64, 64))});
  const fs::path stale = dir / "tuning.json.tmp.999999.00000000deadbeef";
  const fs::path other = dir / "other.json.tmp.999999.00000000deadbeef";
  std::ofstream(stale) << "half a database";
  std::ofstream(other) << "another database's";
  TuningDatabase::save_merged(db, {sample_record(sample_problem(128, 128, 128))});
  EXPECT_FALSE(fs::exists(stale));
  EXPECT_TRUE(fs::exists(other));
  EXPECT_EQ(TuningDatabase::load(db).size(), 2u);
  std::ofstream(stale) << "again";
  TuningDatabase::load(db).save(db);  // save() takes the same lock and cleans the same way
  EXPECT_FALSE(fs::exists(stale));
}

// Issue 14, defect 7: reads had no size cap (verify /dev/zero ate memory).
TEST(TuningDatabaseSave, ReadsStopAtTheSizeCap) {
  try {
    TuningDatabase::load("/dev/zero");
    ADD_FAILURE() << "/dev/zero loaded";
  } catch (const DatabaseError& e) {
    EXPECT_NE(std::string(e.what()).find("/dev/zero: larger than the 256 MiB"), std::string::npos) << e.what();
  }
}

TEST(TuningDatabaseSave, NewerSchemaIsNeverReplaced) {
  fs::path path = fs::path(testing::temp_dir("db_newer")) / "tuning.json";
  const std::string newer =
      fmt::format(R"({{"schema_version": {}, "records": [], "shards": []}})", TuningDatabase::kSchemaVersion + 1);
  std::ofstream(path) << newer;
  EXPECT_THROW(TuningDatabase::save_merged(path, {sample_record(sample_problem(64, 64, 64))}), DatabaseError);
  EXPECT_EQ(read_text(path), newer);
  EXPECT_EQ(count_files(path.parent_path(), ".damaged-"), 0);
}

TEST(TuningDatabaseSave, UpdateWithThrowPolicyLeavesDamagedFileAlone) {
  fs::path path = fs::path(testing::temp_dir("db_update")) / "tuning.json";
  std::ofstream(path) << "[1, 2";
  EXPECT_THROW(TuningDatabase::update(path, [](TuningDatabase&) {}), DatabaseError);
  EXPECT_EQ(read_text(path), "[1, 2");
}

TEST(TuningDatabaseSave, InvalidRecordsAreRefusedBeforeTouchingTheFile) {
  fs::path path = fs::path(testing::temp_dir("db_invalid")) / "tuning.json";
  TuningDatabase::save_merged(path, {sample_record(sample_problem(64, 64, 64))});
  const std::string before = read_text(path);
  TuningRecord bad = sample_record(sample_problem(128, 64, 64));
  bad.timing.median_ms = std::numeric_limits<double>::quiet_NaN();
  try {
    TuningDatabase::save_merged(path, {bad});
    FAIL() << "no exception";
  } catch (const InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find("tuning record " + bad.key() + ": timing.median_ms: expected a number > 0, got nan"),
              std::string::npos)
        << e.what();
  }
  EXPECT_EQ(read_text(path), before);
  TuningDatabase db;
  db.upsert(bad);
  EXPECT_THROW(db.save(path), InvalidArgument);
  EXPECT_EQ(read_text(path), before);
}

TEST(TuningDatabaseSave, SaveReplacesWholeFile) {
  fs::path path = fs::path(testing::temp_dir("db_save_whole")) / "tuning.json";
  TuningDatabase::save_merged(path, {sample_record(sample_problem(64, 64, 64))});
  TuningDatabase other;
  other.upsert(sample_record(sample_problem(32, 32, 32)));
  other.save(path);
  EXPECT_EQ(TuningDatabase::load(path).records(), other.records());
}

// The history file: written beside the database with the tables given, kept for the records
// the database holds, read back equal; TuningDatabase::load never reads it.
TEST(TuningDatabaseSave, SaveMergedKeepsTheHistoryBesideTheDatabase) {
  const fs::path dir = testing::temp_dir("db_history");
  const fs::path path = dir / "tuning.json";
  const fs::path history_path = dir / "tuning.history.json";
  EXPECT_EQ(history_path_for(path), history_path);
  EXPECT_EQ(history_path_for(dir / "db"), dir / "db.history.json");
  const TuningRecord a = sample_record(sample_problem(64, 64, 64)), b = sample_record(sample_problem(128, 64, 64));
  // Without tables, no history file is made.
  TuningDatabase::save_merged(path, {a});
  EXPECT_FALSE(fs::exists(history_path));
  SaveReport report = TuningDatabase::save_merged(path, {a, b}, {testing::sample_history(a), testing::sample_history(b)});
  EXPECT_EQ(report.history_entries, 2);
  TuningHistory history = TuningHistory::load(history_path);
  ASSERT_EQ(history.size(), 2u);
  ASSERT_NE(history.find(a), nullptr);
  EXPECT_EQ(*history.find(a), testing::sample_history(a));
  EXPECT_EQ(history_mismatch(*history.find(b), b), "");
  EXPECT_EQ(TuningHistory::parse(history.dump(), "again").entries(), history.entries());
  // A save without tables keeps the others' entries; a re-tuned record's old entry goes.
  TuningRecord a2 = sample_record(sample_problem(64, 64, 64), testing::kH100, "2025-03-01T00:00:00Z", 2.5);
  TuningDatabase::save_merged(path, {sample_record(sample_problem(256, 64, 64))});
  EXPECT_EQ(TuningHistory::load(history_path).size(), 2u);
  report = TuningDatabase::save_merged(path, {a2}, {testing::sample_history(a2)});
  history = TuningHistory::load(history_path);
  EXPECT_EQ(history.size(), 2u);
  EXPECT_EQ(history.find(a), nullptr);
  EXPECT_NE(history.find(a2), nullptr);
  EXPECT_NE(history.find(b), nullptr);
  EXPECT_EQ(TuningDatabase::load(path).size(), 3u);
  EXPECT_EQ(count_files(dir, ".tmp."), 0);
}

// A damaged history never stops a save: it is moved aside (never deleted), the report says
// so, and the database and a new history are written; load() never looks at it.
TEST(TuningDatabaseSave, ADamagedHistoryIsMovedAsideAndTheDatabaseStillSaves) {
  const fs::path dir = testing::temp_dir("db_history_damaged");
  const fs::path path = dir / "tuning.json", history_path = dir / "tuning.history.json";
  const TuningRecord a = sample_record(sample_problem(64, 64, 64)), b = sample_record(sample_problem(128, 64, 64));
  TuningDatabase::save_merged(path, {a}, {testing::sample_history(a)});
  const std::string damaged = testing::read_text(history_path).substr(0, 300);
  testing::write_text(history_path, damaged);
  EXPECT_EQ(TuningDatabase::load(path).size(), 1u);
  try {
    TuningHistory::load(history_path);
    ADD_FAILURE() << "a truncated history loaded";
  } catch (const DatabaseError& e) {
    EXPECT_NE(std::string(e.what()).find(history_path.string() + ": invalid JSON at byte 301"), std::string::npos)
        << e.what();
  }
  const SaveReport report = TuningDatabase::save_merged(path, {b}, {testing::sample_history(b)});
  ASSERT_TRUE(report.history_moved_aside.has_value());
  EXPECT_FALSE(report.moved_aside.has_value());
  EXPECT_EQ(read_text(*report.history_moved_aside), damaged);
  EXPECT_NE(report.warning.find("moved the damaged history aside to " + report.history_moved_aside->string()),
            std::string::npos)
      << report.warning;
  EXPECT_EQ(TuningDatabase::load(path).size(), 2u);
  const TuningHistory history = TuningHistory::load(history_path);
  EXPECT_EQ(history.size(), 1u);  // a's table was in the damaged file
  EXPECT_NE(history.find(b), nullptr);
  // A history of a newer schema is left as it is, and the database is still saved.
  const std::string newer = R"({"schema_version": 2, "histories": [], "shards": []})";
  testing::write_text(history_path, newer);
  const SaveReport left = TuningDatabase::save_merged(path, {a}, {testing::sample_history(a)});
  EXPECT_EQ(read_text(history_path), newer);
  EXPECT_EQ(left.history_entries, -1);
  EXPECT_NE(left.warning.find("written by a newer jitgemm"), std::string::npos) << left.warning;
  EXPECT_EQ(TuningDatabase::load(path).size(), 2u);
}

TEST(TuningDatabaseSave, InvalidHistoryEntriesAreRefusedBeforeTouchingTheFiles) {
  const fs::path path = fs::path(testing::temp_dir("db_history_invalid")) / "tuning.json";
  const TuningRecord a = sample_record(sample_problem(64, 64, 64));
  TuningDatabase::save_merged(path, {a}, {testing::sample_history(a)});
  const std::string before = read_text(path), history_before = read_text(history_path_for(path));
  CandidateHistory bad = testing::sample_history(a);
  bad.candidates[0].median_ms = 0;  // ok without a time
  try {
    TuningDatabase::save_merged(path, {a}, {bad});
    ADD_FAILURE() << "accepted";
  } catch (const InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find("candidates[0].median_ms: expected a number > 0, got 0"), std::string::npos)
        << e.what();
  }
  bad = testing::sample_history(a);
  bad.candidates.clear();
  EXPECT_THROW(TuningDatabase::save_merged(path, {a}, {bad}), InvalidArgument);
  EXPECT_EQ(read_text(path), before);
  EXPECT_EQ(read_text(history_path_for(path)), history_before);
}

// A file of schema 3 rewritten by any writer keeps what its records listed: in the history.
TEST(TuningDatabaseSave, ASchemaThreeFileRewrittenKeepsItsListsInTheHistory) {
  const fs::path dir = testing::temp_dir("db_history_v3");
  const fs::path path = dir / "tuning.json";
  fs::copy_file(JITGEMM_SOURCE_DIR "/tests/fixtures/tuning_checked.json", path);
  const TuningDatabase before = TuningDatabase::load(path);
  TuningDatabase::save_merged(path, {sample_record(sample_problem(64, 64, 64))});
  const TuningDatabase after = TuningDatabase::load(path);
  EXPECT_EQ(after.size(), before.size() + 1);
  const TuningHistory history = TuningHistory::load(dir / "tuning.history.json");
  EXPECT_EQ(history.size(), before.size());
  for (const TuningRecord& r : before.records()) {
    const CandidateHistory* entry = history.find(r);
    ASSERT_NE(entry, nullptr) << r.key();
    EXPECT_EQ(entry->candidates.size(), 6u);
    EXPECT_EQ(history_mismatch(*entry, *after.find(r.key())), "");
  }
}

// Child process body: 25 save_merged calls, one record each. Exit status 0 on success.
[[noreturn]] void write_records(const fs::path& path, int writer, int start_fd) {
  char go;
  (void)!::read(start_fd, &go, 1);  // returns at EOF when the parent closes its end
  try {
    for (int i = 0; i < 25; ++i)
      TuningDatabase::save_merged(path, {sample_record(sample_problem(16 + writer, 16 + i, 16))});
  } catch (const std::exception& e) {
    std::fprintf(stderr, "writer %d: %s\n", writer, e.what());
    ::_exit(1);
  }
  ::_exit(0);
}

TEST(TuningDatabaseSave, ConcurrentWritersLoseNothing) {
  fs::path path = fs::path(testing::temp_dir("db_concurrent")) / "tuning.json";
  int start[2];
  ASSERT_EQ(::pipe(start), 0);
  std::vector<pid_t> children;
  for (int writer = 0; writer < 8; ++writer) {
    pid_t pid = ::fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      ::close(start[1]);
      write_records(path, writer, start[0]);
    }
    children.push_back(pid);
  }
  ::close(start[0]);
  ::close(start[1]);  // all writers start together
  for (pid_t pid : children) {
    int status = 0;
    ASSERT_EQ(::waitpid(pid, &status, 0), pid);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "writer " << pid << " failed";
  }
  TuningDatabase db = TuningDatabase::load(path);
  EXPECT_EQ(db.size(), 200u);
  for (int writer = 0; writer < 8; ++writer)
    for (int i = 0; i < 25; ++i)
      EXPECT_NE(db.find(sample_record(sample_problem(16 + writer, 16 + i, 16)).key()), nullptr);
  EXPECT_EQ(count_files(path.parent_path(), ".tmp."), 0);
}

TEST(TuningDatabaseMerge, KeepsNewerAndIsOrderIndependent) {
  TuningRecord old_record = sample_record(sample_problem(64, 64, 64), testing::kH100, "2025-01-01T00:00:00Z");
  TuningRecord new_record = sample_record(sample_problem(64, 64, 64), testing::kH100, "2025-02-01T00:00:00Z");
  new_record.config.stages = 2;
  TuningDatabase a, b;
  a.upsert(old_record);
  a.upsert(sample_record(sample_problem(32, 32, 32)));
  b.upsert(new_record);
  b.upsert(sample_record(sample_problem(128, 32, 32), testing::kH200));
  TuningDatabase ab = TuningDatabase::merge(a, b);
  TuningDatabase ba = TuningDatabase::merge(b, a);
  EXPECT_EQ(ab.size(), 3u);
  EXPECT_EQ(ab.find(new_record.key())->tuned_at, "2025-02-01T00:00:00Z");
  EXPECT_EQ(ab.records(), ba.records());
}

TEST(TuningDatabaseMerge, TiesAreDeterministic) {
  TuningRecord slow = sample_record(sample_problem(64, 64, 64), testing::kH100, "2025-01-01T00:00:00Z", 2.0);
  TuningRecord fast = sample_record(sample_problem(64, 64, 64), testing::kH100, "2025-01-01T00:00:00Z", 1.0);
  TuningDatabase a, b;
  a.upsert(slow);
  b.upsert(fast);
  EXPECT_EQ(TuningDatabase::merge(a, b).records().front(), fast);
  EXPECT_EQ(TuningDatabase::merge(b, a).records().front(), fast);
}

// Issue 14, defect 8: a record dated 9999 won every later merge. A date later than now + 1 day
// counts as the earliest date: the record never wins by it, against older or newer tunings.
TEST(TuningDatabaseMerge, AFutureDateNeverWinsByItsDate) {
  using namespace std::chrono;
  const system_clock::time_point now = sys_days{year{2026} / 11 / 23} + hours{12};
  const ProblemKey key = sample_problem(64, 64, 64);
  TuningRecord future = sample_record(key, testing::kH100, "9999-12-31T23:59:59Z", 0.5);
  future.config.stages = 5;
  const TuningRecord real = sample_record(key, testing::kH100, "2026-11-23T11:00:00Z", 2.0);
  const TuningRecord old_real = sample_record(key, testing::kH100, "2020-01-01T00:00:00Z", 2.0);
  EXPECT_TRUE(is_future_dated(future, now));
  EXPECT_FALSE(is_future_dated(real, now));
  auto merged = [&](const TuningRecord& x, const TuningRecord& y) {
    TuningDatabase a, b;
    a.upsert(x);
    b.upsert(y);
    const TuningDatabase xy = TuningDatabase::merge(a, b, now), yx = TuningDatabase::merge(b, a, now);
    EXPECT_EQ(xy.records(), yx.records()) << "order matters";
    return xy.records().front();
  };
  EXPECT_EQ(merged(future, real), real);
  EXPECT_EQ(merged(future, old_real), old_real);
  // Within the tolerance a date is believed: a clock some hours ahead still wins.
  const TuningRecord ahead = sample_record(key, testing::kH100, "2026-11-24T06:00:00Z", 3.0);
  EXPECT_FALSE(is_future_dated(ahead, now));
  EXPECT_EQ(merged(ahead, real), ahead);
  // Two future dates: the usual ties (the faster median).
  const TuningRecord future_slow = sample_record(key, testing::kH100, "9999-01-01T00:00:00Z", 4.0);
  EXPECT_EQ(merged(future, future_slow), future);
}

}  // namespace
}  // namespace jitgemm
