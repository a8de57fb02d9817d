// successive_halving.hpp — the schedule of the budgeted search's timing rounds, as a pure
// function: given the verified candidates and their medians so far, which of them to time next
// and with how many runs. Round 1 (every verified candidate, a few runs) happens as the
// candidates are compiled (tune/tune_search.cpp); after it each round keeps the better half
// (at least `finalists`) with twice the runs, until the last round times the finalists with
// timing_runs, whose medians decide the winner. A halving round keeps fewer than half when the
// remaining budget pays for no more (and is skipped, straight to the final round, when it pays
// for no more than the finalists); the final round shrinks to what the budget pays for, never
// below one finalist.
//
//   HalvingRound round = next_halving_round(contenders, last, settings, remaining_s, cost);
//   if (round.candidates.empty()) done; else time each with round.runs, then ask again.
#pragma once

#include <cstddef>
#include <functional>
#include <limits>
#include <vector>

namespace jitgemm {

struct HalvingSettings {
  int first_runs = 2;    // round 1's timed runs per verified candidate
  int finalists = 8;     // the final round's candidates (fewer when fewer passed)
  int timing_runs = 25;  // the final round's runs: its medians decide
  bool halve = true;     // false: from round 1 straight to the final round (the exhaustive search)
};

// A verified candidate and what is known of its speed.
struct Contender {
  size_t index = 0;        // the caller's
  double median_ms = 0;    // of every run so far
};

// What was timed last: round 1 is the first, with first_runs.
struct HalvingState {
  int round = 1;
  int runs = 2;           // each candidate's runs in that round
  bool final = false;     // it was the final round: nothing follows
};

struct HalvingRound {
  std::vector<size_t> candidates;  // contender indices to time, fastest first; empty: done
  int round = 0;
  int runs = 0;
  bool final = false;
};

// Seconds one request timing a candidate of this median with `runs` runs costs, as the
// budget estimates it (overhead included).
using RunCost = std::function<double(double median_ms, int runs)>;

// The round after `last`. `contenders`: the candidates still in the race, in any order (a
// candidate that failed a later round is left out by the caller). `remaining_s`: the budget
// left (infinity: none). Deterministic: ties in median go to the lower index.
HalvingRound next_halving_round(std::vector<Contender> contenders, const HalvingState& last,
                                const HalvingSettings& settings, double remaining_s, const RunCost& cost);

// What the search keeps in reserve while it still compiles and screens: the final round for
// the fastest `finalists` of `contenders`, plus (when halving) one round before it of twice as
// many with twice round 1's runs. The caller passes a guessed contender while none has passed.
double halving_reserve_s(std::vector<Contender> contenders, const HalvingSettings& settings, const RunCost& cost);

}  // namespace jitgemm
