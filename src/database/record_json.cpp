// The nlohmann JSON forms of a record's parts and the schema-3 record reader (see
// record_json.hpp).
#include "database/record_json.hpp"

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <utility>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "database/config_fields.hpp"
#include "database/json_reader.hpp"
#include "database/printable_text.hpp"
#include "database/record_compaction.hpp"
#include "jitgemm/error.hpp"

namespace jitgemm {

using json_reader::read_int;
using json_reader::read_nonnegative;
using json_reader::read_positive;
using nlohmann::json;

namespace {

constexpr int64_t kAnyInt64Min = std::numeric_limits<int64_t>::min();
constexpr int64_t kAnyInt64Max = std::numeric_limits<int64_t>::max();

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
    case ConfigField::Kind::Name: return param_index(f, json_reader::read_string(params, f.name));
    case ConfigField::Kind::Integer: break;
  }
  return checked_param_value(f, read_int(params, f.name, kAnyInt64Min, kAnyInt64Max));
}

// The family's parameters: exactly its fields (KernelFamilyRules::fields), those with an
// `absent` value optional.
void read_params(const json& params, KernelConfig& c) {
  const std::span<const ConfigField> fields = rules_of(c).fields();
  std::vector<std::string_view> required, optional;
  for (const ConfigField& f : fields) (f.absent == ConfigField::kRequired ? required : optional).push_back(f.name);
  json_reader::expect_fields(params, required, optional);
  for (const ConfigField& f : fields) f.set(c, params.contains(std::string(f.name)) ? read_field(params, f) : f.absent);
}

// A candidate's error: a number >= 0, or null for a non-finite one (a kernel that wrote
// NaN or Inf), read back as +infinity.
double read_candidate_error(const json& j) {
  if (json_reader::member(j, "rel_error").is_null()) return std::numeric_limits<double>::infinity();
  return read_nonnegative(j, "rel_error");
}

ProblemKey read_problem(const json& j) {
  ProblemKey key = json_reader::read_parsed(j, "problem", [](std::string_view s) { return ProblemKey::parse(s); });
  if (key.m < 1 || key.n < 1 || key.k < 1)
    throw FieldError("problem", fmt::format("expected sizes >= 1, got {}x{}x{}", key.m, key.n, key.k));
  return key;
}

}  // namespace

// Schema 2: the tile every family has, and the family's own parameters under "params" (fields
// as KernelFamilyRules::fields names them; enums by name, flags as bools). Schema 1's flat
// object is converted by database/schema_migration.cpp before this reads it.
void to_json(json& j, const KernelConfig& c) {
  json params = json::object();
  for (const ConfigField& f : rules_of(c).fields())
    if (!f.left_out(f.get(c))) params[std::string(f.name)] = field_value(f, f.get(c));
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
  for (const TileField& f : tile_fields())
    c.*f.member = checked_tile_value(f.name, read_int(j, f.name, kAnyInt64Min, kAnyInt64Max), family);
  const json& params = json_reader::member(j, "params");
  try {
    read_params(params, c);
  } catch (const FieldError& e) {
    throw e.nested_in("params");
  }
  check_config_fields_agree(c);
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

void check_timing(const Timing& t) {
  if (t.p10_ms > t.median_ms)
    throw FieldError("p10_ms", fmt::format("expected <= median_ms ({}), got {}", t.median_ms, t.p10_ms));
  if (t.p90_ms < t.median_ms)
    throw FieldError("p90_ms", fmt::format("expected >= median_ms ({}), got {}", t.median_ms, t.p90_ms));
}

void check_accuracy(const Accuracy& a) {
  if (a.rel_error > a.tolerance)
    throw FieldError("rel_error", fmt::format("expected <= tolerance ({}), got {}", a.tolerance, a.rel_error));
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
  check_timing(t);
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
  check_accuracy(a);
  a.cublas_rel_error = read_nonnegative(j, "cublas_rel_error");
}

void from_json(const json& j, LegacyRecord& out) {
  // "checksum": the database file's, read and verified by legacy_database.cpp (record_checksum.hpp).
  json_reader::expect_fields(j,
                             {"problem", "device", "environment", "config", "timing", "tflops", "accuracy",
                              "candidate_count", "candidates", "tuned_at"},
                             {"checksum"});
  TuningRecord& r = out.record;
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
  out.candidates = json_reader::read_array<CandidateResult>(j, "candidates");
  r.candidate_count = static_cast<int>(read_int(j, "candidate_count", 1, 1000000));
  if (static_cast<size_t>(r.candidate_count) < out.candidates.size())
    throw FieldError("candidate_count", fmt::format("expected >= the {} candidates listed, got {}",
                                                    out.candidates.size(), r.candidate_count));
  r.tuned_at = json_reader::read_string(j, "tuned_at");
  if (!is_utc_timestamp(r.tuned_at))
    throw FieldError("tuned_at", fmt::format("expected YYYY-MM-DDTHH:MM:SSZ, got \"{}\"", printable(r.tuned_at)));
  r.outcomes = count_outcomes(out.candidates, r.candidate_count);
  r.top = top_candidates(out.candidates, r.config, r.accuracy.tolerance);
}

}  // namespace jitgemm
