// Spawning, talking to and reaping a tuning worker (see worker_process.hpp).
#include "tune/worker_process.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <vector>

#include <fmt/format.h>

#include "common/library_directory.hpp"
#include "jitgemm/error.hpp"

extern char** environ;

namespace jitgemm {
namespace {

using Clock = std::chrono::steady_clock;

constexpr size_t kOutputTailBytes = 4096;
constexpr int kWorkerSocketFd = 3;  // where the worker finds its end of the socket
constexpr double kExitGraceMs = 2000;

[[noreturn]] void throw_errno(std::string_view call, std::string_view args, int err) {
  throw Error(fmt::format("tuning worker: {}({}) failed: {}", call, args, std::strerror(err)));
}

// Moves `fd` to a number >= 10, close-on-exec, so that the worker's dup2 onto 0..3 never
// meets one of its own sources.
int move_high(int fd) {
  const int high = ::fcntl(fd, F_DUPFD_CLOEXEC, 10);
  const int err = errno;
  ::close(fd);
  if (high < 0) throw_errno("fcntl", "F_DUPFD_CLOEXEC", err);
  return high;
}

// Owns posix_spawn's file actions.
class SpawnActions {
 public:
  SpawnActions() { posix_spawn_file_actions_init(&actions_); }
  ~SpawnActions() { posix_spawn_file_actions_destroy(&actions_); }
  SpawnActions(const SpawnActions&) = delete;
  SpawnActions& operator=(const SpawnActions&) = delete;
  posix_spawn_file_actions_t* get() { return &actions_; }

 private:
  posix_spawn_file_actions_t actions_;
};

// The last kOutputTailBytes of `text`, as a few lines joined by " | ".
std::string tail_lines(const std::string& text) {
  std::string out;
  size_t lines = 0;
  size_t end = text.size();
  while (end > 0 && lines < 6) {
    while (end > 0 && (text[end - 1] == '\n' || text[end - 1] == '\r')) --end;
    if (end == 0) break;
    const size_t start = text.rfind('\n', end - 1);
    const size_t from = start == std::string::npos ? 0 : start + 1;
    std::string line = text.substr(from, end - from);
    out = out.empty() ? line : line + " | " + out;
    ++lines;
    end = from;
  }
  return out;
}

}  // namespace

WorkerProcess::WorkerProcess(const std::filesystem::path& executable) {
  int sv[2];
  if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0) throw_errno("socketpair", "AF_UNIX", errno);
  socket_ = move_high(sv[0]);
  const int child_socket = move_high(sv[1]);
  int pipe_fds[2];
  if (::pipe2(pipe_fds, O_CLOEXEC) != 0) {
    const int err = errno;
    ::close(child_socket);
    throw_errno("pipe2", "O_CLOEXEC", err);
  }
  output_ = move_high(pipe_fds[0]);
  const int child_output = move_high(pipe_fds[1]);
  ::fcntl(output_, F_SETFL, ::fcntl(output_, F_GETFL) | O_NONBLOCK);

