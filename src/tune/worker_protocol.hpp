// The messages between a tuning run (tune/worker_bench.cpp) and its worker process
// (tune/tuning_worker.cpp), and their framing on a stream socket: a 4-byte little-endian
// length, then the message as CBOR (so a cubin travels as bytes).
//
//   run -> worker   "setup" once, then "measure" requests; closing the socket ends the worker
//   worker -> run   "ready" (the inputs) or "failure" once, then one "verdict" per request;
//                   a verdict with context_lost is the worker's last message
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "jitgemm/problem.hpp"
#include "tune/tuning_bench.hpp"

namespace jitgemm::worker {

using nlohmann::json;

// Frames larger than this are refused (a cubin is at most a few MiB).
constexpr uint32_t kMaxFrameBytes = 256u << 20;

struct WorkerSetup {
  GemmProblem problem;
  BenchSettings settings;
  int device = 0;
  std::string template_dir;  // empty: the embedded templates
  std::string cache_dir;     // the binary cache; empty: none
};

// A measure request as the worker holds it (MeasureRequest points into these).
struct OwnedRequest {
  size_t index = 0;
  KernelConfig config;
  CompiledKernel kernel;
  MeasurePhase phase = MeasurePhase::Screen;
  int warmup_runs = 0;
  int runs = 1;
  double idle_ratio = 0;
  MeasureRequest view() const { return {index, &config, &kernel, phase, warmup_runs, runs, 0, idle_ratio}; }
};

json setup_message(const WorkerSetup& setup);
WorkerSetup parse_setup(const json& message);

// The config travels as its name (KernelConfig::parse reads it back), the phase as "screen" or
// "retime", the run counts as numbers; parse_measure throws Error for an unknown phase or a
// run count outside 0..100000 (warm-up) / 1..100000 (timed).
json measure_message(const MeasureRequest& request);
OwnedRequest parse_measure(const json& message);

json ready_message(const TuningInputs& inputs);
TuningInputs parse_ready(const json& message);

json verdict_message(const BenchVerdict& verdict, bool context_lost);
BenchVerdict parse_verdict(const json& message, bool& context_lost);

// The exception that ended the worker's setup, by kind (invalid_argument, not_supported,
// cuda with its code, compile, database, error) and message; rethrow_failure throws the same
// type in the run, prefixed by `where`.
json failure_message(const std::exception& e);
[[noreturn]] void rethrow_failure(const json& message, std::string_view where);

// The message's "type"; throws Error when it is not `expected` (a confused peer).
void expect_type(const json& message, std::string_view expected);

// One frame: the length prefix and the CBOR bytes.
std::vector<uint8_t> encode_frame(const json& message);

// Reassembles frames from the bytes read off a socket, in any chunks.
class FrameDecoder {
 public:
  void feed(const uint8_t* data, size_t size);
  // The next whole message, if one has arrived. Throws Error on an oversize or undecodable frame.
  std::optional<json> next();

 private:
  std::vector<uint8_t> buffer_;
};

// Blocking I/O for the worker side. send_frame throws Error when the peer is gone (never
// raises SIGPIPE); receive_frame returns nullopt at end of stream.
void send_frame(int fd, const json& message);
std::optional<json> receive_frame(int fd, FrameDecoder& decoder);

}  // namespace jitgemm::worker
