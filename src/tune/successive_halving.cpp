// next_halving_round and halving_reserve_s (see successive_halving.hpp).
#include "tune/successive_halving.hpp"

#include <algorithm>

namespace jitgemm {
namespace {

void sort_fastest_first(std::vector<Contender>& contenders) {
  std::sort(contenders.begin(), contenders.end(), [](const Contender& a, const Contender& b) {
    return a.median_ms != b.median_ms ? a.median_ms < b.median_ms : a.index < b.index;
  });
}

// Seconds to time the fastest `count` contenders with `runs` runs each.
double round_cost(const std::vector<Contender>& sorted, size_t count, int runs, const RunCost& cost) {
  double seconds = 0;
  for (size_t i = 0; i < std::min(count, sorted.size()); ++i) seconds += cost(sorted[i].median_ms, runs);
  return seconds;
}

HalvingRound round_of(const std::vector<Contender>& sorted, size_t count, int round, int runs, bool final) {
  HalvingRound r{{}, round, runs, final};
  for (size_t i = 0; i < std::min(count, sorted.size()); ++i) r.candidates.push_back(sorted[i].index);
  return r;
}

size_t finalists_of(size_t contenders, const HalvingSettings& settings) {
  return std::min(contenders, static_cast<size_t>(std::max(1, settings.finalists)));
}

}  // namespace

HalvingRound next_halving_round(std::vector<Contender> contenders, const HalvingState& last,
                                const HalvingSettings& settings, double remaining_s, const RunCost& cost) {
  if (last.final || contenders.empty()) return {};
  sort_fastest_first(contenders);
  const size_t n = contenders.size(), finalists = finalists_of(n, settings);
  const int final_runs = std::max(1, settings.timing_runs);
  // A halving round: the better half (more than the finalists; fewer than half when the budget
  // pays for fewer), twice the runs, while that stays below the final round's runs and the
  // budget pays for it and the final round after it.
  const int runs = 2 * std::max(1, last.runs);
  if (settings.halve && runs < final_runs) {
    const double final_s = round_cost(contenders, finalists, final_runs, cost);
    size_t keep = (n + 1) / 2;
    while (keep > finalists && round_cost(contenders, keep, runs, cost) + final_s > remaining_s) --keep;
    if (keep > finalists) return round_of(contenders, keep, last.round + 1, runs, false);
  }
  // The final round: as many finalists as the budget pays for, at least one.
  size_t count = finalists;
  while (count > 1 && round_cost(contenders, count, final_runs, cost) > remaining_s) --count;
  return round_of(contenders, count, last.round + 1, final_runs, true);
}

double halving_reserve_s(std::vector<Contender> contenders, const HalvingSettings& settings, const RunCost& cost) {
  sort_fastest_first(contenders);
  const size_t finalists = finalists_of(contenders.size(), settings);
  double seconds = round_cost(contenders, finalists, std::max(1, settings.timing_runs), cost);
  if (settings.halve && contenders.size() > finalists)
    seconds += round_cost(contenders, 2 * finalists, 2 * std::max(1, settings.first_runs), cost);
  return seconds;
}

}  // namespace jitgemm
