// Reading schema-4 records from JSON text (see record_reader.hpp).
#include "database/record_reader.hpp"

#include <array>
#include <climits>
#include <cmath>
#include <limits>
#include <optional>
#include <vector>

#include <fmt/format.h>

#include "codegen/kernel_family.hpp"
#include "database/config_fields.hpp"
#include "database/printable_text.hpp"
#include "database/record_json.hpp"
#include "jitgemm/error.hpp"

namespace jitgemm {
namespace {

double positive(JsonCursor& in) {
  const double v = in.number();
  if (!(v > 0) || !std::isfinite(v)) throw FieldError("", fmt::format("expected a number > 0, got {}", v));
  return v;
}

double nonnegative(JsonCursor& in) {
  const double v = in.number();
  if (!(v >= 0) || !std::isfinite(v)) throw FieldError("", fmt::format("expected a number >= 0, got {}", v));
  return v;
}

int bounded(JsonCursor& in, int lo, int hi) { return static_cast<int>(in.integer(lo, hi)); }

// A string member turned into a value by `parse`; its jitgemm::Error becomes the FieldError.
template <class Parse>
auto parsed(JsonCursor& in, Parse parse) {
  const std::string_view text = in.string();
  try {
    return parse(text);
  } catch (const Error& e) {
    throw FieldError("", printable(e.what()));
  }
}

ProblemKey read_problem(JsonCursor& in) {
  const std::string_view text = in.string();
  if (text.empty()) throw FieldError("", "expected a non-empty string");
  ProblemKey key;
  try {
    key = ProblemKey::parse(text);
  } catch (const Error& e) {
    throw FieldError("", printable(e.what()));
  }
  if (key.m < 1 || key.n < 1 || key.k < 1)
    throw FieldError("", fmt::format("expected sizes >= 1, got {}x{}x{}", key.m, key.n, key.k));
  return key;
}

constexpr std::string_view kDeviceFields[] = {"name", "sm", "sm_count"};

DeviceKey read_device(JsonCursor& in) {
  DeviceKey d;
  read_members(in, kDeviceFields, 0, [&](size_t i) {
    switch (i) {
      case 0: d.name = read_nonempty_string(in); break;
      case 1: d.sm = bounded(in, 10, 999); break;
      default: d.sm_count = bounded(in, 1, 100000); break;
    }
  });
  return d;
}

constexpr std::string_view kEnvironmentFields[] = {"driver_version", "nvrtc_version", "template_hash",
                                                   "jitgemm_version"};

EnvironmentKey read_environment(JsonCursor& in) {
  EnvironmentKey e;
  read_members(in, kEnvironmentFields, 0, [&](size_t i) {
    switch (i) {
      case 0: e.driver_version = bounded(in, 1, INT_MAX); break;
      case 1: e.nvrtc_version = bounded(in, 1, INT_MAX); break;
      case 2: e.template_hash = read_nonempty_string(in); break;
      default: e.jitgemm_version = read_nonempty_string(in); break;
    }
  });
  return e;
}

constexpr std::string_view kTimingFields[] = {"median_ms", "p10_ms", "p90_ms", "runs", "l2_flushed", "cublas_median_ms"};

Timing read_timing(JsonCursor& in) {
  Timing t;
  read_members(in, kTimingFields, 0, [&](size_t i) {
    switch (i) {
      case 0: t.median_ms = positive(in); break;
      case 1: t.p10_ms = positive(in); break;
      case 2: t.p90_ms = positive(in); break;
      case 3: t.runs = bounded(in, 1, 1000000); break;
      case 4: t.l2_flushed = in.boolean(); break;
      default: t.cublas_median_ms = positive(in); break;
    }
  });
  check_timing(t);
  return t;
}

constexpr std::string_view kAccuracyFields[] = {"rel_error", "tolerance", "cublas_rel_error"};

Accuracy read_accuracy(JsonCursor& in) {
  Accuracy a;
  read_members(in, kAccuracyFields, 0, [&](size_t i) {
    switch (i) {
      case 0: a.rel_error = nonnegative(in); break;
      case 1: a.tolerance = positive(in); break;
      default: a.cublas_rel_error = nonnegative(in); break;
    }
  });
  check_accuracy(a);
  return a;
}

constexpr std::string_view kTopFields[] = {"config", "median_ms", "rel_error", "registers", "spill_bytes"};

RankedCandidate read_ranked(JsonCursor& in, ConfigNameCache& names) {
  RankedCandidate c;
  read_members(in, kTopFields, 0, [&](size_t i) {
    switch (i) {
      case 0: c.config = names(in.string()); break;
      case 1: c.median_ms = positive(in); break;
      case 2: c.rel_error = nonnegative(in); break;
      case 3: c.registers = bounded(in, -1, 255); break;
      default: c.spill_bytes = bounded(in, 0, 1 << 30); break;
    }
  });
  return c;
}

// "top": sorted fastest first, at most kTopCandidates.
std::vector<RankedCandidate> read_top(JsonCursor& in, std::array<size_t, kTopCandidates>& bytes,
                                      ConfigNameCache& names) {
  std::vector<RankedCandidate> top;
  read_elements(in, [&](size_t i) {
    if (i >= static_cast<size_t>(kTopCandidates))
      throw FieldError("", fmt::format("more than {} candidates (a record keeps the {} fastest; the history file "
                                       "keeps every one)",
                                       kTopCandidates, kTopCandidates));
    bytes[i] = in.byte();
    top.push_back(read_ranked(in, names));
    if (i > 0 && top[i].median_ms < top[i - 1].median_ms)
      throw FieldError("median_ms", fmt::format("expected >= the median_ms of top[{}] ({}): the list is sorted "
                                                "fastest first, got {}",
                                                i - 1, top[i - 1].median_ms, top[i].median_ms));
  });
  return top;
}

OutcomeCounts read_outcomes(JsonCursor& in) {
  OutcomeCounts counts;
  bool unrecorded_seen = false;
  in.begin_object();
  std::string_view key;
  while (in.next_member(key)) {
    const size_t key_byte = in.key_byte();
    const auto duplicate = [&] {
      return FieldError("", fmt::format("duplicate key \"{}\" in one object (the file is damaged)", printable(key)))
          .at_byte(key_byte);
    };
    if (key == "unrecorded") {
      if (unrecorded_seen) throw duplicate();
      unrecorded_seen = true;
      try {
        counts.unrecorded = bounded(in, 1, 1000000);
      } catch (const FieldError& e) {
        throw e.nested_in("unrecorded");
      }
      continue;
    }
    CandidateOutcome outcome{};
    try {
      outcome = parse_candidate_outcome(key);
    } catch (const Error& e) {
      throw FieldError(printable(key), printable(e.what()) + " (or \"unrecorded\")").at_byte(key_byte);
    }
    if (counts.by_outcome.count(outcome) != 0) throw duplicate();
    const std::string name(to_string(outcome));
    try {
      counts.by_outcome[outcome] = bounded(in, 1, 1000000);
    } catch (const FieldError& e) {
      throw e.nested_in(name);
    }
  }
  return counts;
}

// In the order record_text.cpp writes them.
constexpr std::string_view kRecordFields[] = {"problem",  "device",          "config",   "timing",
                                              "tflops",   "accuracy",        "environment", "tuned_at",
                                              "checksum", "candidate_count", "outcomes", "top",
                                              "tune_s"};
constexpr uint64_t kChecksumBit = uint64_t{1} << 8;
constexpr uint64_t kTuneSecondsBit = uint64_t{1} << 12;  // optional: records before it have none

// The checks between a record's members, once all are read.
void check_record(const TuningRecord& r, size_t outcomes_byte, size_t top_byte,
                  const std::array<size_t, kTopCandidates>& top_bytes) {
  if (r.outcomes.total() != r.candidate_count)
    throw FieldError("outcomes", fmt::format("the counts add up to {}, expected candidate_count ({})",
                                             r.outcomes.total(), r.candidate_count))
        .at_byte(outcomes_byte);
  const int ok = r.outcomes.count(CandidateOutcome::Ok);
  if (static_cast<int>(r.top.size()) > ok)
    throw FieldError("top", fmt::format("lists {} candidates, more than the {} whose outcome is ok", r.top.size(), ok))
        .at_byte(top_byte);
  for (size_t i = 0; i < r.top.size(); ++i)
    if (r.top[i].rel_error > r.accuracy.tolerance)
      throw FieldError(fmt::format("top[{}].rel_error", i),
                       fmt::format("expected <= accuracy.tolerance ({}), got {}", r.accuracy.tolerance,
                                   r.top[i].rel_error))
          .at_byte(top_bytes[i]);
}

}  // namespace

std::string read_nonempty_string(JsonCursor& in) {
  const std::string_view text = in.string();
  if (text.empty()) throw FieldError("", "expected a non-empty string");
  return std::string(text);
}

std::string read_timestamp(JsonCursor& in) {
  std::string text(in.string());
  if (!is_utc_timestamp(text))
    throw FieldError("", fmt::format("expected YYYY-MM-DDTHH:MM:SSZ, got \"{}\"", printable(text)));
  return text;
}

CandidateResult read_candidate(JsonCursor& in, ConfigNameCache& names) {
  static constexpr std::string_view kFields[] = {"config", "outcome", "median_ms", "rel_error",
                                                 "registers", "spill_bytes", "detail"};
  CandidateResult c;
  std::optional<double> median;
  size_t median_byte = 0;
  read_members(in, kFields, 0, [&](size_t i) {
    switch (i) {
      case 0: c.config = names(in.string()); break;
      case 1: c.outcome = parsed(in, [](std::string_view s) { return parse_candidate_outcome(s); }); break;
      case 2: median_byte = in.byte(), median = nonnegative(in); break;
      case 3: c.rel_error = in.null() ? std::numeric_limits<double>::infinity() : nonnegative(in); break;
      case 4: c.registers = bounded(in, -1, 255); break;
      case 5: c.spill_bytes = bounded(in, 0, 1 << 30); break;
      default: c.detail = std::string(in.string()); break;
    }
  });
  c.median_ms = *median;
  if (c.outcome == CandidateOutcome::Ok && !(c.median_ms > 0))
    throw FieldError("median_ms", fmt::format("expected a number > 0, got {}", c.median_ms)).at_byte(median_byte);
  return c;
}

TuningRecord read_record(JsonCursor& in, std::string* checksum, ConfigNameCache& names) {
  TuningRecord r;
  size_t outcomes_byte = 0, top_byte = 0;
  std::array<size_t, kTopCandidates> top_bytes{};
  const size_t record_byte = in.byte();
  read_members(in, kRecordFields, (checksum == nullptr ? kChecksumBit : 0) | kTuneSecondsBit, [&](size_t i) {
    switch (i) {
      case 0: r.problem = read_problem(in); break;
      case 1: r.device = read_device(in); break;
      case 2:
        r.config = read_config_object(in);
        // The winner is served as it is: one its family cannot build is damage, not a record.
        if (std::string why = rules_of(r.config).invalid_reason(r.config, StaticLimits{}); !why.empty())
          throw FieldError("", fmt::format("{} cannot be built: {}", r.config.name(), why));
        break;
      case 3: r.timing = read_timing(in); break;
      case 4: r.tflops = positive(in); break;
      case 5: r.accuracy = read_accuracy(in); break;
      case 6: r.environment = read_environment(in); break;
      case 7: r.tuned_at = read_timestamp(in); break;
      case 8:
        if (checksum == nullptr) throw FieldError("", "unknown field");
        *checksum = in.string();
        break;
      case 9: r.candidate_count = bounded(in, 1, 1000000); break;
      case 10: outcomes_byte = in.byte(), r.outcomes = read_outcomes(in); break;
      case 11: top_byte = in.byte(), r.top = read_top(in, top_bytes, names); break;
      default: r.tune_s = positive(in); break;
    }
  });
  try {
    check_record(r, outcomes_byte, top_byte, top_bytes);
  } catch (const FieldError& e) {
    throw e.at_byte(record_byte);
  }
  return r;
}

TuningRecord read_record_text(std::string_view text) {
  JsonCursor in(text);
  ConfigNameCache names;
  TuningRecord r = read_record(in, nullptr, names);
  in.expect_end();
  return r;
}

}  // namespace jitgemm
