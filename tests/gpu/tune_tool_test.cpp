// jitgemm-tune on the GPU as a user runs it: a tune stopped part way keeps the records of the
// problems it finished (each is saved as its problem finishes, not after the last).
#include <gtest/gtest.h>

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>

#include "database/tuning_database.hpp"
#include "gpu_fixture.hpp"

namespace jitgemm::testing {
namespace {

// How many records the database at `path` holds now (0 while it does not exist yet); every
// read must load: the tool replaces the file atomically.
size_t records_in(const std::string& path) {
  if (!std::filesystem::exists(path)) return 0;
  return TuningDatabase::load(path).records().size();
}

TEST(TuneTool, AStoppedTuneKeepsTheProblemsItFinished) {
  JITGEMM_REQUIRE_GPU();
  const std::string dir = temp_dir("tune_tool_stopped");
  const std::string problems = dir + "/problems.json", db = dir + "/tuning.json";
  std::filesystem::remove(db);
  // A small product, then one that takes a while to verify and time (8192 x 8192 x 4096 fp32).
  std::ofstream(problems) << R"([{"id": "small", "m": 128, "n": 128, "k": 128, "precision": "fp32"},
                                 {"id": "large", "m": 8192, "n": 8192, "k": 4096, "precision": "fp32"}])";
  const std::string tool = std::string(JITGEMM_BINARY_DIR) + "/jitgemm-tune";
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    const int null = open("/dev/null", O_WRONLY);
    dup2(null, 1), dup2(null, 2);
    execl(tool.c_str(), tool.c_str(), "--problems", problems.c_str(), "--db", db.c_str(), "--configs",
          "simt_fp32_64x64x8_w2x2_t4x8_s3_k1_g8", "--jobs", "2", "--runs", "200", static_cast<char*>(nullptr));
    _exit(127);
  }
  // Stop it (SIGKILL: no chance to save anything more) once the first record is on disk.
  bool exited = false, killed = false;
  int status = 0;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(300);
  while (std::chrono::steady_clock::now() < deadline) {
    if (waitpid(child, &status, WNOHANG) == child) {
      exited = true;
      break;
    }
    if (records_in(db) >= 1) {
      kill(child, SIGKILL);
      killed = true;
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  if (!exited) {
    if (!killed) kill(child, SIGKILL);
    waitpid(child, &status, 0);
  }
  ASSERT_TRUE(killed) << (exited ? "jitgemm-tune exited (status " + std::to_string(status) +
                                       ") before any record was on disk"
                                 : std::string("no record within 300 s"));
  const TuningDatabase saved = TuningDatabase::load(db);
  ASSERT_EQ(saved.records().size(), 1u) << "killed while tuning the second problem";
  EXPECT_EQ(saved.records().front().problem.m, 128);
  EXPECT_EQ(saved.records().front().config.name(), "simt_fp32_64x64x8_w2x2_t4x8_s3_k1_g8");
}

}  // namespace
}  // namespace jitgemm::testing
