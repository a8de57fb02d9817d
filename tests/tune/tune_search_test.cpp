// The tuning loop on the CPU (tune/tune_search.hpp): real candidates, rendered for real; a fake
// compile, a fake bench with synthetic timings (the model's estimate times a fixed random
// factor in [0.8, 1.25]) and a fake clock.
#include "tune/tune_search.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <random>
#include <string>
#include <thread>

#include "codegen/candidate_space.hpp"
#include "codegen/kernel_family.hpp"
#include "codegen/template_store.hpp"
#include "jitgemm/error.hpp"
#include "tune/candidate_ranking.hpp"
#include "tune/fake_tuning.hpp"

namespace jitgemm {
namespace {

using testing::FakeBench;
using testing::FakeClock;
using testing::FakeKernel;

struct Scenario {
  GemmProblem problem;
  ProblemKey key;
  std::vector<KernelConfig> configs;
  std::map<std::string, FakeKernel> kernels;

  // The candidates' true medians: the model's estimate off by a factor in [0.8, 1.25].
  Scenario(int64_t m, int64_t n, int64_t k, Precision precision, uint64_t seed = 1) {
    problem.m = m, problem.n = n, problem.k = k, problem.precision = precision;
    key = make_problem_key(problem);
    configs = tuning_candidates(key);
    std::mt19937_64 random(seed);
    std::uniform_real_distribution<double> off(0.8, 1.25);
    for (const KernelConfig& c : configs)
      kernels[c.name()].ms = estimate_time(c, key, DeviceModel::hopper(132)).total_us / 1000 * off(random);
  }
  size_t fastest(const std::vector<std::string>& except = {}) const {
    size_t best = configs.size();
    for (size_t i = 0; i < configs.size(); ++i) {
      const std::string name = configs[i].name();
      if (kernels.at(name).wrong || std::find(except.begin(), except.end(), name) != except.end()) continue;
      if (best == configs.size() || kernels.at(name).ms < kernels.at(configs[best].name()).ms) best = i;
    }
    return best;
  }
  double ms(size_t i) const { return kernels.at(configs[i].name()).ms; }
  // What every search here starts from: these candidates, the active templates, `clock`, the
  // 132-SM Hopper model and the untuned default kept; compile and bench are each test's.
  SearchEnvironment environment(FakeClock& clock) const {
    SearchEnvironment env;
    env.configs = configs;
    env.specialization = specialization_of(key);
    env.templates = &TemplateStore::active();
    env.clock = clock.clock();
    env.device = DeviceModel::hopper(132);
    env.kept = {untuned_config(key)};
    return env;
  }
  size_t index(const KernelConfig& c) const {
    return static_cast<size_t>(std::find(configs.begin(), configs.end(), c) - configs.begin());
  }
  // The model's last unpruned candidate: as a prior, one a tight budget would never reach.
  KernelConfig last_unpruned() const {
    const CandidateRanking plain = rank_candidates(key, configs, DeviceModel::hopper(132), {});
    for (auto it = plain.order.rbegin(); it != plain.order.rend(); ++it)
      if (!it->pruned) return configs[it->index];
    return configs.front();
  }
};

struct SearchRun {
  FakeClock clock;
  FakeBench* bench = nullptr;  // owned by the search while it runs; kept for its request log
  std::vector<FakeBench::Request> requests;
  TuneResult result;

  testing::CompilePacing pacing;  // compiles keep pace with measurements (see fake_tuning.hpp)
  // SearchEnvironment::record_gpu: each call's argument, and whether it was on at each request.
  std::vector<bool> gpu_recording_calls;
  std::vector<bool> gpu_recorded;

  // `late`: the kernels whose name holds it compile 50 ms (real time) late, so that others are
  // compiled and timed before them.
  SearchRun(const Scenario& s, TuneSettings settings, double compile_s = 0.0, double overhead_s = 0.02,
      double noise = 0.0, const std::string& late = "") {
    SearchEnvironment env = s.environment(clock);
    env.compile = testing::fake_compile(clock, compile_s, nullptr, &pacing);
    if (!late.empty())
      env.compile = [compile = env.compile, late](const RenderedKernel& kernel) {
        if (kernel.kernel_name.find(late) != std::string::npos)
          std::this_thread::sleep_for(std::chrono::milliseconds(50));
        return compile(kernel);
      };
    env.make_bench = [&](const BenchSettings&) {
      auto b = std::make_unique<RecordingBench>(clock, s.kernels, overhead_s, noise, requests, pacing, *this);
      return std::unique_ptr<CandidateBench>(std::move(b));
    };
    env.record_gpu = [this](bool on) { gpu_recording_calls.push_back(on); };
    if (settings.jobs == 0) settings.jobs = 2;
    result = run_tune_search(s.problem, env, settings);
  }

