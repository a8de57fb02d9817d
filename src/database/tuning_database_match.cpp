// TuningDatabase::match: the exact record of a (device, problem), else the nearest of the
// same kind.
#include <cmath>

#include "database/shape_distance.hpp"
#include "database/tuning_database.hpp"

namespace jitgemm {
namespace {

// How many of the ld classes and vector widths agree (0..6): the nearest-record tie-break.
int layout_agreement(const ProblemKey& a, const ProblemKey& b) {
  return (a.ld_a == b.ld_a) + (a.ld_b == b.ld_b) + (a.ld_c == b.ld_c) + (a.vec_a == b.vec_a) +
         (a.vec_b == b.vec_b) + (a.vec_c == b.vec_c);
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

}  // namespace

RecordMatch TuningDatabase::match(const DeviceKey& device, const ProblemKey& problem) const {
  RecordMatch result;
  for (const TuningRecord& record : records_) {
    if (record.device.name != device.name || record.device.sm != device.sm) continue;
    ++result.device_records;
    if (result.rule == RecordMatch::Rule::Exact) continue;
    if (record.problem == problem) {
      result.record = &record;
      result.rule = RecordMatch::Rule::Exact;
    } else if (record.problem.same_kind(problem) &&
               (result.record == nullptr || nearer(record, *result.record, problem))) {
      result.record = &record;
      result.rule = RecordMatch::Rule::Nearest;
    }
  }
  if (result.rule != RecordMatch::Rule::Exact)
    if (const TuningRecord* sibling = sibling_record(device, problem); sibling != nullptr) {
      result.record = sibling;
      result.rule = RecordMatch::Rule::Sibling;
    }
  if (result.rule == RecordMatch::Rule::Nearest) result.distance = size_distance(result.record->problem, problem);
  return result;
}

const TuningRecord* TuningDatabase::sibling_record(const DeviceKey& device, const ProblemKey& problem) const {
  for (const TuningRecord& record : records_)
    if (is_sibling(record.device, device) && record.problem == problem) return &record;
  return nullptr;
}

}  // namespace jitgemm
