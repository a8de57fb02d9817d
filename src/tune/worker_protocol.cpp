// Messages and framing of the tuning worker protocol (see worker_protocol.hpp).
#include "tune/worker_protocol.hpp"

#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstring>

#include <fmt/format.h>

#include "jitgemm/error.hpp"

namespace jitgemm::worker {
namespace {

json problem_json(const GemmProblem& p) {
  return {{"m", p.m},
          {"n", p.n},
          {"k", p.k},
          {"trans_a", to_string(p.trans_a)},
          {"trans_b", to_string(p.trans_b)},
          {"lda", p.lda},
          {"ldb", p.ldb},
          {"ldc", p.ldc},
          {"alpha", p.alpha},
          {"beta", p.beta},
          {"structure_a", to_string(p.structure_a)},
          {"structure_b", to_string(p.structure_b)},
          {"fill", to_string(p.fill)},
          {"precision", to_string(p.precision)}};
}

GemmProblem parse_problem(const json& j) {
  GemmProblem p;
  p.m = j.at("m").get<int64_t>();
  p.n = j.at("n").get<int64_t>();
  p.k = j.at("k").get<int64_t>();
  p.trans_a = parse_op(j.at("trans_a").get<std::string>(), "trans_a");
  p.trans_b = parse_op(j.at("trans_b").get<std::string>(), "trans_b");
  p.lda = j.at("lda").get<int64_t>();
  p.ldb = j.at("ldb").get<int64_t>();
  p.ldc = j.at("ldc").get<int64_t>();
  p.alpha = j.at("alpha").get<float>();
  p.beta = j.at("beta").get<float>();
  p.structure_a = parse_structure(j.at("structure_a").get<std::string>(), "structure_a");
  p.structure_b = parse_structure(j.at("structure_b").get<std::string>(), "structure_b");
  p.fill = parse_fill(j.at("fill").get<std::string>(), "fill");
  p.precision = parse_precision(j.at("precision").get<std::string>(), "precision");
  return p;
}

json timing_json(const TimingStats& t) {
  return {{"median_ms", t.median_ms}, {"p10_ms", t.p10_ms},         {"p90_ms", t.p90_ms},
          {"runs", t.runs},           {"l2_flushed", t.l2_flushed}, {"samples_ms", t.samples_ms}};
}

TimingStats parse_timing(const json& j) {
  TimingStats t;
  t.median_ms = j.at("median_ms").get<double>();
  t.p10_ms = j.at("p10_ms").get<double>();
  t.p90_ms = j.at("p90_ms").get<double>();
  t.runs = j.at("runs").get<int>();
  t.l2_flushed = j.at("l2_flushed").get<bool>();
  t.samples_ms = j.at("samples_ms").get<std::vector<double>>();
  return t;
}

constexpr std::string_view kPhaseNames[] = {"screen", "retime"};
constexpr int kMaxRuns = 100000;

MeasurePhase parse_phase(const std::string& name) {
  for (MeasurePhase phase : {MeasurePhase::Screen, MeasurePhase::Retime})
    if (kPhaseNames[static_cast<int>(phase)] == name) return phase;
  throw Error(fmt::format("tuning worker protocol: unknown measure phase '{:.40}' (screen or retime)", name));
}

int parse_runs(const json& m, const char* field, int min) {
  const int runs = m.at(field).get<int>();
  if (runs < min || runs > kMaxRuns)
    throw Error(fmt::format("tuning worker protocol: {}={} is outside {}..{}", field, runs, min, kMaxRuns));
  return runs;
}

}  // namespace

json setup_message(const WorkerSetup& s) {
  return {{"type", "setup"},
          {"problem", problem_json(s.problem)},
          {"seed", s.settings.seed},
          {"warmup_runs", s.settings.warmup_runs},
          {"timing_runs", s.settings.timing_runs},
          {"device", s.device},
          {"template_dir", s.template_dir},
          {"cache_dir", s.cache_dir}};
}

WorkerSetup parse_setup(const json& m) {
  expect_type(m, "setup");
  WorkerSetup s;
  s.problem = parse_problem(m.at("problem"));
  s.settings.seed = m.at("seed").get<uint64_t>();
  s.settings.warmup_runs = m.at("warmup_runs").get<int>();
  s.settings.timing_runs = m.at("timing_runs").get<int>();
  s.device = m.at("device").get<int>();
  s.template_dir = m.at("template_dir").get<std::string>();
  s.cache_dir = m.at("cache_dir").get<std::string>();
  return s;
}

json measure_message(const MeasureRequest& r) {
  const CompiledKernel& k = *r.kernel;
  return {{"type", "measure"},
          {"index", r.index},
          {"phase", kPhaseNames[static_cast<int>(r.phase)]},
          {"warmup_runs", r.warmup_runs},
          {"runs", r.runs},
          {"idle_ratio", r.idle_ratio},
          {"config", r.config->name()},  // KernelConfig::parse reads it back
          {"kernel_name", k.kernel_name},
          {"lowered_name", k.lowered_name},
          {"cubin", json::binary_t(std::vector<uint8_t>(k.cubin.begin(), k.cubin.end()))}};
}

OwnedRequest parse_measure(const json& m) {
  expect_type(m, "measure");
  OwnedRequest r;
  r.index = m.at("index").get<size_t>();
  r.phase = parse_phase(m.at("phase").get<std::string>());
  r.warmup_runs = parse_runs(m, "warmup_runs", 0);
  r.runs = parse_runs(m, "runs", 1);
  r.idle_ratio = m.at("idle_ratio").get<double>();
  if (!std::isfinite(r.idle_ratio) || r.idle_ratio < 0 || r.idle_ratio > 100)
    throw Error(fmt::format("tuning worker protocol: idle_ratio={} is outside 0..100", r.idle_ratio));
  r.config = KernelConfig::parse(m.at("config").get<std::string>());
  r.kernel.kernel_name = m.at("kernel_name").get<std::string>();
  r.kernel.lowered_name = m.at("lowered_name").get<std::string>();
  const auto& cubin = m.at("cubin").get_binary();
  r.kernel.cubin.assign(cubin.begin(), cubin.end());
  return r;
}

json ready_message(const TuningInputs& in) {
  return {{"type", "ready"},
          {"cublas_rel_error", in.cublas_rel_error},
          {"tolerance", in.tolerance},
          {"cublas_timing", timing_json(in.cublas_timing)}};
}

TuningInputs parse_ready(const json& m) {
  expect_type(m, "ready");
  TuningInputs in;
  in.cublas_rel_error = m.at("cublas_rel_error").get<double>();
  in.tolerance = m.at("tolerance").get<double>();
  in.cublas_timing = parse_timing(m.at("cublas_timing"));
  return in;
}

json verdict_message(const BenchVerdict& v, bool context_lost) {
  return {{"type", "verdict"},
          {"outcome", to_string(v.outcome)},
          {"timing", timing_json(v.timing)},
          {"rel_error", v.rel_error},
          {"detail", v.detail},
          {"context_lost", context_lost}};
}

BenchVerdict parse_verdict(const json& m, bool& context_lost) {
  expect_type(m, "verdict");
  BenchVerdict v;
  v.outcome = parse_candidate_outcome(m.at("outcome").get<std::string>());
  v.timing = parse_timing(m.at("timing"));
  v.rel_error = m.at("rel_error").get<double>();
  v.detail = m.at("detail").get<std::string>();
  context_lost = m.at("context_lost").get<bool>();
  return v;
}

json failure_message(const std::exception& e) {
  json m = {{"type", "failure"}, {"message", e.what()}, {"kind", "error"}, {"code", 0}};
  if (dynamic_cast<const InvalidArgument*>(&e)) m["kind"] = "invalid_argument";
  if (dynamic_cast<const NotSupported*>(&e)) m["kind"] = "not_supported";
  if (dynamic_cast<const CompileError*>(&e)) m["kind"] = "compile";
  if (dynamic_cast<const DatabaseError*>(&e)) m["kind"] = "database";
  if (const auto* cuda_error = dynamic_cast<const CudaError*>(&e)) m["kind"] = "cuda", m["code"] = cuda_error->code();
  return m;
}

void rethrow_failure(const json& m, std::string_view where) {
  const std::string kind = m.value("kind", "error");
  const std::string message = fmt::format("{}: {}", where, m.value("message", "(no message)"));
  if (kind == "invalid_argument") throw InvalidArgument(message);
  if (kind == "not_supported") throw NotSupported(message);
  if (kind == "compile") throw CompileError(message, "");
  if (kind == "database") throw DatabaseError(message);
  if (kind == "cuda") throw CudaError(message, m.value("code", 0));
  throw Error(message);
}

void expect_type(const json& m, std::string_view expected) {
  const auto it = m.find("type");
  if (!m.is_object() || it == m.end() || !it->is_string() || *it != expected)
    throw Error(fmt::format("tuning worker protocol: expected a '{}' message, got {:.200}", expected, m.dump()));
}

std::vector<uint8_t> encode_frame(const json& message) {
  const std::vector<uint8_t> body = json::to_cbor(message);
  if (body.size() > kMaxFrameBytes)
    throw Error(fmt::format("tuning worker protocol: a {} B message exceeds the {} B frame limit", body.size(),
                            kMaxFrameBytes));
  std::vector<uint8_t> frame(4 + body.size());
  const auto n = static_cast<uint32_t>(body.size());
  for (int i = 0; i < 4; ++i) frame[i] = static_cast<uint8_t>(n >> (8 * i));
  std::memcpy(frame.data() + 4, body.data(), body.size());
  return frame;
}

void FrameDecoder::feed(const uint8_t* data, size_t size) { buffer_.insert(buffer_.end(), data, data + size); }

std::optional<json> FrameDecoder::next() {
  if (buffer_.size() < 4) return std::nullopt;
  uint32_t n = 0;
  for (int i = 0; i < 4; ++i) n |= static_cast<uint32_t>(buffer_[i]) << (8 * i);
  if (n > kMaxFrameBytes)
    throw Error(fmt::format("tuning worker protocol: a frame announces {} B, more than the {} B limit", n,
                            kMaxFrameBytes));
  if (buffer_.size() < 4 + static_cast<size_t>(n)) return std::nullopt;
  json message;
  try {
    message = json::from_cbor(buffer_.begin() + 4, buffer_.begin() + 4 + n);
  } catch (const json::exception& e) {
    throw Error(fmt::format("tuning worker protocol: an undecodable {} B frame: {}", n, e.what()));
  }
  buffer_.erase(buffer_.begin(), buffer_.begin() + 4 + n);
  return message;
}

void send_frame(int fd, const json& message) {
  const std::vector<uint8_t> frame = encode_frame(message);
  size_t sent = 0;
  while (sent < frame.size()) {
    const ssize_t n = ::send(fd, frame.data() + sent, frame.size() - sent, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw Error(fmt::format("tuning worker protocol: send(fd {}) failed: {}", fd, std::strerror(errno)));
    sent += static_cast<size_t>(n);
  }
}

std::optional<json> receive_frame(int fd, FrameDecoder& decoder) {
  uint8_t chunk[65536];
  for (;;) {
    if (auto message = decoder.next()) return message;
    const ssize_t n = ::read(fd, chunk, sizeof chunk);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw Error(fmt::format("tuning worker protocol: read(fd {}) failed: {}", fd, std::strerror(errno)));
    if (n == 0) return std::nullopt;
    decoder.feed(chunk, static_cast<size_t>(n));
  }
}

}  // namespace jitgemm::worker