  // A FakeBench that leaves its request log behind when the search drops it.
  struct RecordingBench : FakeBench {
    RecordingBench(FakeClock& c, std::map<std::string, FakeKernel> k, double o, double n,
                   std::vector<FakeBench::Request>& out, testing::CompilePacing& pacing, SearchRun& run)
        : FakeBench(c, std::move(k), o, n), out_(out), pacing_(pacing), run_(run) {}
    ~RecordingBench() override { out_ = requests; }
    BenchVerdict measure(const MeasureRequest& r) override {
      ++pacing_.measures;
      run_.gpu_recorded.push_back(!run_.gpu_recording_calls.empty() && run_.gpu_recording_calls.back());
      return FakeBench::measure(r);
    }
    std::vector<FakeBench::Request>& out_;
    testing::CompilePacing& pacing_;
    SearchRun& run_;
  };

  size_t count(CandidateOutcome outcome) const {
    return static_cast<size_t>(std::count_if(result.candidates.begin(), result.candidates.end(),
                                             [&](const CandidateMeasurement& m) { return m.outcome == outcome; }));
  }
};

TuneSettings exhaustive() {
  TuneSettings s;
  s.search = TuneSearch::Exhaustive;
  return s;
}

TuneSettings budgeted(double budget_s) {
  TuneSettings s;
  s.search = TuneSearch::Budgeted;
  s.budget_s = budget_s;
  return s;
}

TEST(TuneSearch, ExhaustiveTimesEveryCandidateAndTheFastestVerifiedWins) {
  const Scenario s(4096, 4096, 4096, Precision::TF32);
  const SearchRun run(s, exhaustive());
  ASSERT_EQ(run.result.candidates.size(), s.configs.size());
  EXPECT_EQ(run.count(CandidateOutcome::Ok), s.configs.size());
  ASSERT_NE(run.result.best(), nullptr);
  EXPECT_EQ(static_cast<size_t>(run.result.winner), s.fastest());
  size_t screens = 0;
  std::vector<FakeBench::Request> finals;
  for (const FakeBench::Request& r : run.requests) {
    if (r.phase != MeasurePhase::Screen) {
      finals.push_back(r);
      continue;
    }
    ++screens;
    EXPECT_EQ(r.runs, 5);
    EXPECT_EQ(r.warmup_runs, 3);
  }
  EXPECT_EQ(screens, s.configs.size());
  // The 8 finalists in 5 passes of 5 runs, in the same turn each pass; the warm-up in the first.
  ASSERT_EQ(finals.size(), 40u);
  for (size_t k = 0; k < finals.size(); ++k) {
    EXPECT_EQ(finals[k].runs, 5);
    EXPECT_EQ(finals[k].warmup_runs, k < 8 ? 3 : 1);
    EXPECT_EQ(finals[k].config, finals[k % 8].config);
  }
  EXPECT_EQ(run.result.rounds, 2);
  EXPECT_EQ(run.result.best()->timing.runs, 25);
  EXPECT_TRUE(run.result.best()->finalist);
}

// A re-tune (TuneSettings::incumbent, the problem's own record's config): in the final round
// the record keeps the win against a finalist less than incumbent_margin (2%) faster, and loses
// to one faster by more. Why: an H100 re-tune of 2048^3 fp32 replaced its record with a config
// 0.5% ahead there that ran 5% behind it on two other H100 machines.
TEST(TuneSearch, ARecordsConfigKeepsTheWinUnlessAFinalistBeatsItByTheMargin) {
  Scenario s(4096, 4096, 4096, Precision::TF32);
  const size_t fastest = s.fastest();
  const size_t record = s.fastest({s.configs[fastest].name()});
  for (double behind : {1.01, 1.05}) {
    s.kernels[s.configs[record].name()].ms = behind * s.ms(fastest);
    TuneSettings settings = exhaustive();
    settings.incumbent = s.configs[record];
    const SearchRun run(s, settings);
    ASSERT_NE(run.result.best(), nullptr);
    const bool kept = behind < 1.02;
    EXPECT_EQ(static_cast<size_t>(run.result.winner), kept ? record : fastest) << behind;
    EXPECT_EQ(run.result.candidates[fastest].detail.find("record's config") != std::string::npos, kept) << behind;
    // Without an incumbent the fastest wins, as ever.
    const SearchRun plain(s, exhaustive());
    EXPECT_EQ(static_cast<size_t>(plain.result.winner), fastest) << behind;
  }
}

// A search over s's candidates with these settings and `jobs` compiles at once, measured by a
// Bench(clock, kernels).
template <typename Bench>
TuneResult search_with(const Scenario& s, FakeClock& clock, CompileKernel compile, TuneSettings settings, int jobs) {
  SearchEnvironment env = s.environment(clock);
  env.compile = std::move(compile);
  env.make_bench = [&](const BenchSettings&) {
    return std::unique_ptr<CandidateBench>(std::make_unique<Bench>(clock, s.kernels));
  };
  settings.jobs = jobs;
  return run_tune_search(s.problem, env, settings);
}

// A slow stretch of the GPU during the final round (a GPU warming up or power-capped): timed
// one finalist after another, the stretch fell on whichever was timed in it; in interleaved
// passes it takes a fifth of each one's runs. Here the first request of the final round runs
// 30% slow: the fastest finalist, timed first, still wins.
// A bench whose requests run 30% slow where slow(request) says: a slow stretch of the GPU.
struct SlowStretchBench : FakeBench {
  SlowStretchBench(FakeClock& c, std::map<std::string, FakeKernel> kernels)
      : FakeBench(c, std::move(kernels), 0.02, 0.0) {}
  virtual bool slow(const MeasureRequest& r) = 0;
  BenchVerdict measure(const MeasureRequest& r) override {
    slowdown = slow(r) ? 1.3 : 1.0;
    return FakeBench::measure(r);
  }
};

TEST(TuneSearch, ASlowStretchInTheFinalRoundDoesNotDecideTheWinner) {
  const Scenario s(4096, 4096, 4096, Precision::TF32);
  struct SlowFirstFinal : SlowStretchBench {
    using SlowStretchBench::SlowStretchBench;
    bool slow(const MeasureRequest& r) override { return r.phase == MeasurePhase::Retime && retimes++ == 0; }
    int retimes = 0;
  };
  FakeClock clock;
  const TuneResult result =
      search_with<SlowFirstFinal>(s, clock, testing::fake_compile(clock, 0.0), exhaustive(), 2);
  ASSERT_NE(result.best(), nullptr);
  // The runner-up is within 30%: timed all at once in the slow stretch, the fastest would lose.
  const size_t fastest = s.fastest();
  EXPECT_LT(s.ms(s.fastest({s.configs[fastest].name()})), 1.3 * s.ms(fastest));
  EXPECT_EQ(static_cast<size_t>(result.winner), fastest);
  EXPECT_EQ(result.best()->timing.runs, 25);
}

// The candidates a search verified and timed.
size_t timed(const TuneResult& r) {
  const auto ok = [](const CandidateMeasurement& m) { return m.outcome == CandidateOutcome::Ok; };
  return static_cast<size_t>(std::count_if(r.candidates.begin(), r.candidates.end(), ok));
}

// Round 1's requests verify each candidate against the float64 product, which on a large
// output costs far more than a timing request (here 0.8 s against 20 ms). Charged at that
// rate for each of the final round's passes, the reserve for the final round (8 finalists x 5
// passes) outgrew a 20 s budget and the search screened one candidate and stopped (an H200
// cold tune of 4096^3 fp32: 1 of 896 timed, the rest over budget, after 3 s). Timing requests
// are learned apart: the search screens many and still ends within the budget.
TEST(TuneSearch, AnExpensiveVerificationDoesNotStarveRoundOne) {
  const Scenario s(4096, 4096, 4096, Precision::TF32x3);
  struct SlowVerification : FakeBench {
    SlowVerification(FakeClock& c, std::map<std::string, FakeKernel> kernels)
        : FakeBench(c, std::move(kernels), 0.02, 0.0), clock(c) {}
    BenchVerdict measure(const MeasureRequest& r) override {
      if (r.phase == MeasurePhase::Screen) clock.advance(0.78);
      return FakeBench::measure(r);
    }
    FakeClock& clock;
  };
  FakeClock clock;
  const TuneResult result = search_with<SlowVerification>(s, clock, testing::fake_compile(clock, 0.0), budgeted(20), 2);
  ASSERT_NE(result.best(), nullptr);
  EXPECT_GE(timed(result), 10u);
  EXPECT_LE(result.times.total_s, 20.0 + 1.0);
  EXPECT_GT(result.rounds, 1);
}

// The first verifying request carries the worker's one-time costs (an H200 cold tune of
// symmetric fp32: 0.85 s, then about 15 ms each). Taken for every screening's cost, it stopped
// the compiles after the first candidate, with 67 configs of compiled and compiling kernels
// "to screen at 0.865 s each". The compiles now wait for three screenings, and the first is
// left out of the estimate.
TEST(TuneSearch, TheWorkersFirstRequestDoesNotStopTheCompiles) {
  const Scenario s(4096, 4096, 4096, Precision::FP32);  // four configs a kernel (K slices)
  struct SlowFirstRequest : FakeBench {
    SlowFirstRequest(FakeClock& c, std::map<std::string, FakeKernel> kernels)
        : FakeBench(c, std::move(kernels), 0.015, 0.0), clock(c) {}
    BenchVerdict measure(const MeasureRequest& r) override {
      if (requests.empty()) clock.advance(0.85);
      return FakeBench::measure(r);
    }
    FakeClock& clock;
  };
  FakeClock clock;
  // Sixteen compiles under way when the first screening ends (each takes 20 ms of real time).
  CompileKernel compile = [fake = testing::fake_compile(clock, 0.01)](const RenderedKernel& kernel) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    return fake(kernel);
  };
  const TuneResult result = search_with<SlowFirstRequest>(s, clock, std::move(compile), budgeted(20), 16);
  ASSERT_NE(result.best(), nullptr);
  EXPECT_GE(timed(result), 200u);  // 76 before: those compiled and compiling when the first one ended
  EXPECT_LE(result.times.total_s, 20.0 + 1.0);
}

TEST(TuneSearch, ResultsKeepTheInputOrder) {
  const Scenario s(2048, 4096, 8192, Precision::TF32);
  const SearchRun run(s, budgeted(0));
  ASSERT_EQ(run.result.candidates.size(), s.configs.size());
  for (size_t i = 0; i < s.configs.size(); ++i) {
    EXPECT_EQ(run.result.candidates[i].config, s.configs[i]);
    EXPECT_NE(run.result.candidates[i].outcome, CandidateOutcome::Skipped) << s.configs[i].name();
  }
  EXPECT_GT(run.result.times.total_s, 0);
  EXPECT_LE(run.result.times.measure_s, run.result.times.total_s + 1e-9);
}

TEST(TuneSearch, BudgetedWithoutALimitFindsTheExhaustiveWinner) {
  for (uint64_t seed : {1, 2, 3}) {
    const Scenario s(4096, 4096, 4096, Precision::TF32x3, seed);
    const SearchRun run(s, budgeted(0), 0.0, 0.02, 0.01);
    ASSERT_NE(run.result.best(), nullptr);
    EXPECT_LE(s.ms(static_cast<size_t>(run.result.winner)), 1.03 * s.ms(s.fastest())) << "seed " << seed;
    EXPECT_EQ(run.count(CandidateOutcome::OverBudget), 0u);
    for (const CandidateMeasurement& m : run.result.candidates)
      if (m.outcome == CandidateOutcome::Pruned) EXPECT_EQ(m.detail.rfind("pruned: estimate", 0), 0u) << m.detail;
    EXPECT_GT(run.result.rounds, 2) << "successive halving: more than a screening and a final round";
  }
}

TEST(TuneSearch, RoundOneTakesFewRunsAndLaterRoundsDoubleThemUpToTheFinal) {
  const Scenario s(4096, 4096, 4096, Precision::TF32);
  const SearchRun run(s, budgeted(0));
  // The final round is the last 8 x 5 requests (5 passes of 5 runs); the halving rounds before
  // it double their runs.
  const size_t final_requests = 8 * 5;
  ASSERT_GT(run.requests.size(), final_requests);
  const size_t final_start = run.requests.size() - final_requests;
  std::vector<int> retime_runs;
  for (size_t k = 0; k < run.requests.size(); ++k) {
    const FakeBench::Request& r = run.requests[k];
    if (k >= final_start) {
      EXPECT_EQ(r.phase, MeasurePhase::Retime);
      EXPECT_EQ(r.runs, 5);
    } else if (r.phase == MeasurePhase::Screen) {
      EXPECT_EQ(r.runs, 2);
      EXPECT_EQ(r.warmup_runs, 1);
    } else if (retime_runs.empty() || retime_runs.back() != r.runs) {
      retime_runs.push_back(r.runs);
    }
  }
  ASSERT_GE(retime_runs.size(), 1u);
  for (size_t i = 1; i < retime_runs.size(); ++i) EXPECT_EQ(retime_runs[i], 2 * retime_runs[i - 1]);
  EXPECT_EQ(retime_runs.front(), 4);
  EXPECT_LT(retime_runs.back(), 25);
  size_t finalists = 0;
  for (const CandidateMeasurement& m : run.result.candidates) {
    if (!m.finalist) continue;
    ++finalists;
    EXPECT_EQ(m.timing.runs, 25) << m.config.name();
  }
  EXPECT_EQ(finalists, 8u);
}

// The tuner samples the GPU's clock and power over the final round (TuneResult::final_round_gpu),
// and over nothing else: the search turns the recording on before the final round's first
// request and off after its last, once each.
TEST(TuneSearch, TheGpuIsRecordedOverTheFinalRoundAlone) {
  const Scenario s(4096, 4096, 4096, Precision::TF32);
  for (const TuneSettings& settings : {budgeted(0), exhaustive()}) {
    const SearchRun run(s, settings);
    ASSERT_EQ(run.gpu_recorded.size(), run.requests.size());
    EXPECT_EQ(run.gpu_recording_calls, (std::vector<bool>{true, false}));
    const size_t final_requests = 8 * 5;  // 8 finalists, 5 passes
    ASSERT_GT(run.requests.size(), final_requests);
    for (size_t k = 0; k < run.requests.size(); ++k)
      EXPECT_EQ(run.gpu_recorded[k], k >= run.requests.size() - final_requests) << "request " << k;
  }
}

// The final round leaves the GPU idle after each timed run as long as the run took
// (TuneSettings::final_round_idle, 1 by default), and no earlier round does: timed back to back,
// tf32x3 finalists held an H200 at its power cap and ranked otherwise than they run.
TEST(TuneSearch, OnlyTheFinalRoundIdlesBetweenRuns) {
  const Scenario s(4096, 4096, 4096, Precision::TF32);
  for (double idle : {1.0, 0.0, 2.5}) {
    TuneSettings settings = budgeted(0);
    settings.final_round_idle = idle;
    const SearchRun run(s, settings);
    const size_t final_requests = 8 * 5;
    ASSERT_GT(run.requests.size(), final_requests);
    for (size_t k = 0; k < run.requests.size(); ++k)
      EXPECT_EQ(run.requests[k].idle_ratio, k >= run.requests.size() - final_requests ? idle : 0.0)
          << "request " << k << ", final_round_idle " << idle;
  }
}

// A GPU that runs slower by the final round (warmer, power-capped): the final round's runs (5
// a pass) take 30% longer. A candidate that lost in the halving rounds is reported against the
// winner's runs of the same rounds, never against its slower final-round median, which made
// losers read faster than the winner (H200: "not a finalist: 0.96x the winner's median").
TEST(TuneSearch, ACandidateThatWasNotAFinalistIsComparedOnTheRoundsItRan) {
  const Scenario s(4096, 4096, 4096, Precision::TF32);
  struct SlowerByTheFinal : SlowStretchBench {
    using SlowStretchBench::SlowStretchBench;
    bool slow(const MeasureRequest& r) override { return r.phase == MeasurePhase::Retime && r.runs == 5; }
  };
  FakeClock clock;
  const TuneResult result = search_with<SlowerByTheFinal>(s, clock, testing::fake_compile(clock, 0.0), budgeted(0), 2);
  ASSERT_NE(result.best(), nullptr);
  EXPECT_EQ(static_cast<size_t>(result.winner), s.fastest());
  size_t reported = 0;
  for (const CandidateMeasurement& m : result.candidates) {
    const size_t at = m.detail.find("not a finalist: ");
    if (at == std::string::npos) continue;
    ++reported;
    const double ratio = std::stod(m.detail.substr(at + 16));
    // Noise-free timings: the winner is the fastest, so no loser may read faster than it.
    EXPECT_GE(ratio, 1.0) << m.config.name() << ": " << m.detail;
    EXPECT_NEAR(ratio, m.timing.median_ms / s.ms(static_cast<size_t>(result.winner)), 0.01) << m.detail;
  }
  EXPECT_GT(reported, 8u);
}

TEST(TuneSearch, AWrongResultNeverWins) {
  Scenario s(4096, 4096, 4096, Precision::TF32);
  const size_t fastest = s.fastest();
  s.kernels[s.configs[fastest].name()].wrong = true;
  for (TuneSettings settings : {exhaustive(), budgeted(0)}) {
    const SearchRun run(s, settings);
    ASSERT_NE(run.result.best(), nullptr);
    EXPECT_NE(static_cast<size_t>(run.result.winner), fastest);
    EXPECT_EQ(static_cast<size_t>(run.result.winner), s.fastest());
    EXPECT_EQ(run.result.candidates[fastest].outcome, CandidateOutcome::WrongResult);
    EXPECT_FALSE(run.result.candidates[fastest].detail.empty());
    for (const FakeBench::Request& r : run.requests)
      if (r.index == fastest) EXPECT_EQ(r.phase, MeasurePhase::Screen) << "a wrong result is never timed again";
  }
}

TEST(TuneSearch, AFinalistThatFaultsCannotWin) {
  Scenario s(4096, 4096, 4096, Precision::TF32);
  const size_t fastest = s.fastest();
  s.kernels[s.configs[fastest].name()].faults_on_retime = true;
  const SearchRun run(s, budgeted(0));
  ASSERT_NE(run.result.best(), nullptr);
  EXPECT_EQ(static_cast<size_t>(run.result.winner), s.fastest({s.configs[fastest].name()}));
  EXPECT_EQ(run.result.candidates[fastest].outcome, CandidateOutcome::Faulted);
}

TEST(TuneSearch, TheBudgetHoldsAndEveryCandidateLeftOutSaysWhy) {
  const Scenario s(2048, 4096, 8192, Precision::TF32x3);  // hundreds of candidates
  const double budget_s = 8;
  const SearchRun run(s, budgeted(budget_s), /*compile_s=*/0.1, /*overhead_s=*/0.05);
  const TuneResult& r = run.result;
  ASSERT_NE(r.best(), nullptr);
  EXPECT_LE(r.times.total_s, budget_s * 1.05) << "compile " << r.times.compile_s << ", measure " << r.times.measure_s;
  EXPECT_EQ(r.best()->timing.runs, 25);
  EXPECT_TRUE(r.best()->finalist);
  size_t not_compiled = 0;
  for (const CandidateMeasurement& m : r.candidates) {
    EXPECT_NE(m.outcome, CandidateOutcome::Skipped) << m.config.name();
    if (m.outcome == CandidateOutcome::OverBudget) {
      EXPECT_FALSE(m.detail.empty());
      not_compiled += m.detail.rfind("not compiled: the 8 s budget", 0) == 0;
    }
    if (m.finalist && m.outcome == CandidateOutcome::Ok) EXPECT_LE(r.best()->timing.median_ms, m.timing.median_ms);
  }
  EXPECT_GT(not_compiled, 0u) << "8 s of 0.1 s compiles and 50 ms measurements cannot reach every candidate";
  EXPECT_GT(run.count(CandidateOutcome::Ok), 8u);
  std::printf("[ info ] %zu candidates: %zu ok, %zu pruned, %zu over budget (%zu not compiled); %.2f s (compile %.2f, "
              "measure %.2f), %d rounds, winner rank %d\n",
              r.candidates.size(), run.count(CandidateOutcome::Ok), run.count(CandidateOutcome::Pruned),
              run.count(CandidateOutcome::OverBudget), not_compiled, r.times.total_s, r.times.compile_s,
              r.times.measure_s, r.rounds, r.best()->rank);
}

TEST(TuneSearch, PriorsAndTheDefaultAreTimedFirst) {
  const Scenario s(2048, 4096, 8192, Precision::TF32x3);
  const KernelConfig prior = s.last_unpruned();
  TuneSettings settings = budgeted(4);
  settings.priors = {prior};
  const SearchRun run(s, settings, 0.1, 0.05);
  const size_t p = s.index(prior), d = s.index(untuned_config(s.key));
  // On a failure, what happened to each and where the fake time went.
  auto said = [&](size_t i) {
    const CandidateMeasurement& m = run.result.candidates[i];
    return fmt::format("{}: {} ({}); run: {:.2f} s (compile {:.2f}, measure {:.2f}), {} rounds", m.config.name(),
                       to_string(m.outcome), m.detail, run.result.times.total_s, run.result.times.compile_s,
                       run.result.times.measure_s, run.result.rounds);
  };
  EXPECT_EQ(run.result.candidates[p].rank, 0);
  EXPECT_EQ(run.result.candidates[p].outcome, CandidateOutcome::Ok) << said(p);
  EXPECT_EQ(run.result.candidates[d].rank, 1);
  EXPECT_EQ(run.result.candidates[d].outcome, CandidateOutcome::Ok) << said(d);
  EXPECT_GT(run.count(CandidateOutcome::OverBudget), 0u);
}

// However late the prior's or the default's compile arrives, they are timed: the budget's
// guesses (which a slow prior timed first inflates) never drop them. Before, a default that
// arrived after the prior ended "compiled, not timed" (once on the GPU machine, by chance).
TEST(TuneSearch, ThePriorAndTheDefaultAreTimedHoweverLateTheyCompile) {
  const Scenario s(2048, 4096, 8192, Precision::TF32x3);
  const KernelConfig prior = s.last_unpruned(), dflt = untuned_config(s.key);
  for (const KernelConfig& late : {dflt, prior}) {
    TuneSettings settings = budgeted(4);
    settings.priors = {prior};
    const SearchRun run(s, settings, 0.1, 0.05, 0.0, late.name());
    for (const KernelConfig& c : {prior, dflt}) {
      const CandidateMeasurement& m = run.result.candidates[s.index(c)];
      EXPECT_EQ(m.outcome, CandidateOutcome::Ok) << late.name() << " late; " << c.name() << ": " << m.detail;
    }
    EXPECT_GT(run.count(CandidateOutcome::OverBudget), 0u);
  }
}

TEST(TuneSearch, ACompileThatThrowsAbortsTheRun) {
  const Scenario s(4096, 4096, 4096, Precision::TF32);
  FakeClock clock;
  SearchEnvironment env = s.environment(clock);
  env.compile = [](const RenderedKernel&) -> CompileOutcome {
    throw CompileError("nvrtcCompileProgram(...) failed: NVRTC_ERROR_BUILTIN_OPERATION_FAILURE", "");
  };
  env.make_bench = [&](const BenchSettings&) {
    return std::unique_ptr<CandidateBench>(std::make_unique<FakeBench>(clock, s.kernels, 0.01, 0));
  };
  EXPECT_THROW(run_tune_search(s.problem, env, budgeted(20)), CompileError);
  EXPECT_THROW(run_tune_search(s.problem, env, exhaustive()), CompileError);
}

TEST(TuneSearch, ABenchThatCannotStartAbortsTheRun) {
  const Scenario s(4096, 4096, 4096, Precision::TF32);
  FakeClock clock;
  SearchEnvironment env = s.environment(clock);
  env.compile = testing::fake_compile(clock, 0);
  env.make_bench = [](const BenchSettings&) -> std::unique_ptr<CandidateBench> {
    throw CudaError("cuInit(0) failed: CUDA_ERROR_NO_DEVICE", 100);
  };
  EXPECT_THROW(run_tune_search(s.problem, env, budgeted(20)), CudaError);
}

TEST(TuneSearch, TheSearchForABudget) {
  EXPECT_EQ(search_for_budget(0), TuneSearch::Exhaustive);
  EXPECT_EQ(search_for_budget(-1), TuneSearch::Exhaustive);
  EXPECT_EQ(search_for_budget(20), TuneSearch::Budgeted);
  EXPECT_EQ(TuneSettings{}.search, TuneSearch::Budgeted);
  EXPECT_EQ(TuneSettings{}.budget_s, 20);
}

}  // namespace
}  // namespace jitgemm
