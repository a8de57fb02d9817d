// One tuning worker process seen from the run that started it: spawned with a socket for
// the protocol (tune/worker_protocol.hpp) on its fd 3 and a pipe that collects its stdout
// and stderr. Messages are received with a deadline; a worker that dies or misses the
// deadline is killed and reaped, and its fate (exit code or signal, and the tail of what it
// printed) explains the candidate it took down.
//
//   WorkerProcess w(find_tuning_worker());
//   w.send(setup_message(...));
//   json reply;
//   if (w.receive(2000.0, reply) != WorkerProcess::Wait::Message) report(w.fate());
#pragma once

#include <sys/types.h>

#include <filesystem>
#include <string>

#include <nlohmann/json.hpp>

#include "tune/worker_protocol.hpp"

namespace jitgemm {

class WorkerProcess {
 public:
  // Throws Error naming the executable when it cannot be started.
  explicit WorkerProcess(const std::filesystem::path& executable);
  // Closes the socket (a healthy worker exits at end of stream), then waits up to 2 s before
  // SIGKILL. Never throws.
  ~WorkerProcess();
  WorkerProcess(const WorkerProcess&) = delete;
  WorkerProcess& operator=(const WorkerProcess&) = delete;

  // False once the worker died, was killed or missed a deadline.
  bool alive() const noexcept { return pid_ > 0 && !gone_; }
  // Returns false (and marks the worker gone) when it can no longer be written to.
  bool send(const nlohmann::json& message);

  enum class Wait { Message, Died, TimedOut };
  // Waits up to timeout_ms for the next message. Died / TimedOut: the worker has been killed
  // and reaped, fate() says how it ended.
  Wait receive(double timeout_ms, nlohmann::json& message);

  // "exited with code 3", "killed by signal 11 (Segmentation fault)" or "stopped by the
  // watchdog after 2.0 s", then the last lines it printed, if any.
  std::string fate() const;
  pid_t pid() const noexcept { return pid_; }

 private:
  void drain_output();
  void reap(bool kill_first);

  pid_t pid_ = -1;
  int socket_ = -1;  // our end of the protocol socket
  int output_ = -1;  // read end of the worker's stdout/stderr pipe
  bool gone_ = false;
  int wait_status_ = 0;
  bool reaped_ = false;
  double watchdog_ms_ = 0;  // > 0: killed for missing a deadline of this length
  std::string output_tail_;
  worker::FrameDecoder decoder_;
};

// The worker executable: $JITGEMM_TUNE_WORKER, else jitgemm-tune-worker beside libjitgemm
// (a build tree), else <prefix>/libexec/jitgemm/jitgemm-tune-worker (an install). Throws Error
// listing the paths it tried.
std::filesystem::path find_tuning_worker();

}  // namespace jitgemm
