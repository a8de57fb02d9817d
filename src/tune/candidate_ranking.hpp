// candidate_ranking.hpp — the order in which the budgeted search compiles and times a
// problem's candidates, and which it never compiles. A pure function of the problem, the
// candidates, the device model and the caller's hints:
//   1. priors: the configs of the nearest tuned records of the same kind (made right for this
//      problem by their family's adapt()), in the order given;
//   2. kept: configs that must be tried (the untuned default, which a tuning must not lose to);
//   3. the rest, by the performance model's estimate (tune/performance_model.hpp), fastest
//      first, ties by name;
//   4. last, the pruned: candidates estimated more than prune_ratio times the best estimate
//      of their family. Priors and kept configs are never pruned.
//
//   const CandidateRanking r = rank_candidates(key, configs, DeviceModel::hopper(132), {2.0, priors, {dflt}});
//   for (const CandidateRank& c : r.order) if (!c.pruned) compile(configs[c.index]);
#pragma once

#include <cstddef>
#include <vector>

#include "codegen/kernel_config.hpp"
#include "problem/problem_key.hpp"
#include "tune/performance_model.hpp"

namespace jitgemm {

struct RankingSettings {
  double prune_ratio = 2.0;          // <= 0: prune nothing
  std::vector<KernelConfig> priors;  // the nearest tuned records' configs, best first
  std::vector<KernelConfig> kept;    // never pruned, ranked after the priors
};

struct CandidateRank {
  size_t index = 0;         // into the configs ranked
  double estimate_us = 0;   // the model's
  double ratio = 1;         // estimate_us / the best estimate of the config's family
  bool prior = false;       // matches a prior config (as given, or adapted to the problem)
  bool kept = false;
  bool pruned = false;
  // A prior itself, its form made right for this problem, or a kept config: the search times it
  // whenever its compile arrives, whatever its guesses of the budget say (a prior's siblings of
  // another K split are priors, not assured).
  bool assured = false;
};

struct CandidateRanking {
  std::vector<CandidateRank> order;  // every config once, best first, the pruned last
  size_t pruned = 0;
};

CandidateRanking rank_candidates(const ProblemKey& key, const std::vector<KernelConfig>& configs,
                                 const DeviceModel& device, const RankingSettings& settings);

}  // namespace jitgemm
