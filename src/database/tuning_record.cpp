// TuningRecord and its parts: names, timestamps and checked JSON (see tuning_record.hpp).
#include "database/tuning_record.hpp"

#include <cmath>
#include <limits>
#include <ctime>
#include <utility>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "database/json_reader.hpp"
#include "jitgemm/error.hpp"

namespace jitgemm {

using json_reader::read_int;
using json_reader::read_nonnegative;
using json_reader::read_positive;
using nlohmann::json;

namespace {

// A power of two in [lo, hi].
int read_pow2(const json& j, std::string_view key, int lo, int hi) {
  int v = static_cast<int>(read_int(j, key, lo, hi));
  if ((v & (v - 1)) != 0)
    throw FieldError(std::string(key), fmt::format("expected a power of two in {}..{}, got {}", lo, hi, v));
  return v;
}

// Digits text[pos, pos + n) as a number in [lo, hi], or -1.
int digits(std::string_view text, size_t pos, size_t n, int lo, int hi) {
  int v = 0;
  for (size_t i = pos; i < pos + n; ++i) {
    if (text[i] < '0' || text[i] > '9') return -1;
    v = v * 10 + (text[i] - '0');
  }
  return v >= lo && v <= hi ? v : -1;
}

// A candidate's error: a number >= 0, or null for a non-finite one (a kernel that wrote
// NaN or Inf), read back as +infinity.
double read_candidate_error(const json& j) {
  if (json_reader::member(j, "rel_error").is_null()) return std::numeric_limits<double>::infinity();
  return read_nonnegative(j, "rel_error");
}

}  // namespace

std::string TuningRecord::key() const {
  return fmt::format("{}|sm{}|{}", device.name, device.sm, problem.canonical());
}

std::string format_utc_timestamp(std::chrono::system_clock::time_point t) {
  std::time_t seconds = std::chrono::system_clock::to_time_t(t);
  std::tm utc{};
  gmtime_r(&seconds, &utc);
  return fmt::format("{:04}-{:02}-{:02}T{:02}:{:02}:{:02}Z", utc.tm_year + 1900, utc.tm_mon + 1,
                     utc.tm_mday, utc.tm_hour, utc.tm_min, utc.tm_sec);
}

bool is_utc_timestamp(std::string_view text) noexcept {
  if (text.size() != 20 || text[4] != '-' || text[7] != '-' || text[10] != 'T' || text[13] != ':' ||
      text[16] != ':' || text[19] != 'Z')
    return false;
  return digits(text, 0, 4, 1970, 9999) >= 0 && digits(text, 5, 2, 1, 12) >= 0 &&
         digits(text, 8, 2, 1, 31) >= 0 && digits(text, 11, 2, 0, 23) >= 0 &&
         digits(text, 14, 2, 0, 59) >= 0 && digits(text, 17, 2, 0, 60) >= 0;
}

void validate_record(const TuningRecord& r) {
  TuningRecord copy;
  try {
    from_json(json(r), copy);
  } catch (const FieldError& e) {
    throw InvalidArgument(fmt::format("tuning record {}: {}", r.key(), e.what()));
  }
}

namespace {

bool wgmma_fields_at_defaults(const KernelConfig& c) {
  const KernelConfig d;
  return c.consumers == d.consumers && c.acc_block_k == d.acc_block_k && c.acc_buffers == d.acc_buffers &&
         c.sum_blocks == d.sum_blocks;
}

// An optional integer member: `fallback` when absent, else checked like read_int.
int read_optional_int(const json& j, std::string_view key, int fallback, int lo, int hi) {
  return j.contains(key) ? static_cast<int>(read_int(j, key, lo, hi)) : fallback;
}

// block_n: SIMT tiles are powers of two in 16..256; wgmma tiles are the wgmma widths.
int read_block_n(const json& j, KernelFamily family) {
  if (!is_wgmma(family)) return read_pow2(j, "block_n", 16, 256);
  const int v = static_cast<int>(read_int(j, "block_n", 64, 256));
  for (int width : {64, 96, 128, 160, 192, 256})
    if (v == width) return v;
  throw FieldError("block_n", fmt::format("expected one of 64, 96, 128, 160, 192, 256 for {}, got {}",
                                          to_string(family), v));
}

}  // namespace

// consumers, acc_block_k, acc_buffers and sum_blocks belong to the tensor-core families
// (acc_block_k to the mma.sync ones too). Records written before they existed
// (tuning_db/jitgemm_tuning.json, tests/fixtures/*.json) lack them, so SIMT configs leave them
// out while they hold their defaults (fp32 records stay as they were) and every wgmma and
// mma.sync config writes them.
void to_json(json& j, const KernelConfig& c) {
  j = json{{"family", to_string(c.family)}, {"block_m", c.block_m},   {"block_n", c.block_n},
           {"block_k", c.block_k},          {"warps_m", c.warps_m},   {"warps_n", c.warps_n},
           {"thread_m", c.thread_m},        {"thread_n", c.thread_n}, {"stages", c.stages},
           {"split_k", c.split_k},          {"raster_group", c.raster_group}};
  if (is_tensor_core(c.family) || !wgmma_fields_at_defaults(c)) {
    j["consumers"] = c.consumers;
    j["acc_block_k"] = c.acc_block_k;
    j["acc_buffers"] = c.acc_buffers;
    j["sum_blocks"] = c.sum_blocks;
  }
  // Written only when set, so records of plane-fed kernels keep their shape.
  if (c.a_in_registers != 0 || c.a_round != 1 || c.swap_ab != 0 || c.convert_b != 0) {
    j["a_in_registers"] = c.a_in_registers;
    j["a_round"] = c.a_round;
    j["swap_ab"] = c.swap_ab;
    j["convert_b"] = c.convert_b;
  }
  if (c.transform_b != 0) j["transform_b"] = c.transform_b;
  if (c.stream_k != 0) j["stream_k"] = c.stream_k;
  if (c.cluster != 1) j["cluster"] = c.cluster;
}

// The wgmma fields are optional for every family and take the KernelConfig defaults
// (consumers 2, acc_block_k 32, acc_buffers 1, sum_blocks 0) only when absent: records
// from before they existed. A present field is range-checked like any other.
void from_json(const json& j, KernelConfig& c) {
  json_reader::expect_fields(j,
                             {"family", "block_m", "block_n", "block_k", "warps_m", "warps_n", "thread_m",
                              "thread_n", "stages", "split_k", "raster_group"},
                             {"consumers", "acc_block_k", "acc_buffers", "sum_blocks", "a_in_registers", "a_round",
                              "swap_ab", "convert_b", "transform_b", "stream_k", "cluster"});
  const KernelConfig defaults;
  c.family = json_reader::read_parsed(j, "family", [](std::string_view s) { return parse_kernel_family(s); });
  c.block_m = read_pow2(j, "block_m", 16, 256);
  c.block_n = read_block_n(j, c.family);
  c.block_k = static_cast<int>(read_int(j, "block_k", 4, 64));
  if (c.block_k % 4 != 0)
    throw FieldError("block_k", fmt::format("expected a multiple of 4 in 4..64, got {}", c.block_k));
  c.warps_m = static_cast<int>(read_int(j, "warps_m", 1, 16));
  c.warps_n = static_cast<int>(read_int(j, "warps_n", 1, 16));
  if (c.warps_m * c.warps_n > 32)
    throw FieldError("warps_n", fmt::format("expected warps_m * warps_n <= 32, got {} * {}", c.warps_m, c.warps_n));
  c.thread_m = static_cast<int>(read_int(j, "thread_m", 1, 16));
  c.thread_n = static_cast<int>(read_int(j, "thread_n", 1, 16));
  c.stages = static_cast<int>(read_int(j, "stages", 1, 8));
  c.split_k = static_cast<int>(read_int(j, "split_k", 1, 256));
  c.raster_group = static_cast<int>(read_int(j, "raster_group", 1, 64));
  c.consumers = read_optional_int(j, "consumers", defaults.consumers, 1, 2);
  c.acc_block_k = read_optional_int(j, "acc_block_k", defaults.acc_block_k, 0, 4096);
  if (c.acc_block_k % 8 != 0)
    throw FieldError("acc_block_k", fmt::format("expected a multiple of 8 in 0..4096, got {}", c.acc_block_k));
  c.acc_buffers = read_optional_int(j, "acc_buffers", defaults.acc_buffers, 1, 2);
  c.sum_blocks = read_optional_int(j, "sum_blocks", defaults.sum_blocks, 0, 64);
  c.a_in_registers = read_optional_int(j, "a_in_registers", defaults.a_in_registers, 0, 1);
  c.a_round = read_optional_int(j, "a_round", defaults.a_round, 0, 1);
  c.swap_ab = read_optional_int(j, "swap_ab", defaults.swap_ab, 0, 1);
  c.convert_b = read_optional_int(j, "convert_b", defaults.convert_b, 0, 1);
  c.transform_b = read_optional_int(j, "transform_b", defaults.transform_b, 0, 1);
  c.stream_k = read_optional_int(j, "stream_k", defaults.stream_k, 0, 1);
  c.cluster = read_optional_int(j, "cluster", defaults.cluster, 1, 2);
  if (is_wgmma(c.family) && c.block_m != 64 * c.consumers)
    throw FieldError("block_m", fmt::format("expected 64 * consumers ({}) for {}, got {}", 64 * c.consumers,
                                            to_string(c.family), c.block_m));
}

void to_json(json& j, const CandidateResult& c) {
  j = json{{"config", c.config},       {"outcome", to_string(c.outcome)},
           {"median_ms", c.median_ms}, {"rel_error", std::isfinite(c.rel_error) ? json(c.rel_error) : json()},
           {"registers", c.registers}, {"spill_bytes", c.spill_bytes},
           {"detail", c.detail}};
}

void from_json(const json& j, CandidateResult& c) {
  json_reader::expect_fields(j, {"config", "outcome", "median_ms", "rel_error", "registers", "spill_bytes", "detail"});
  c.config = json_reader::read_object<KernelConfig>(j, "config");
  c.outcome = json_reader::read_parsed(j, "outcome", [](std::string_view s) { return parse_candidate_outcome(s); });
  c.median_ms = c.outcome == CandidateOutcome::Ok ? read_positive(j, "median_ms") : read_nonnegative(j, "median_ms");
  c.rel_error = read_candidate_error(j);
  c.registers = static_cast<int>(read_int(j, "registers", -1, 255));
  c.spill_bytes = static_cast<int>(read_int(j, "spill_bytes", 0, 1 << 30));
  c.detail = json_reader::read_string(j, "detail", /*allow_empty=*/true);
}

void to_json(json& j, const Timing& t) {
  j = json{{"median_ms", t.median_ms}, {"p10_ms", t.p10_ms},         {"p90_ms", t.p90_ms},
           {"runs", t.runs},           {"l2_flushed", t.l2_flushed}, {"cublas_median_ms", t.cublas_median_ms}};
}

void from_json(const json& j, Timing& t) {
  json_reader::expect_fields(j, {"median_ms", "p10_ms", "p90_ms", "runs", "l2_flushed", "cublas_median_ms"});
  t.median_ms = read_positive(j, "median_ms");
  t.p10_ms = read_positive(j, "p10_ms");
  t.p90_ms = read_positive(j, "p90_ms");
  if (t.p10_ms > t.median_ms)
    throw FieldError("p10_ms", fmt::format("expected <= median_ms ({}), got {}", t.median_ms, t.p10_ms));
  if (t.p90_ms < t.median_ms)
    throw FieldError("p90_ms", fmt::format("expected >= median_ms ({}), got {}", t.median_ms, t.p90_ms));
  t.runs = static_cast<int>(read_int(j, "runs", 1, 1000000));
  t.l2_flushed = json_reader::read_bool(j, "l2_flushed");
  t.cublas_median_ms = read_positive(j, "cublas_median_ms");
}

void to_json(json& j, const Accuracy& a) {
  j = json{{"rel_error", a.rel_error}, {"tolerance", a.tolerance}, {"cublas_rel_error", a.cublas_rel_error}};
}

void from_json(const json& j, Accuracy& a) {
  json_reader::expect_fields(j, {"rel_error", "tolerance", "cublas_rel_error"});
  a.rel_error = read_nonnegative(j, "rel_error");
  a.tolerance = read_positive(j, "tolerance");
  if (a.rel_error > a.tolerance)
    throw FieldError("rel_error", fmt::format("expected <= tolerance ({}), got {}", a.tolerance, a.rel_error));
  a.cublas_rel_error = read_nonnegative(j, "cublas_rel_error");
}

void to_json(json& j, const TuningRecord& r) {
  j = json{{"problem", r.problem.canonical()},
           {"device", r.device},
           {"environment", r.environment},
           {"config", r.config},
           {"timing", r.timing},
           {"tflops", r.tflops},
           {"accuracy", r.accuracy},
           {"candidate_count", r.candidate_count},
           {"candidates", r.candidates},
           {"tuned_at", r.tuned_at}};
}

namespace {

ProblemKey read_problem(const json& j) {
  ProblemKey key = json_reader::read_parsed(j, "problem", [](std::string_view s) { return ProblemKey::parse(s); });
  if (key.m < 1 || key.n < 1 || key.k < 1)
    throw FieldError("problem", fmt::format("expected sizes >= 1, got {}x{}x{}", key.m, key.n, key.k));
  return key;
}

}  // namespace

void from_json(const json& j, TuningRecord& r) {
  json_reader::expect_fields(j, {"problem", "device", "environment", "config", "timing", "tflops",
                                 "accuracy", "candidate_count", "candidates", "tuned_at"});
  r.problem = read_problem(j);
  r.device = json_reader::read_object<DeviceKey>(j, "device");
  r.environment = json_reader::read_object<EnvironmentKey>(j, "environment");
  r.config = json_reader::read_object<KernelConfig>(j, "config");
  r.timing = json_reader::read_object<Timing>(j, "timing");
  r.tflops = read_positive(j, "tflops");
  r.accuracy = json_reader::read_object<Accuracy>(j, "accuracy");
  r.candidates = json_reader::read_array<CandidateResult>(j, "candidates");
  r.candidate_count = static_cast<int>(read_int(j, "candidate_count", 1, 1000000));
  if (static_cast<size_t>(r.candidate_count) < r.candidates.size())
    throw FieldError("candidate_count", fmt::format("expected >= the {} candidates listed, got {}",
                                                    r.candidates.size(), r.candidate_count));
  r.tuned_at = json_reader::read_string(j, "tuned_at");
  if (!is_utc_timestamp(r.tuned_at))
    throw FieldError("tuned_at", fmt::format("expected YYYY-MM-DDTHH:MM:SSZ, got \"{}\"", r.tuned_at));
}

}  // namespace jitgemm
