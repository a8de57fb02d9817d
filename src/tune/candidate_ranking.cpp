// rank_candidates: priors, kept configs, then the model's order; the pruned last (see
// candidate_ranking.hpp).
#include "tune/candidate_ranking.hpp"

#include <algorithm>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <tuple>

#include "codegen/kernel_family.hpp"

namespace jitgemm {
namespace {

constexpr size_t kNotPrior = std::numeric_limits<size_t>::max();

// Where `c` stands among the priors: (how closely, the first prior it is), kNotPrior if none.
// Closeness 0: the prior itself; 1: the prior made right for this problem by its family (a
// re-derived K split, a plane-fed variant); 2: a sibling, the prior with another of the choices
// its family names in sibling_form (the K split; SIMT's barrier placement). The priors
// themselves rank first, then their adapted forms, then siblings.
std::pair<int, size_t> prior_position(const KernelConfig& c, const std::vector<KernelConfig>& priors,
                                      const std::vector<std::optional<KernelConfig>>& adapted) {
  for (size_t p = 0; p < priors.size(); ++p)
    if (c == priors[p]) return {0, p};
  for (size_t p = 0; p < priors.size(); ++p)
    if (adapted[p] && c == *adapted[p]) return {1, p};
  const KernelConfig form = rules_of(c).sibling_form(c);
  for (size_t p = 0; p < priors.size(); ++p)
    if (form == rules_of(priors[p]).sibling_form(priors[p])) return {2, p};
  return {0, kNotPrior};
}

std::optional<KernelConfig> adapt_to(const KernelConfig& prior, const ProblemKey& key) {
  try {
    return rules_of(prior).adapt(prior, key);
  } catch (const std::exception&) {  // a prior the problem cannot take: it matches nothing
    return std::nullopt;
  }
}

}  // namespace

CandidateRanking rank_candidates(const ProblemKey& key, const std::vector<KernelConfig>& configs,
                                 const DeviceModel& device, const RankingSettings& settings) {
  std::vector<std::optional<KernelConfig>> adapted;
  for (const KernelConfig& p : settings.priors) adapted.push_back(adapt_to(p, key));
  CandidateRanking ranking;
  std::vector<std::pair<int, size_t>> prior_of(configs.size());
  std::vector<std::string> names(configs.size());
  std::map<KernelFamily, double> family_best;
  for (size_t i = 0; i < configs.size(); ++i) {
    CandidateRank r;
    r.index = i;
    r.estimate_us = estimate_time(configs[i], key, device).total_us;
    prior_of[i] = prior_position(configs[i], settings.priors, adapted);
    r.prior = prior_of[i].second != kNotPrior;
    r.kept = std::find(settings.kept.begin(), settings.kept.end(), configs[i]) != settings.kept.end();
    r.assured = r.kept || (r.prior && prior_of[i].first <= 1);
    names[i] = configs[i].name();
    auto [it, inserted] = family_best.emplace(configs[i].family(), r.estimate_us);
    if (!inserted) it->second = std::min(it->second, r.estimate_us);
    ranking.order.push_back(r);
  }
  for (CandidateRank& r : ranking.order) {
    r.ratio = r.estimate_us / std::max(family_best.at(configs[r.index].family()), 1e-9);
    r.pruned = settings.prune_ratio > 0 && r.ratio > settings.prune_ratio && !r.prior && !r.kept;
    ranking.pruned += r.pruned;
  }
  auto group = [](const CandidateRank& r) { return r.prior ? 0 : r.kept ? 1 : r.pruned ? 3 : 2; };
  std::sort(ranking.order.begin(), ranking.order.end(), [&](const CandidateRank& a, const CandidateRank& b) {
    const int ga = group(a), gb = group(b);
    return std::tie(ga, prior_of[a.index], a.estimate_us, names[a.index]) <
           std::tie(gb, prior_of[b.index], b.estimate_us, names[b.index]);
  });
  return ranking;
}

}  // namespace jitgemm
