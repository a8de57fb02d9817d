// WorkerProcess and WorkerBench without a GPU: stand-in workers (shell and Python scripts)
// that answer, die, print or hang, and the real jitgemm-tune-worker reporting a missing
// device as the CudaError it met. The planted-candidate test on the GPU is
// tests/gpu/isolated_tuning_test.cpp.
#include "tune/worker_process.hpp"

#include <gtest/gtest.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <string>

#include "codegen/template_store.hpp"
#include "compile/compiler.hpp"
#include "cuda/device_info.hpp"
#include "jitgemm/error.hpp"
#include "support/test_support.hpp"
#include "tune/worker_bench.hpp"

namespace jitgemm {
namespace {

using worker::json;

// An executable script in a fresh directory.
std::filesystem::path script(const std::string& tag, const std::string& text) {
  const std::filesystem::path path = std::filesystem::path(testing::temp_dir(tag)) / "worker";
  std::ofstream(path) << text;
  std::filesystem::permissions(path, std::filesystem::perms::owner_all);
  return path;
}

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

TEST(WorkerProcess, MessagesGoBothWaysOverTheSocket) {
  // Echoes every frame back on fd 3, with "type" renamed to "echo".
  const auto path = script("worker-echo", R"(#!/usr/bin/env python3
import os, struct
fd = 3
buf = b""
while True:
    chunk = os.read(fd, 65536)
    if not chunk:
        break
    buf += chunk
    while len(buf) >= 4:
        n = struct.unpack("<I", buf[:4])[0]
        if len(buf) < 4 + n:
            break
        frame, buf = buf[:4 + n], buf[4 + n:]
        os.write(fd, frame)
)");
  WorkerProcess w(path);
  const json big = {{"type", "x"}, {"blob", json::binary_t(std::vector<uint8_t>(1 << 20, 3))}};
  ASSERT_TRUE(w.send(big));
  json reply;
  ASSERT_EQ(w.receive(10000, reply), WorkerProcess::Wait::Message) << w.fate();
  EXPECT_EQ(reply, big);
}

TEST(WorkerProcess, ADeathIsReportedWithTheSignalAndTheLastOutput) {
  const auto path = script("worker-segv", "#!/bin/sh\necho 'about to fault' >&2\nkill -SEGV $$\n");
  WorkerProcess w(path);
  json reply;
  EXPECT_EQ(w.receive(10000, reply), WorkerProcess::Wait::Died);
  EXPECT_FALSE(w.alive());
  EXPECT_TRUE(contains(w.fate(), "signal 11")) << w.fate();
  EXPECT_TRUE(contains(w.fate(), "about to fault")) << w.fate();
  EXPECT_FALSE(w.send({{"type", "measure"}}));  // no SIGPIPE: just false
}

TEST(WorkerProcess, AnExitCodeIsReported) {
  const auto path = script("worker-exit", "#!/bin/sh\necho 'no device' \nexit 7\n");
  WorkerProcess w(path);
  json reply;
  EXPECT_EQ(w.receive(10000, reply), WorkerProcess::Wait::Died);
  EXPECT_TRUE(contains(w.fate(), "exited with code 7")) << w.fate();
  EXPECT_TRUE(contains(w.fate(), "no device")) << w.fate();
}

TEST(WorkerProcess, TheWatchdogKillsAHangingWorkerOnTime) {
  const auto path = script("worker-hang", "#!/bin/sh\nexec sleep 60\n");
  const auto start = std::chrono::steady_clock::now();
  WorkerProcess w(path);
  json reply;
  EXPECT_EQ(w.receive(300, reply), WorkerProcess::Wait::TimedOut);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_LT(seconds, 5.0);
  EXPECT_FALSE(w.alive());
  EXPECT_TRUE(contains(w.fate(), "watchdog after 0.3 s")) << w.fate();
}

TEST(WorkerProcess, OnlyTheSocketIsInherited) {
  // A descriptor of ours without close-on-exec must not reach the worker, which lists its
  // own: 0, 1, 2, the socket 3, and 4 (the directory ls reads).
  const int leak = ::open("/dev/null", O_RDONLY);
  ASSERT_GE(leak, 0);
  const auto path = script("worker-fds", "#!/bin/sh\nls /proc/self/fd >&2\nexit 0\n");
  WorkerProcess w(path);
  json reply;
  EXPECT_EQ(w.receive(10000, reply), WorkerProcess::Wait::Died);
  ::close(leak);
  EXPECT_TRUE(w.fate().ends_with("its last output: 0 | 1 | 2 | 3 | 4")) << w.fate();
}

TEST(WorkerProcess, AMissingExecutableIsAnErrorNamingIt) {
  try {
    WorkerProcess w("/nonexistent/jitgemm-tune-worker");
    FAIL() << "spawned a missing executable";
  } catch (const Error& e) {
    EXPECT_TRUE(contains(e.what(), "/nonexistent/jitgemm-tune-worker")) << e.what();
  }
}

TEST(WorkerProcess, TheWorkerIsFoundBesideTheLibraryOrByItsVariable) {
  EXPECT_EQ(find_tuning_worker().filename(), "jitgemm-tune-worker");
  ::setenv("JITGEMM_TUNE_WORKER", "/nonexistent/worker", 1);
  EXPECT_THROW(find_tuning_worker(), Error);
  ::unsetenv("JITGEMM_TUNE_WORKER");
}

TEST(WorkerBench, WithoutADeviceTheWorkerReportsTheDriversError) {
  std::string reason;
  if (testing::gpu_available(&reason)) GTEST_SKIP() << "a GPU exists: tests/gpu/isolated_tuning_test.cpp covers it";
  GemmProblem p;
  p.m = p.n = p.k = 64;
  Compiler compiler(std::nullopt);
  try {
    make_worker_bench(p, cuda::DeviceInfo{}, compiler, TemplateStore::embedded(), BenchSettings{});
    FAIL() << "a worker set up without a device";
  } catch (const CudaError& e) {
    EXPECT_TRUE(contains(e.what(), "tuning worker: ")) << e.what();
  }
}

}  // namespace
}  // namespace jitgemm
