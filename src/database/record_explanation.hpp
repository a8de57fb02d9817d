// record_explanation.hpp — how each record of a database relates to one serving decision:
// the table jitgemm-db explain prints under the decision.
//
//   ServingDecision d = lookup(db, device, key, environments);
//   for (const RecordExplanation& e : explain_records(db, device, key, environments, d)) ...
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "database/serving_policy.hpp"

namespace jitgemm {

struct RecordExplanation {
  // Exact: same device and key. Sibling: a sibling device's (is_sibling) record of the same key.
  // Nearest: same device and kind, within a factor of two. TooFar: same device and kind, beyond
  // it. No: another device or kind.
  enum class Match { Exact, Sibling, Nearest, TooFar, No };
  const TuningRecord* record = nullptr;
  Match match = Match::No;
  double distance = 0;                 // size_distance (not No)
  bool served = false;                 // the record the decision serves
  std::vector<std::string> why_not;    // record vs asked: "sm differs (80 vs 90)", "M 4096 vs 1000
                                       // beyond a factor of two"; empty for Exact and Nearest
  std::vector<StaleField> staleness;   // staleness(*record, environments)
};

std::string_view to_string(RecordExplanation::Match match) noexcept;  // "exact", "sibling", "nearest", "too far", "no"

// One entry per record, in records() order; `decision` is lookup(database, device, key,
// environments) and decides `served`.
std::vector<RecordExplanation> explain_records(const TuningDatabase& database, const DeviceKey& device,
                                               const ProblemKey& key, const Environments& environments,
                                               const ServingDecision& decision);

}  // namespace jitgemm
