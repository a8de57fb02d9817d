// TuningRecord and its parts: names, timestamps and checked JSON (see tuning_record.hpp).
#include "database/tuning_record.hpp"

#include <cmath>
#include <limits>
#include <ctime>
#include <utility>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include "codegen/kernel_family.hpp"
#include "database/json_reader.hpp"
#include "database/printable_text.hpp"
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

bool is_future_dated(const TuningRecord& r, std::chrono::system_clock::time_point now) {
  return r.tuned_at > format_utc_timestamp(now + kFutureDateTolerance);  // the format orders as text
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

// block_n: wgmma tiles are the wgmma widths; the other families' are powers of two in 16..256.
int read_block_n(const json& j, KernelFamily family) {
  if (family != KernelFamily::Wgmma) return read_pow2(j, "block_n", 16, 256);
  const int v = static_cast<int>(read_int(j, "block_n", 64, 256));
  for (int width : {64, 96, 128, 160, 192, 256})
    if (v == width) return v;
  throw FieldError("block_n", fmt::format("expected one of 64, 96, 128, 160, 192, 256 for {}, got {}",
                                          to_string(family), v));
}

KernelFamily parse_family(std::string_view text) {
  if (const std::optional<KernelFamily> family = family_named(text)) return *family;
  throw InvalidArgument(fmt::format("unknown family '{}' (simt, mma, wgmma)", text));
}

json field_value(const ConfigField& f, int value) {
  switch (f.kind) {
    case ConfigField::Kind::Boolean: return value != 0;
    case ConfigField::Kind::Name: return f.names[static_cast<size_t>(value)];
    case ConfigField::Kind::Integer: break;
  }
  return value;
}

int read_field(const json& params, const ConfigField& f) {
  switch (f.kind) {
    case ConfigField::Kind::Boolean: return json_reader::read_bool(params, f.name) ? 1 : 0;
    case ConfigField::Kind::Name: {
      const std::string text = json_reader::read_string(params, f.name);
      for (size_t i = 0; i < f.names.size(); ++i)
        if (f.names[i] == text) return static_cast<int>(i);
      throw FieldError(std::string(f.name),
                       fmt::format("unknown value \"{}\" (expected {})", printable(text), fmt::join(f.names, ", ")));
    }
    case ConfigField::Kind::Integer: break;
  }
  const int v = static_cast<int>(read_int(params, f.name, f.min, f.max));
  if (v % f.multiple_of != 0)
    throw FieldError(std::string(f.name),
                     fmt::format("expected a multiple of {} in {}..{}, got {}", f.multiple_of, f.min, f.max, v));
  return v;
}

// The family's parameters: exactly its fields (KernelFamilyRules::fields).
void read_params(const json& params, KernelConfig& c) {
  const std::span<const ConfigField> fields = rules_of(c).fields();
  std::vector<std::string_view> names;
  for (const ConfigField& f : fields) names.push_back(f.name);
  json_reader::expect_fields(params, names);
  for (const ConfigField& f : fields) f.set(c, read_field(params, f));
}

}  // namespace

// Schema 2: the tile every family has, and the family's own parameters under "params" (fields
// as KernelFamilyRules::fields names them; enums by name, flags as bools). Schema 1's flat
// object is converted by database/schema_migration.cpp before this reads it.
void to_json(json& j, const KernelConfig& c) {
  json params = json::object();
  for (const ConfigField& f : rules_of(c).fields()) params[std::string(f.name)] = field_value(f, f.get(c));
  j = json{{"family", to_string(c.family())}, {"precision", to_string(c.precision)},
           {"block_m", c.block_m},            {"block_n", c.block_n},
           {"block_k", c.block_k},            {"stages", c.stages},
           {"split_k", c.split_k},            {"raster_group", c.raster_group},
           {"params", std::move(params)}};
}

void from_json(const json& j, KernelConfig& c) {
  json_reader::expect_fields(
      j, {"family", "precision", "block_m", "block_n", "block_k", "stages", "split_k", "raster_group", "params"});
  const KernelFamily family = json_reader::read_parsed(j, "family", parse_family);
  const Precision precision =
      json_reader::read_parsed(j, "precision", [](std::string_view s) { return parse_precision(s); });
  if (!family_rules(family).computes(precision))
    throw FieldError("precision", fmt::format("family {} does not compute {}", to_string(family), to_string(precision)));
  c = make_config(family, precision);
  c.block_m = read_pow2(j, "block_m", 16, 256);
  c.block_n = read_block_n(j, family);
  c.block_k = static_cast<int>(read_int(j, "block_k", 4, 64));
  if (c.block_k % 4 != 0)
    throw FieldError("block_k", fmt::format("expected a multiple of 4 in 4..64, got {}", c.block_k));
  c.stages = static_cast<int>(read_int(j, "stages", 1, 8));
  c.split_k = static_cast<int>(read_int(j, "split_k", 1, 256));
  c.raster_group = static_cast<int>(read_int(j, "raster_group", 1, 64));
  const json& params = json_reader::member(j, "params");
  try {
    read_params(params, c);
  } catch (const FieldError& e) {
    throw e.nested_in("params");
  }
  if (const WgmmaParams* w = c.if_wgmma(); w != nullptr && c.block_m != 64 * w->consumers)
    throw FieldError("block_m", fmt::format("expected 64 * consumers ({}) for {}, got {}", 64 * w->consumers,
                                            to_string(family), c.block_m));
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
  // "checksum": the database file's, read and verified by tuning_database.cpp (record_checksum.hpp).
  json_reader::expect_fields(j,
                             {"problem", "device", "environment", "config", "timing", "tflops", "accuracy",
                              "candidate_count", "candidates", "tuned_at"},
                             {"checksum"});
  r.problem = read_problem(j);
  r.device = json_reader::read_object<DeviceKey>(j, "device");
  r.environment = json_reader::read_object<EnvironmentKey>(j, "environment");
  r.config = json_reader::read_object<KernelConfig>(j, "config");
  // The winner is served as it is: one its family cannot build is damage, not a record
  // (a candidate that failed is kept as it was tried).
  if (std::string why = rules_of(r.config).invalid_reason(r.config, StaticLimits{}); !why.empty())
    throw FieldError("config", fmt::format("{} cannot be built: {}", r.config.name(), why));
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
    throw FieldError("tuned_at", fmt::format("expected YYYY-MM-DDTHH:MM:SSZ, got \"{}\"", printable(r.tuned_at)));
}

}  // namespace jitgemm
