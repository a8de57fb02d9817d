// tuning_priors.hpp — the configs a budgeted tuning tries first (tune/candidate_ranking.hpp
// ranks them ahead of the performance model's order): what the database already knows about
// the problem.
//   1. the winner of a sibling device's record of exactly this problem
//      (TuningDatabase::sibling_record, which serving uses too: an H200's for an H100 SXM), the
//      best guess there is before any timing;
//   2. the winners of the nearest records of the problem's kind on this device, nearest first
//      (shape_distance.hpp), ties by key;
// at most kMaxPriors in all, no config twice. jitgemm-tune and Runtime::tune share it.
// tuning_incumbent: the config of this device's own record of exactly the problem, which a
// re-tune keeps unless a finalist beats it by TuneSettings::incumbent_margin (jitgemm-tune).
//
//   settings.priors = tuning_priors(db, device_key(info), make_problem_key(problem));
#pragma once

#include <cstddef>
#include <optional>
#include <vector>

#include "database/tuning_database.hpp"

namespace jitgemm {

inline constexpr size_t kMaxPriors = 3;

std::vector<KernelConfig> tuning_priors(const TuningDatabase& database, const DeviceKey& device,
                                        const ProblemKey& key);
std::optional<KernelConfig> tuning_incumbent(const TuningDatabase& database, const DeviceKey& device,
                                             const ProblemKey& key);

}  // namespace jitgemm