  SpawnActions actions;
  posix_spawn_file_actions_addopen(actions.get(), 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(actions.get(), child_output, 1);
  posix_spawn_file_actions_adddup2(actions.get(), child_output, 2);
  posix_spawn_file_actions_adddup2(actions.get(), child_socket, kWorkerSocketFd);
  posix_spawn_file_actions_addclosefrom_np(actions.get(), kWorkerSocketFd + 1);  // nothing else of ours leaks
  const std::string path = executable.string();
  std::vector<char*> argv{const_cast<char*>(path.c_str()), nullptr};
  const int rc = ::posix_spawn(&pid_, path.c_str(), actions.get(), nullptr, argv.data(), environ);
  ::close(child_socket);
  ::close(child_output);
  if (rc != 0) {
    ::close(socket_);
    ::close(output_);
    socket_ = output_ = -1;
    pid_ = -1;
    throw_errno("posix_spawn", path, rc);
  }
}

WorkerProcess::~WorkerProcess() {
  if (socket_ >= 0) ::close(socket_);  // end of stream: a healthy worker exits
  socket_ = -1;
  if (pid_ > 0 && !reaped_) reap(false);
  if (output_ >= 0) ::close(output_);
}

bool WorkerProcess::send(const nlohmann::json& message) {
  if (!alive()) return false;
  try {
    worker::send_frame(socket_, message);
    return true;
  } catch (const Error&) {
    gone_ = true;
    reap(false);
    return false;
  }
}

WorkerProcess::Wait WorkerProcess::receive(double timeout_ms, nlohmann::json& message) {
  const auto deadline = Clock::now() + std::chrono::microseconds(static_cast<int64_t>(timeout_ms * 1000.0));
  uint8_t chunk[65536];
  for (;;) {
    if (auto next = decoder_.next()) {
      message = std::move(*next);
      return Wait::Message;
    }
    if (!alive()) return Wait::Died;
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
    if (left <= 0) {
      watchdog_ms_ = timeout_ms;
      reap(true);
      return Wait::TimedOut;
    }
    pollfd fds[2] = {{socket_, POLLIN, 0}, {output_, POLLIN, 0}};
    const int ready = ::poll(fds, 2, static_cast<int>(std::min<int64_t>(left, 1000)));
    if (ready < 0 && errno != EINTR) throw_errno("poll", "the worker's socket", errno);
    if (ready <= 0) continue;
    if (fds[1].revents != 0) drain_output();
    if (fds[0].revents == 0) continue;
    const ssize_t n = ::read(socket_, chunk, sizeof chunk);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {  // end of stream (or a reset): the worker is gone
      gone_ = true;
      reap(false);
      return Wait::Died;
    }
    decoder_.feed(chunk, static_cast<size_t>(n));
  }
}

void WorkerProcess::drain_output() {
  char chunk[4096];
  for (;;) {
    const ssize_t n = ::read(output_, chunk, sizeof chunk);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;  // EAGAIN: nothing more now; 0: the worker closed it
    output_tail_.append(chunk, static_cast<size_t>(n));
    if (output_tail_.size() > 2 * kOutputTailBytes) output_tail_.erase(0, output_tail_.size() - kOutputTailBytes);
  }
}

void WorkerProcess::reap(bool kill_first) {
  gone_ = true;
  if (pid_ <= 0 || reaped_) return;
  if (kill_first) ::kill(pid_, SIGKILL);
  const auto grace_end = Clock::now() + std::chrono::milliseconds(static_cast<int>(kExitGraceMs));
  for (;;) {
    const pid_t r = ::waitpid(pid_, &wait_status_, kill_first ? 0 : WNOHANG);
    if (r == pid_) break;
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) break;  // not our child any more (the caller reaped it): nothing to wait for
    if (Clock::now() >= grace_end) {
      ::kill(pid_, SIGKILL);
      kill_first = true;
      continue;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  reaped_ = true;
  drain_output();
}

std::string WorkerProcess::fate() const {
  std::string how;
  if (watchdog_ms_ > 0) {
    how = fmt::format("stopped by the watchdog after {:.1f} s", watchdog_ms_ / 1000.0);
  } else if (!reaped_) {
    how = "lost";
  } else if (WIFEXITED(wait_status_)) {
    how = fmt::format("the worker exited with code {}", WEXITSTATUS(wait_status_));
  } else if (WIFSIGNALED(wait_status_)) {
    how = fmt::format("the worker was killed by signal {} ({})", WTERMSIG(wait_status_),
                      ::strsignal(WTERMSIG(wait_status_)));
  } else {
    how = "the worker ended";
  }
  const std::string tail = tail_lines(output_tail_);
  return tail.empty() ? how : fmt::format("{}; its last output: {}", how, tail);
}

std::filesystem::path find_tuning_worker() {
  namespace fs = std::filesystem;
  constexpr const char* kName = "jitgemm-tune-worker";
  std::vector<fs::path> tried;
  auto usable = [&](const fs::path& p) {
    tried.push_back(p);
    std::error_code ec;
    return fs::is_regular_file(p, ec) && ::access(p.c_str(), X_OK) == 0;
  };
  if (const char* env = std::getenv("JITGEMM_TUNE_WORKER"); env != nullptr && *env != '\0') {
    if (usable(env)) return env;
    throw Error(fmt::format("tune: JITGEMM_TUNE_WORKER={} is not an executable file", env));
  }
  if (const fs::path lib_dir = library_directory(); !lib_dir.empty()) {
    for (const fs::path& p : {lib_dir / kName, lib_dir.parent_path() / "libexec/jitgemm" / kName})
      if (usable(p)) return p;
  }
  std::vector<std::string> names;
  for (const auto& p : tried) names.push_back(p.string());
  throw Error(fmt::format("tune: the tuning worker {} was not found (tried {}); set JITGEMM_TUNE_WORKER to its path",
                          kName, fmt::join(names, ", ")));
}

}  // namespace jitgemm
