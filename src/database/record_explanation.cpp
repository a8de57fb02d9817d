// explain_records: each record against one serving decision (record_explanation.hpp).
#include "database/record_explanation.hpp"

#include <fmt/format.h>

#include "database/shape_distance.hpp"

namespace jitgemm {
namespace {

// Why `record` is not of `problem`'s device and kind; empty when it is.
std::vector<std::string> kind_mismatches(const TuningRecord& record, const DeviceKey& device,
                                         const ProblemKey& problem) {
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

RecordExplanation explain_one(const TuningRecord& record, const DeviceKey& device, const ProblemKey& key) {
  using Match = RecordExplanation::Match;
  RecordExplanation e;
  e.record = &record;
  e.why_not = kind_mismatches(record, device, key);
  if (is_sibling(record.device, device) && record.problem == key) {  // serves when this device has no exact
    e.match = Match::Sibling;
    e.why_not = {fmt::format("another device ({}), of the same sm and SM count", record.device.name)};
    return e;
  }
  if (!e.why_not.empty()) return e;
  e.distance = size_distance(record.problem, key);
  e.match = record.problem == key ? Match::Exact : within_factor_of_two(record.problem, key) ? Match::Nearest
                                                                                              : Match::TooFar;
  for (const std::string& dim : dimensions_beyond_factor_of_two(record.problem, key))
    e.why_not.push_back(dim + " beyond a factor of two");
  return e;
}

}  // namespace

std::string_view to_string(RecordExplanation::Match match) noexcept {
  switch (match) {
    case RecordExplanation::Match::Exact: return "exact";
    case RecordExplanation::Match::Sibling: return "sibling";
    case RecordExplanation::Match::Nearest: return "nearest";
    case RecordExplanation::Match::TooFar: return "too far";
    case RecordExplanation::Match::No: return "no";
  }
  return "?";
}

std::vector<RecordExplanation> explain_records(const TuningDatabase& database, const DeviceKey& device,
                                               const ProblemKey& key, const Environments& environments,
                                               const ServingDecision& decision) {
  std::vector<RecordExplanation> out;
  out.reserve(database.size());
  for (const TuningRecord& record : database.records()) {
    RecordExplanation e = explain_one(record, device, key);
    e.served = &record == decision.record;
    e.staleness = staleness(record, environments);
    out.push_back(std::move(e));
  }
  return out;
}

}  // namespace jitgemm
