// I/O faults at each step of a save (issue 14): through the FileSystemCalls seam of
// atomic_file.hpp, each call a save makes (open of the temp file, write, fsync, close, rename,
// open and fsync of the directory) fails with EIO and with ENOSPC. The save throws a
// DatabaseError naming the call and the path; the database holds the old records (the new
// ones after a failed directory fsync, which comes after the rename); no temp file is left. A
// fault while the history file (written first) is written leaves the database as it was.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "database/atomic_file.hpp"
#include "database/record_samples.hpp"
#include "database/tuning_database.hpp"
#include "jitgemm/error.hpp"
#include "support/test_support.hpp"

namespace jitgemm {
namespace {

namespace fs = std::filesystem;
using testing::read_text;
using testing::sample_problem;
using testing::sample_record;

// The step of a save that fails.
enum class Step { OpenTemp, Write, Fsync, Close, Rename, OpenDirectory, FsyncDirectory };

struct Fault {
  Step step = Step::Write;
  int error = EIO;
  int short_writes = 0;  // Write: first write this many short pieces (that succeed), then fail
  int interrupts = 0;    // Write: first fail this many times with EINTR (which is retried), then succeed
};

Fault g_fault;
FileSystemCalls g_real = posix_file_system_calls();

bool is_directory(int fd) {
  struct stat st{};
  return ::fstat(fd, &st) == 0 && S_ISDIR(st.st_mode);
}

int fail(int error) {
  errno = error;
  return -1;
}

int fake_open(const char* path, int flags, mode_t mode) {
  const Step step = (flags & O_DIRECTORY) != 0 ? Step::OpenDirectory : Step::OpenTemp;
  return g_fault.step == step ? fail(g_fault.error) : g_real.open(path, flags, mode);
}

ssize_t fake_write(int fd, const void* data, size_t size) {
  if (g_fault.step != Step::Write) return g_real.write(fd, data, size);
  if (g_fault.interrupts > 0) {
    --g_fault.interrupts;
    return fail(EINTR);
  }
  if (g_fault.short_writes > 0) {
    --g_fault.short_writes;
    return g_real.write(fd, data, std::min<size_t>(size, 100));
  }
  return g_fault.error == 0 ? g_real.write(fd, data, size) : fail(g_fault.error);
}

int fake_fsync(int fd) {
  const Step step = is_directory(fd) ? Step::FsyncDirectory : Step::Fsync;
  return g_fault.step == step ? fail(g_fault.error) : g_real.fsync(fd);
}

int fake_close(int fd) {
  const int result = g_real.close(fd);  // as on Linux: the descriptor is gone even when close fails
  return g_fault.step == Step::Close ? fail(g_fault.error) : result;
}

int fake_rename(const char* from, const char* to) {
  return g_fault.step == Step::Rename ? fail(g_fault.error) : g_real.rename(from, to);
}

// The fakes, installed for one scope.
class FaultyCalls {
 public:
  explicit FaultyCalls(Fault fault) {
    g_fault = fault;
    g_real = set_file_system_calls_for_testing({&fake_open, &fake_write, &fake_fsync, &fake_close, &fake_rename});
  }
  ~FaultyCalls() { set_file_system_calls_for_testing(g_real); }
  FaultyCalls(const FaultyCalls&) = delete;
  FaultyCalls& operator=(const FaultyCalls&) = delete;
};

int temp_files(const fs::path& dir) {
  int n = 0;
  for (const auto& entry : fs::directory_iterator(dir)) n += entry.path().filename().string().find(".tmp.") != std::string::npos;
  return n;
}

std::vector<TuningRecord> records_in(const fs::path& path) { return TuningDatabase::load(path).records(); }

struct StepCase {
  Step step;
  const char* call;       // as the message names it
  bool names_directory;   // the path named: the directory, else the temp file
  bool after_rename;      // the new records are in place when it fails
};

constexpr StepCase kSteps[] = {
    {Step::OpenTemp, "open(", false, false},     {Step::Write, "write(", false, false},
    {Step::Fsync, "fsync(", false, false},       {Step::Close, "close(", false, false},
    {Step::Rename, "rename(", false, false},     {Step::OpenDirectory, "open(", true, true},
    {Step::FsyncDirectory, "fsync(", true, true},
};

TEST(AtomicFileFaults, EachStepOfASaveFailsCleanlyNamingTheCallAndThePath) {
  for (const StepCase& step : kSteps) {
    for (const int error : {EIO, ENOSPC}) {
      const fs::path dir = testing::temp_dir("db_faults");
      const fs::path path = dir / "tuning.json";
      const TuningRecord a = sample_record(sample_problem(64, 64, 64)), b = sample_record(sample_problem(128, 64, 64));
      const TuningRecord added = sample_record(sample_problem(256, 64, 64));
      TuningDatabase::save_merged(path, {a, b});
      const std::string before = read_text(path);
      std::string message;
      {
        FaultyCalls faulty(Fault{step.step, error});
        try {
          TuningDatabase::save_merged(path, {added});
        } catch (const DatabaseError& e) {
          message = e.what();
        }
      }
      const std::string what = std::string(step.call) + " " + std::strerror(error);
      ASSERT_FALSE(message.empty()) << what << ": the save did not fail";
      EXPECT_EQ(message.rfind(step.call, 0), 0u) << what << ": " << message;
      const std::string named = step.names_directory ? dir.string() + ")" : path.string() + ".tmp.";
      EXPECT_NE(message.find(named), std::string::npos) << what << ": " << message;
      EXPECT_NE(message.find(std::strerror(error)), std::string::npos) << what << ": " << message;
      if (step.step == Step::Rename) EXPECT_NE(message.find(", " + path.string() + ")"), std::string::npos) << message;
      if (step.after_rename) {
        EXPECT_EQ(records_in(path).size(), 3u) << what;  // renamed into place; its durability failed
      } else {
        EXPECT_EQ(read_text(path), before) << what << ": the old database changed";
      }
      EXPECT_EQ(temp_files(dir), 0) << what << ": a temp file was left";
      TuningDatabase::save_merged(path, {added});  // and the next save works
      EXPECT_EQ(records_in(path).size(), 3u) << what;
    }
  }
}

// With a history beside the database, the history is written first: a fault at any step of
// that write stops the save before the database is touched, and neither file is lost.
TEST(AtomicFileFaults, AFaultWritingTheHistoryLeavesTheDatabaseAsItWas) {
  for (const StepCase& step : kSteps) {
    const fs::path dir = testing::temp_dir("db_history_faults");
    const fs::path path = dir / "tuning.json", history_path = history_path_for(path);
    const TuningRecord a = sample_record(sample_problem(64, 64, 64)), added = sample_record(sample_problem(256, 64, 64));
    TuningDatabase::save_merged(path, {a}, {testing::sample_history(a)});
    const std::string before = read_text(path), history_before = read_text(history_path);
    std::string message;
    {
      FaultyCalls faulty(Fault{step.step, EIO});
      try {
        TuningDatabase::save_merged(path, {added}, {testing::sample_history(added)});
      } catch (const DatabaseError& e) {
        message = e.what();
      }
    }
    ASSERT_FALSE(message.empty()) << step.call << ": the save did not fail";
    if (!step.names_directory)
      EXPECT_NE(message.find(history_path.string() + ".tmp."), std::string::npos) << message;
    EXPECT_EQ(read_text(path), before) << step.call << ": the database changed";
    if (!step.after_rename) EXPECT_EQ(read_text(history_path), history_before) << step.call;
    EXPECT_NO_THROW(TuningHistory::load(history_path)) << step.call;
    EXPECT_EQ(temp_files(dir), 0) << step.call << ": a temp file was left";
    TuningDatabase::save_merged(path, {added}, {testing::sample_history(added)});  // and the next save works
    EXPECT_EQ(records_in(path).size(), 2u);
    EXPECT_EQ(TuningHistory::load(history_path).size(), 2u);
  }
}

TEST(AtomicFileFaults, ShortWritesAndInterruptedWritesStillWriteEverything) {
  const fs::path path = fs::path(testing::temp_dir("db_short_writes")) / "tuning.json";
  const TuningRecord a = sample_record(sample_problem(64, 64, 64));
  {
    FaultyCalls faulty(Fault{Step::Write, 0, /*short_writes=*/5, /*interrupts=*/3});
    TuningDatabase::save_merged(path, {a});
  }
  EXPECT_EQ(records_in(path), std::vector<TuningRecord>{a});
  // A write that fails after some pieces went out leaves the old file and no temp file.
  const std::string before = read_text(path);
  {
    FaultyCalls faulty(Fault{Step::Write, ENOSPC, /*short_writes=*/3});
    EXPECT_THROW(TuningDatabase::save_merged(path, {sample_record(sample_problem(32, 64, 64))}), DatabaseError);
  }
  EXPECT_EQ(read_text(path), before);
  EXPECT_EQ(temp_files(path.parent_path()), 0);
}

}  // namespace
}  // namespace jitgemm
