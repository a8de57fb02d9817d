// SIGKILL at random points of database writes (issue 14): 200 times a child process adds one
// record and its history entry with save_merged and the parent kills it after a random delay. Half of the kills come
// after a delay drawn uniformly over the measured duration of one update (the lock, reading and
// checking the file, the merge, the text, the write); the other half aim at the write itself,
// short beside the rest: the parent waits for the temp file to appear (inotify) and kills after a
// delay drawn over the measured duration of write_file_atomically (write, fsync, close, rename,
// directory fsync). After every kill the file parses and holds the records it held before or
// those plus the new one, never fewer, and the history file beside it (written first) parses;
// after every write that completes, no temp file is left.
#include <gtest/gtest.h>

#include <poll.h>
#include <signal.h>
#include <sys/inotify.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "database/atomic_file.hpp"
#include "database/record_samples.hpp"
#include "database/tuning_database.hpp"
#include "support/test_support.hpp"

namespace jitgemm {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

constexpr int kKills = 200;
constexpr int kLargeRecords = 4;
constexpr int kCandidates = 150;  // per large record's history entry: ~30 KB of JSON, so an update takes some ms

// The full table of record `i` of the large ones: kCandidates candidates.
std::vector<CandidateResult> large_table() {
  const std::vector<CandidateResult> base = testing::sample_candidates();
  std::vector<CandidateResult> table;
  for (int c = 0; c < kCandidates; ++c) {
    CandidateResult candidate = base[static_cast<size_t>(c) % base.size()];
    if (candidate.outcome != CandidateOutcome::Ok) candidate.detail += " #" + std::to_string(c);
    table.push_back(candidate);
  }
  return table;
}

// Record `i`: its own problem, with kCandidates candidates in its history entry (the few
// records the files start with), so that reading and writing them take long enough to be hit
// at any point.
TuningRecord large_record(int i) {
  return testing::with_candidates(testing::sample_record(testing::sample_problem(64 + i, 64, 64)), large_table());
}

CandidateHistory large_history(const TuningRecord& r) { return CandidateHistory{r.key(), r.tuned_at, large_table()}; }

std::set<std::string> keys_in(const fs::path& path) {
  std::set<std::string> keys;
  const TuningDatabase db = TuningDatabase::load(path);
  for (const TuningRecord& r : db.records()) keys.insert(r.key());
  return keys;
}

int temp_files(const fs::path& dir) {
  int n = 0;
  for (const auto& entry : fs::directory_iterator(dir)) n += entry.path().filename().string().find(".tmp.") != std::string::npos;
  return n;
}

double ms_since(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

// A small record added by each update: the file grows slowly.
TuningRecord small_record(int i) { return testing::sample_record(testing::sample_problem(64 + i, 64, 64)); }

// Blocks until a file whose name starts with `prefix` is created in the directory `watch`
// (an inotify descriptor watching IN_CREATE) or `timeout_ms` passes; true when it was.
bool wait_for_file(int watch, const std::string& prefix, int timeout_ms) {
  const Clock::time_point start = Clock::now();
  alignas(inotify_event) char buffer[4096];
  for (;;) {
    const int left = timeout_ms - static_cast<int>(ms_since(start));
    pollfd p{watch, POLLIN, 0};
    if (left <= 0 || ::poll(&p, 1, left) <= 0) return false;
    const ssize_t n = ::read(watch, buffer, sizeof buffer);
    for (ssize_t at = 0; at < n;) {
      const auto* event = reinterpret_cast<const inotify_event*>(buffer + at);
      if (event->len > 0 && std::string(event->name).rfind(prefix, 0) == 0) return true;
      at += static_cast<ssize_t>(sizeof(inotify_event) + event->len);
    }
  }
}

// When the parent kills the child, counted from the child's signal that it starts its update.
struct KillPlan {
  double delay_ms = -1;   // < 0: never (the child runs to its end)
  int watch = -1;         // >= 0: first wait for the temp file to appear (inotify descriptor)
  std::string temp_prefix;
};

// Forks a child that signals on `ready` and then adds `record`; the parent waits for the signal
// and kills it as `plan` says. Returns whether the child was killed (false: it finished);
// `elapsed_ms`: from the signal to its end.
bool write_and_kill(const fs::path& path, const TuningRecord& record, const KillPlan& plan,
                    double* elapsed_ms = nullptr) {
  int ready[2];
  if (::pipe(ready) != 0) throw std::runtime_error("pipe failed");
  const pid_t pid = ::fork();
  if (pid < 0) throw std::runtime_error("fork failed");
  if (pid == 0) {
    ::close(ready[0]);
    (void)!::write(ready[1], "x", 1);
    try {
      TuningDatabase::save_merged(path, {record}, {testing::sample_history(record)});
    } catch (const std::exception& e) {
      std::fprintf(stderr, "child: %s\n", e.what());
      ::_exit(1);
    }
    ::_exit(0);
  }
  ::close(ready[1]);
  char go;
  (void)!::read(ready[0], &go, 1);
  const Clock::time_point start = Clock::now();
  ::close(ready[0]);
  if (plan.delay_ms >= 0) {
    if (plan.watch < 0 || wait_for_file(plan.watch, plan.temp_prefix, 5000))
      std::this_thread::sleep_for(std::chrono::duration<double, std::milli>(plan.delay_ms));
    ::kill(pid, SIGKILL);
  }
  int status = 0;
  ::waitpid(pid, &status, 0);
  if (elapsed_ms != nullptr) *elapsed_ms = ms_since(start);
  if (WIFEXITED(status) && WEXITSTATUS(status) != 0) throw std::runtime_error("the writer failed");
  return WIFSIGNALED(status);
}

TEST(TuningDatabaseKill, SigkillAnywhereInAWriteKeepsTheOldOrTheNewRecordsAndTheNextWriteCleansUp) {
  const fs::path dir = testing::temp_dir("db_kill");
  const fs::path path = dir / "tuning.json";
  const Clock::time_point test_start = Clock::now();
  int next = 0;
  std::vector<TuningRecord> initial;
  std::vector<CandidateHistory> tables;
  for (; next < kLargeRecords; ++next) {
    initial.push_back(large_record(next));
    tables.push_back(large_history(initial.back()));
  }
  TuningDatabase::save_merged(path, initial, tables);
  const fs::path history_path = history_path_for(path);
  std::set<std::string> committed = keys_in(path);

  // One update's duration (a child run to its end, three times), and that of its last part
  // (write_file_atomically of a file as large), re-measured every 25 kills as the file grows.
  double write_ms = 0, io_ms = 0;
  const auto measure = [&] {
    std::vector<double> times(3), io_times(3);
    for (double& t : times) {
      const TuningRecord record = small_record(next++);
      write_and_kill(path, record, KillPlan{}, &t);
      committed.insert(record.key());
      EXPECT_EQ(temp_files(dir), 0) << "a completed write left a temp file";
    }
    const std::string text = testing::read_text(path);
    for (double& t : io_times) {
      const Clock::time_point start = Clock::now();
      write_file_atomically(dir / "io_probe.json", text);
      t = ms_since(start);
    }
    std::sort(times.begin(), times.end());
    std::sort(io_times.begin(), io_times.end());
    write_ms = times[1];
    io_ms = io_times[1];
  };

  const int watch = ::inotify_init1(IN_CLOEXEC | IN_NONBLOCK);
  ASSERT_GE(watch, 0);
  ASSERT_GE(::inotify_add_watch(watch, dir.c_str(), IN_CREATE), 0);
  const unsigned seed = std::random_device{}();
  std::mt19937 rng(seed);
  int before_temp_file = 0, temp_file_present = 0, after_rename = 0, finished = 0;
  for (int kill = 0; kill < kKills; ++kill) {
    if (kill % 25 == 0) measure();
    const TuningRecord record = small_record(next++);
    KillPlan plan;
    if (kill % 2 == 0) {
      plan.delay_ms = std::uniform_real_distribution<double>(0, 1.1 * write_ms)(rng);
    } else {
      char drain[4096];
      while (::read(watch, drain, sizeof drain) > 0) {
      }
      plan.watch = watch;
      plan.temp_prefix = path.filename().string() + ".tmp.";
      plan.delay_ms = std::uniform_real_distribution<double>(0, 1.2 * io_ms)(rng);
    }
    const double delay_ms = plan.delay_ms;
    const bool killed = write_and_kill(path, record, plan);

    std::set<std::string> now;
    ASSERT_NO_THROW(now = keys_in(path)) << "kill " << kill << " (seed " << seed << ", delay " << delay_ms << " ms)";
    // The history is written the same way, first: it too is whole, the old one or the new one.
    ASSERT_NO_THROW(TuningHistory::load(history_path)) << "kill " << kill << " (seed " << seed << ")";
    std::set<std::string> with_new = committed;
    with_new.insert(record.key());
    ASSERT_TRUE(now == committed || now == with_new)
        << "kill " << kill << ": " << now.size() << " records, expected " << committed.size() << " or "
        << with_new.size() << " (seed " << seed << ")";
    const bool temp_left = temp_files(dir) > 0;
    if (!killed) {
      ++finished;
      EXPECT_FALSE(temp_left) << "a completed write left a temp file (kill " << kill << ")";
    } else if (now == with_new) {
      ++after_rename;
    } else if (temp_left) {
      ++temp_file_present;
    } else {
      ++before_temp_file;
    }
    committed = now;
  }
  ::close(watch);
  const TuningRecord last = small_record(next++);
  TuningDatabase::save_merged(path, {last});
  committed.insert(last.key());
  EXPECT_EQ(temp_files(dir), 0) << "the write after the kills left temp files";
  EXPECT_EQ(keys_in(path), committed);
  // Every record's entry is in the history but those of records whose save was killed between
  // the history and the database (an entry of no record is dropped by the next save).
  const TuningDatabase db = TuningDatabase::load(path);
  const TuningHistory history = TuningHistory::load(history_path);
  for (const CandidateHistory& entry : history.entries()) EXPECT_NE(db.find(entry.key), nullptr) << entry.key;
  EXPECT_GE(history.size(), kLargeRecords);

  const double seconds = ms_since(test_start) / 1000;
  std::printf("%d kills in %.1f s (one update %.1f ms, its write/fsync/rename %.1f ms, at the end; %zu records): "
              "%d before the temp file existed, %d with the temp file there (write/fsync/close/rename), %d after "
              "the rename, %d updates finished first (seed %u)\n",
              kKills, seconds, write_ms, io_ms, committed.size(), before_temp_file, temp_file_present, after_rename,
              finished, seed);
  // The kills are spread over the write, not bunched at start-up.
  EXPECT_GT(temp_file_present, 0);
  EXPECT_GT(after_rename + finished, 0);
  EXPECT_GT(before_temp_file, 0);
}

}  // namespace
}  // namespace jitgemm
