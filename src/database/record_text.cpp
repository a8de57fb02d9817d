// The JSON text of a schema-4 record (see record_text.hpp).
#include "database/record_text.hpp"

#include <cmath>

#include "codegen/kernel_family.hpp"
#include "database/config_fields.hpp"
#include "database/json_text.hpp"

namespace jitgemm {
namespace {

// Where members go: a line of their own (Pretty) or one after the other (Compact).
struct Layout {
  RecordLayout kind;
  int indent;
  void member(std::string& out, bool first, std::string_view name) const {
    if (!first) out += ',';
    if (kind == RecordLayout::Pretty) {
      out += '\n';
      out.append(static_cast<size_t>(indent) + 2, ' ');
    } else if (!first) {
      out += ' ';
    }
    out += '"';
    out += name;
    out += "\": ";
  }
  void close(std::string& out, char bracket) const {
    if (kind == RecordLayout::Pretty) {
      out += '\n';
      out.append(static_cast<size_t>(indent), ' ');
    }
    out += bracket;
  }
};

// `"name": ` after a separator, for the one-line objects.
void key(std::string& out, bool first, std::string_view name) {
  if (!first) out += ", ";
  out += '"';
  out += name;
  out += "\": ";
}

void append_device(std::string& out, const DeviceKey& d) {
  out += '{';
  key(out, true, "name");
  append_json_string(out, d.name);
  key(out, false, "sm");
  append_json_integer(out, d.sm);
  key(out, false, "sm_count");
  append_json_integer(out, d.sm_count);
  out += '}';
}

void append_environment(std::string& out, const EnvironmentKey& e) {
  out += '{';
  key(out, true, "driver_version");
  append_json_integer(out, e.driver_version);
  key(out, false, "nvrtc_version");
  append_json_integer(out, e.nvrtc_version);
  key(out, false, "template_hash");
  append_json_string(out, e.template_hash);
  key(out, false, "jitgemm_version");
  append_json_string(out, e.jitgemm_version);
  out += '}';
}

void append_timing(std::string& out, const Timing& t) {
  out += '{';
  key(out, true, "median_ms");
  append_json_number(out, t.median_ms);
  key(out, false, "p10_ms");
  append_json_number(out, t.p10_ms);
  key(out, false, "p90_ms");
  append_json_number(out, t.p90_ms);
  key(out, false, "runs");
  append_json_integer(out, t.runs);
  key(out, false, "l2_flushed");
  out += t.l2_flushed ? "true" : "false";
  key(out, false, "cublas_median_ms");
  append_json_number(out, t.cublas_median_ms);
  out += '}';
}

void append_accuracy(std::string& out, const Accuracy& a) {
  out += '{';
  key(out, true, "rel_error");
  append_json_number(out, a.rel_error);
  key(out, false, "tolerance");
  append_json_number(out, a.tolerance);
  key(out, false, "cublas_rel_error");
  append_json_number(out, a.cublas_rel_error);
  out += '}';
}

void append_outcomes(std::string& out, const OutcomeCounts& counts) {
  out += '{';
  bool first = true;
  for (const auto& [outcome, n] : counts.by_outcome) {
    key(out, first, to_string(outcome));
    append_json_integer(out, n);
    first = false;
  }
  if (counts.unrecorded != 0) {
    key(out, first, "unrecorded");
    append_json_integer(out, counts.unrecorded);
  }
  out += '}';
}

void append_ranked(std::string& out, const RankedCandidate& c) {
  out += '{';
  key(out, true, "config");
  append_json_string(out, c.config.name());
  key(out, false, "median_ms");
  append_json_number(out, c.median_ms);
  key(out, false, "rel_error");
  append_json_number(out, c.rel_error);
  key(out, false, "registers");
  append_json_integer(out, c.registers);
  key(out, false, "spill_bytes");
  append_json_integer(out, c.spill_bytes);
  out += '}';
}

}  // namespace

void append_config_object(std::string& out, const KernelConfig& c) {
  out += '{';
  key(out, true, "family");
  append_json_string(out, to_string(c.family()));
  key(out, false, "precision");
  append_json_string(out, to_string(c.precision));
  for (const TileField& f : tile_fields()) {
    key(out, false, f.name);
    append_json_integer(out, c.*f.member);
  }
  key(out, false, "params");
  out += '{';
  bool first = true;
  for (const ConfigField& f : rules_of(c).fields()) {
    const int v = f.get(c);
    if (f.left_out(v)) continue;
    key(out, first, f.name);
    first = false;
    switch (f.kind) {
      case ConfigField::Kind::Boolean: out += v != 0 ? "true" : "false"; break;
      case ConfigField::Kind::Name:
        if (v >= 0 && static_cast<size_t>(v) < f.names.size())
          append_json_string(out, f.names[static_cast<size_t>(v)]);
        else
          append_json_integer(out, v);  // out of range: the reader says so
        break;
      case ConfigField::Kind::Integer: append_json_integer(out, v); break;
    }
  }
  out += "}}";
}

void append_candidate_text(std::string& out, const CandidateResult& c) {
  out += '{';
  key(out, true, "config");
  append_json_string(out, c.config.name());
  key(out, false, "outcome");
  append_json_string(out, to_string(c.outcome));
  key(out, false, "median_ms");
  append_json_number(out, c.median_ms);
  key(out, false, "rel_error");
  if (std::isfinite(c.rel_error))
    append_json_number(out, c.rel_error);
  else
    out += "null";
  key(out, false, "registers");
  append_json_integer(out, c.registers);
  key(out, false, "spill_bytes");
  append_json_integer(out, c.spill_bytes);
  key(out, false, "detail");
  append_json_string(out, c.detail);
  out += '}';
}

void append_record_text(std::string& out, const TuningRecord& r, RecordLayout kind, std::string_view checksum,
                        int indent) {
  const Layout layout{kind, indent};
  out += '{';
  layout.member(out, true, "problem");
  append_json_string(out, r.problem.canonical());
  layout.member(out, false, "device");
  append_device(out, r.device);
  layout.member(out, false, "config");
  append_config_object(out, r.config);
  layout.member(out, false, "timing");
  append_timing(out, r.timing);
  layout.member(out, false, "tflops");
  append_json_number(out, r.tflops);
  layout.member(out, false, "accuracy");
  append_accuracy(out, r.accuracy);
  layout.member(out, false, "environment");
  append_environment(out, r.environment);
  layout.member(out, false, "tuned_at");
  append_json_string(out, r.tuned_at);
  if (!checksum.empty()) {
    layout.member(out, false, "checksum");
    append_json_string(out, checksum);
  }
  layout.member(out, false, "candidate_count");
  append_json_integer(out, r.candidate_count);
  layout.member(out, false, "outcomes");
  append_outcomes(out, r.outcomes);
  layout.member(out, false, "top");
  out += '[';
  const Layout entries{kind, indent + 2};
  for (size_t i = 0; i < r.top.size(); ++i) {
    if (i != 0) out += ',';
    if (kind == RecordLayout::Pretty) {
      out += '\n';
      out.append(static_cast<size_t>(indent) + 4, ' ');
    } else if (i != 0) {
      out += ' ';
    }
    append_ranked(out, r.top[i]);
  }
  if (!r.top.empty()) entries.close(out, ']');
  else out += ']';
  if (r.tune_s != 0) {  // a bad value is written for the reader to refuse (validate_record)
    layout.member(out, false, "tune_s");
    append_json_number(out, r.tune_s);
  }
  layout.close(out, '}');
}

std::string record_text(const TuningRecord& r, RecordLayout layout, std::string_view checksum, int indent) {
  std::string out;
  out.reserve(2048);
  append_record_text(out, r, layout, checksum, indent);
  return out;
}

}  // namespace jitgemm
