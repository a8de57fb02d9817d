// successive_halving: the rounds on synthetic timings (the true best survives noise, the budget
// holds, the finalists get timing_runs) and the budget's accounts.
#include "tune/successive_halving.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>

#include "tune/tuning_budget.hpp"

namespace jitgemm {
namespace {

constexpr double kNoBudget = std::numeric_limits<double>::infinity();

// Seconds per request: a fixed overhead and the runs at the median.
double request_cost(double median_ms, int runs) { return 0.02 + runs * median_ms / 1000; }

struct Simulation {
  std::vector<double> true_ms;
  double noise = 0.02;
  std::mt19937_64 random{1};
  double spent_s = 0;
  std::vector<HalvingRound> rounds;
  size_t winner = 0;
  double winner_final_ms = 0;

  double sample(size_t i, int runs) {
    std::uniform_real_distribution<double> jitter(1 - noise, 1 + noise);
    std::vector<double> s;
    for (int r = 0; r < runs; ++r) s.push_back(true_ms[i] * jitter(random));
    std::nth_element(s.begin(), s.begin() + static_cast<std::ptrdiff_t>(s.size() / 2), s.end());
    return s[s.size() / 2];
  }

  // Round 1 on every candidate, then the halving rounds to the end, within `budget_s`.
  void run(const HalvingSettings& settings, double budget_s) {
    std::vector<Contender> contenders;
    for (size_t i = 0; i < true_ms.size(); ++i) {
      contenders.push_back({i, sample(i, settings.first_runs)});
      spent_s += request_cost(true_ms[i], settings.first_runs);
    }
    HalvingState state{1, settings.first_runs, false};
    for (;;) {
      const HalvingRound round = next_halving_round(contenders, state, settings, budget_s - spent_s, request_cost);
      if (round.candidates.empty()) break;
      rounds.push_back(round);
      for (size_t i : round.candidates) {
        const double ms = sample(i, round.runs);
        spent_s += request_cost(true_ms[i], round.runs);
        for (Contender& c : contenders)
          if (c.index == i) c.median_ms = ms;
        if (round.final && (winner_final_ms == 0 || ms < winner_final_ms)) winner = i, winner_final_ms = ms;
      }
      std::erase_if(contenders, [&](const Contender& c) {
        return std::find(round.candidates.begin(), round.candidates.end(), c.index) == round.candidates.end();
      });
      state = {round.round, round.runs, round.final};
    }
  }
};

std::vector<double> random_times(size_t n, uint64_t seed) {
  std::mt19937_64 random(seed);
  std::uniform_real_distribution<double> ms(1.0, 3.0);
  std::vector<double> out(n);
  for (double& t : out) t = ms(random);
  return out;
}

TEST(SuccessiveHalving, KeepsTheTrueBestUnderNoise) {
  for (uint64_t seed = 1; seed <= 20; ++seed) {
    Simulation sim;
    sim.true_ms = random_times(200, seed);
    sim.random.seed(seed * 31);
    sim.run(HalvingSettings{}, kNoBudget);
    const double best = *std::min_element(sim.true_ms.begin(), sim.true_ms.end());
    EXPECT_LE(sim.true_ms[sim.winner], best * 1.02) << "seed " << seed;
    ASSERT_FALSE(sim.rounds.empty());
    EXPECT_TRUE(sim.rounds.back().final);
  }
}

TEST(SuccessiveHalving, HalvesTheCandidatesAndDoublesTheRunsUpToTheFinalists) {
  Simulation sim;
  sim.true_ms = random_times(100, 3);
  sim.run(HalvingSettings{2, 8, 25, true}, kNoBudget);
  ASSERT_EQ(sim.rounds.size(), 4u);
  EXPECT_EQ(sim.rounds[0].candidates.size(), 50u);
  EXPECT_EQ(sim.rounds[0].runs, 4);
  EXPECT_EQ(sim.rounds[1].candidates.size(), 25u);
  EXPECT_EQ(sim.rounds[1].runs, 8);
  EXPECT_EQ(sim.rounds[2].candidates.size(), 13u);
  EXPECT_EQ(sim.rounds[2].runs, 16);
  EXPECT_TRUE(sim.rounds[3].final);
  EXPECT_EQ(sim.rounds[3].candidates.size(), 8u);
  EXPECT_EQ(sim.rounds[3].runs, 25);
  EXPECT_EQ(sim.rounds[3].round, 5);
}

TEST(SuccessiveHalving, FinalistsGetTheFullTimingRuns) {
  for (size_t n : {1u, 3u, 8u, 9u, 40u}) {
    Simulation sim;
    sim.true_ms = random_times(n, n);
    sim.run(HalvingSettings{1, 8, 21, true}, kNoBudget);
    ASSERT_FALSE(sim.rounds.empty()) << n;
    const HalvingRound& last = sim.rounds.back();
    EXPECT_TRUE(last.final) << n;
    EXPECT_EQ(last.runs, 21) << n;
    EXPECT_EQ(last.candidates.size(), std::min<size_t>(n, 8)) << n;
  }
}

TEST(SuccessiveHalving, WithoutHalvingTheFastestGoStraightToTheFinal) {
  std::vector<Contender> contenders;
  for (size_t i = 0; i < 30; ++i) contenders.push_back({i, 30.0 - static_cast<double>(i)});
  const HalvingRound r = next_halving_round(contenders, {1, 5, false}, {5, 8, 25, false}, kNoBudget, request_cost);
  EXPECT_TRUE(r.final);
  ASSERT_EQ(r.candidates.size(), 8u);
  EXPECT_EQ(r.candidates.front(), 29u);  // fastest first
  EXPECT_EQ(r.candidates.back(), 22u);
  EXPECT_EQ(r.runs, 25);
  EXPECT_TRUE(next_halving_round(contenders, {2, 25, true}, {5, 8, 25, false}, kNoBudget, request_cost)
                  .candidates.empty());
}

TEST(SuccessiveHalving, HonoursTheBudget) {
  for (double budget_s : {1.0, 2.0, 4.0, 8.0}) {
    Simulation sim;
    sim.true_ms = random_times(150, 11);
    double round_one_s = 0;
    for (double ms : sim.true_ms) round_one_s += request_cost(ms, 2);
    sim.run(HalvingSettings{}, round_one_s + budget_s);
    EXPECT_LE(sim.spent_s, round_one_s + budget_s + 1e-9) << "budget " << budget_s;
    ASSERT_FALSE(sim.rounds.empty());
    EXPECT_TRUE(sim.rounds.back().final);
    EXPECT_EQ(sim.rounds.back().runs, 25);
  }
}

TEST(SuccessiveHalving, ASpentBudgetStillTimesOneFinalist) {
  std::vector<Contender> contenders{{4, 2.0}, {9, 1.0}, {2, 1.5}};
  const HalvingRound r = next_halving_round(contenders, {1, 2, false}, HalvingSettings{}, -3.0, request_cost);
  EXPECT_TRUE(r.final);
  ASSERT_EQ(r.candidates.size(), 1u);
  EXPECT_EQ(r.candidates.front(), 9u);
  EXPECT_EQ(r.runs, 25);
}

TEST(SuccessiveHalving, ATightBudgetSkipsHalvingRoundsAndShrinksTheFinal) {
  std::vector<Contender> contenders;
  for (size_t i = 0; i < 64; ++i) contenders.push_back({i, 1.0});
  const double one_final_s = request_cost(1.0, 25);
  const HalvingRound r =
      next_halving_round(contenders, {1, 2, false}, HalvingSettings{}, 3.5 * one_final_s, request_cost);
  EXPECT_TRUE(r.final);
  EXPECT_EQ(r.candidates.size(), 3u);
}

TEST(SuccessiveHalving, ABudgetForLessThanHalfKeepsWhatItPaysFor) {
  std::vector<Contender> contenders;
  for (size_t i = 0; i < 100; ++i) contenders.push_back({i, 1.0});
  const double final_s = 8 * request_cost(1.0, 25);
  const HalvingRound r = next_halving_round(contenders, {1, 2, false}, HalvingSettings{},
                                            final_s + 20.5 * request_cost(1.0, 4), request_cost);
  EXPECT_FALSE(r.final);
  EXPECT_EQ(r.candidates.size(), 20u);
  EXPECT_EQ(r.runs, 4);
}

TEST(SuccessiveHalving, TiesGoToTheLowerIndex) {
  std::vector<Contender> contenders{{5, 1.0}, {3, 1.0}, {4, 0.5}};
  const HalvingRound r = next_halving_round(contenders, {1, 2, false}, {2, 2, 25, true}, kNoBudget, request_cost);
  EXPECT_EQ(r.candidates, (std::vector<size_t>{4, 3}));
}

TEST(SuccessiveHalving, TheReserveCoversTheFinalAndTheRoundBeforeIt) {
  std::vector<Contender> contenders;
  for (size_t i = 0; i < 40; ++i) contenders.push_back({i, 1.0 + static_cast<double>(i)});
  const HalvingSettings settings{2, 8, 25, true};
  double expected = 0;
  for (int i = 0; i < 8; ++i) expected += request_cost(1.0 + i, 25);
  for (int i = 0; i < 16; ++i) expected += request_cost(1.0 + i, 4);
  EXPECT_NEAR(halving_reserve_s(contenders, settings, request_cost), expected, 1e-12);
  HalvingSettings exhaustive = settings;
  exhaustive.halve = false;
  double finals = 0;
  for (int i = 0; i < 8; ++i) finals += request_cost(1.0 + i, 25);
  EXPECT_NEAR(halving_reserve_s(contenders, exhaustive, request_cost), finals, 1e-12);
}

TEST(TuningBudget, CountsFromItsStartAndLearnsTheOverhead) {
  double now = 50;
  TuningBudget budget(20, [&] { return now; });
  EXPECT_TRUE(budget.limited());
  now = 62.5;
  EXPECT_DOUBLE_EQ(budget.elapsed_s(), 12.5);
  EXPECT_DOUBLE_EQ(budget.remaining_s(), 7.5);
  EXPECT_DOUBLE_EQ(budget.overhead_s(), TuningBudget::kDefaultOverheadS);
  budget.record_measure(0.860, 10, 1.0);  // the worker's first request: its one-time costs
  EXPECT_NEAR(budget.overhead_s(), 0.850, 1e-12);  // while it is the only one
  budget.record_measure(0.030, 10, 1.0);  // 10 ms of launches: 20 ms overhead
  EXPECT_NEAR(budget.overhead_s(), 0.020, 1e-12);  // the first is left out once others came
  budget.record_measure(0.500, 0, 0);     // a worker restart: an outlier
  budget.record_measure(0.025, 5, 1.0);   // 20 ms
  EXPECT_NEAR(budget.overhead_s(), 0.020, 1e-12);  // the median
  EXPECT_NEAR(budget.measure_cost_s(2.0, 30), 0.020 + 0.060, 1e-12);
  // Timing-only requests are learned apart from the verifying ones above.
  EXPECT_DOUBLE_EQ(budget.retime_overhead_s(), TuningBudget::kDefaultOverheadS);
  budget.record_measure(0.015, 10, 1.0, false);  // 5 ms
  budget.record_measure(0.012, 10, 1.0, false);  // 2 ms
  budget.record_measure(0.900, 10, 1.0, false);  // an outlier
  EXPECT_NEAR(budget.retime_overhead_s(), 0.005, 1e-12);
  EXPECT_NEAR(budget.retime_cost_s(2.0, 30), 0.005 + 0.060, 1e-12);
  EXPECT_NEAR(budget.overhead_s(), 0.020, 1e-12);
  TuningBudget none(0, [&] { return now; });
  EXPECT_FALSE(none.limited());
  EXPECT_TRUE(std::isinf(none.remaining_s()));
}

}  // namespace
}  // namespace jitgemm
