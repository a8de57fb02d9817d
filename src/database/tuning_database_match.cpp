// TuningDatabase::lookup and ::explain: which record serves a (device, problem), and why
// every other record does not.
#include <cmath>
#include <tuple>

#include <fmt/format.h>

#include "database/tuning_database.hpp"

namespace jitgemm {
namespace {

double log2_ratio(int64_t a, int64_t b) {
  return std::fabs(std::log2(static_cast<double>(a)) - std::log2(static_cast<double>(b)));
}

// |log2 m ratio| + |log2 n ratio| + |log2 k ratio|.
double size_distance(const ProblemKey& a, const ProblemKey& b) {
  return log2_ratio(a.m, b.m) + log2_ratio(a.n, b.n) + log2_ratio(a.k, b.k);
}

// How many of the ld classes and vector widths agree (0..6): the nearest-record tie-break.
int layout_agreement(const ProblemKey& a, const ProblemKey& b) {
  return (a.ld_a == b.ld_a) + (a.ld_b == b.ld_b) + (a.ld_c == b.ld_c) + (a.vec_a == b.vec_a) +
         (a.vec_b == b.vec_b) + (a.vec_c == b.vec_c);
}

// Why `record` cannot serve `problem` on `device`; empty when it can (exact or nearest).
std::vector<std::string> mismatches(const TuningRecord& record, const DeviceKey& device, const ProblemKey& problem) {
  std::vector<std::string> out;
  const ProblemKey& p = record.problem;
  if (record.device.name != device.name)
    out.push_back(fmt::format("device name differs ({} vs {})", record.device.name, device.name));
  if (record.device.sm != device.sm) out.push_back(fmt::format("sm differs ({} vs {})", record.device.sm, device.sm));
  if (p.precision != problem.precision)
    out.push_back(fmt::format("precision differs ({} vs {})", to_string(p.precision), to_string(problem.precision)));
  if (p.trans_a != problem.trans_a || p.trans_b != problem.trans_b)
    out.push_back(fmt::format("transposes differ ({}{} vs {}{})", to_string(p.trans_a), to_string(p.trans_b),
                              to_string(problem.trans_a), to_string(problem.trans_b)));
  if (p.structure_a != problem.structure_a || p.structure_b != problem.structure_b)
    out.push_back(fmt::format("structure differs ({}/{} vs {}/{})", to_string(p.structure_a),
                              to_string(p.structure_b), to_string(problem.structure_a),
                              to_string(problem.structure_b)));
  if (p.fill != problem.fill)
    out.push_back(fmt::format("fill differs ({} vs {})", to_string(p.fill), to_string(problem.fill)));
  return out;
}

// True when `a` is a better nearest record than `b` for `problem`.
bool nearer(const TuningRecord& a, const TuningRecord& b, const ProblemKey& problem) {
  constexpr double kTie = 1e-9;
  double da = size_distance(a.problem, problem), db = size_distance(b.problem, problem);
  if (std::fabs(da - db) > kTie) return da < db;
  int la = layout_agreement(a.problem, problem), lb = layout_agreement(b.problem, problem);
  if (la != lb) return la > lb;
  if (a.tuned_at != b.tuned_at) return a.tuned_at > b.tuned_at;
  return a.key() < b.key();
}

std::string stale_note(const TuningRecord& record, const EnvironmentKey& current) {
  std::vector<std::string> diffs = environment_differences(record.environment, current);
  return diffs.empty() ? "" : fmt::format("; stale: {}", fmt::join(diffs, ", "));
}

}  // namespace

std::string_view to_string(LookupResult::Rule rule) noexcept {
  switch (rule) {
    case LookupResult::Rule::Exact: return "exact";
    case LookupResult::Rule::Nearest: return "nearest";
    case LookupResult::Rule::None: return "none";
  }
  return "?";
}

std::string_view to_string(MatchExplanation::Match match) noexcept {
  switch (match) {
    case MatchExplanation::Match::Exact: return "exact";
    case MatchExplanation::Match::Nearest: return "nearest";
    case MatchExplanation::Match::No: return "no";
  }
  return "?";
}

LookupResult TuningDatabase::lookup(const DeviceKey& device, const ProblemKey& problem,
                                    const EnvironmentKey& current) const {
  LookupResult result;
  const TuningRecord* best = nullptr;
  int same_device = 0;
  for (const TuningRecord& record : records_) {
    if (record.device.name != device.name || record.device.sm != device.sm) continue;
    ++same_device;
    if (record.problem == problem) {
      best = &record;
      result.rule = LookupResult::Rule::Exact;
      break;
    }
    if (record.problem.same_kind(problem) && (best == nullptr || nearer(record, *best, problem))) {
      best = &record;
      result.rule = LookupResult::Rule::Nearest;
    }
  }
  if (best == nullptr) {
    result.explanation = fmt::format("none: no record of this kind for {} sm{} ({} records for this device)",
                                     device.name, device.sm, same_device);
    return result;
  }
  result.record = best;
  result.stale = best->environment != current;
  if (result.rule == LookupResult::Rule::Exact) {
    result.explanation = fmt::format("exact: {}", best->key());
  } else {
    result.distance = size_distance(best->problem, problem);
    result.explanation = fmt::format("nearest: {} (distance {:.2f}: tuned {}x{}x{}, asked {}x{}x{})", best->key(),
                                     result.distance, best->problem.m, best->problem.n, best->problem.k,
                                     problem.m, problem.n, problem.k);
  }
  result.explanation += stale_note(*best, current);
  return result;
}

std::vector<MatchExplanation> TuningDatabase::explain(const DeviceKey& device, const ProblemKey& problem,
                                                      const EnvironmentKey& current) const {
  const TuningRecord* chosen = lookup(device, problem, current).record;
  std::vector<MatchExplanation> out;
  out.reserve(records_.size());
  for (const TuningRecord& record : records_) {
    MatchExplanation e;
    e.record = &record;
    e.mismatches = mismatches(record, device, problem);
    if (e.mismatches.empty()) {
      e.match = record.problem == problem ? MatchExplanation::Match::Exact : MatchExplanation::Match::Nearest;
      e.distance = size_distance(record.problem, problem);
    }
    e.chosen = &record == chosen;
    e.stale_fields = environment_differences(record.environment, current);
    e.stale = !e.stale_fields.empty();
    out.push_back(std::move(e));
  }
  return out;
}

}  // namespace jitgemm
