// serving_policy.hpp — the one rule that decides which kernel config serves a problem.
// Runtime::gemm (through launch/memoized_selector.hpp), jitgemm-db explain and the tests all
// call lookup(); nothing else decides.
//
//   1. exact:   the record for this device (name and sm) and problem key, its config as tuned
//   2. sibling: else the record of a sibling device (device_key.hpp is_sibling: another name,
//               the same sm and SM count) for exactly this problem key, its config as tuned
//   3. nearest: the nearest record of the same kind (precision, transposes, structure, fill)
//               on this device (TuningDatabase::match), when it is within a factor of two of
//               the problem in each of M, N and K (within_factor_of_two); its config adapted
//               to the problem by adapt_record_config (codegen/served_config.hpp)
//   4. default: untuned_config(key) (codegen/candidate_space.hpp), when there is no record of
//               this kind, the nearest is farther than the bound, or its config cannot be
//               adapted
// A served record whose environment differs from this machine's (staleness) is still served,
// and the decision lists the differing fields; re-tune with jitgemm-tune to refresh it.
//
//   ServingDecision d = lookup(database, device, key, environments);
//   run(d.config);  log(d.explanation);  if (d.stale()) ++stale_count;
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "database/environments.hpp"
#include "database/tuning_database.hpp"

namespace jitgemm {

enum class ServingRule { Exact, Sibling, Nearest, Default };

std::string_view to_string(ServingRule rule) noexcept;  // "exact", "sibling", "nearest", "default"

struct ServingDecision {
  ServingRule rule = ServingRule::Default;
  KernelConfig config;                   // the config to run
  const TuningRecord* record = nullptr;  // the record served (null for Default); valid until
                                         // the database changes
  std::vector<StaleField> staleness;     // staleness(*record, environments); empty for Default
  std::string explanation;               // one line, starting with to_string(rule) and ": "

  bool stale() const noexcept { return !staleness.empty(); }
};

// The decision's staleness as jitgemm-db explain and Runtime::explain print it: the stale fields
// (to_string), "no", or "- (no record served)" under the Default rule.
std::string staleness_text(const ServingDecision& d);

ServingDecision lookup(const TuningDatabase& database, const DeviceKey& device, const ProblemKey& key,
                       const Environments& environments);

}  // namespace jitgemm
