// run_tune_search: rank and prune, compile in rank order while round 1 verifies and times each
// compiled candidate, later rounds of successive halving, the finalists, the winner (see
// tune_search.hpp and tuner.hpp).
#include "tune/tune_search.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <limits>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

#include "tune/candidate_ranking.hpp"
#include "tune/compile_queue.hpp"
#include "tune/successive_halving.hpp"

namespace jitgemm {
namespace {

constexpr double kPollS = 0.05;           // round 1 re-checks the budget this often while compiles run
constexpr double kMinWatchdogMs = 2000;   // a worker gives up on a request after max(this, 20x ...)
constexpr double kWatchdogFactor = 20;    // ... the time its launches take at the best median so far
constexpr double kGuessFactor = 1.5;      // before any candidate passed: cuBLAS's median times this
constexpr size_t kScreenedBeforeStopping = 3;  // round 1 screens at least this many before it may stop compiles

// The final round times its finalists in passes, each pass a share of the runs of every finalist
// in turn (A B C, A B C, ...), and pools each one's samples: a stretch where the GPU runs slow
// (warming up, power-capped, sharing the machine) then falls on every finalist alike, not on
// whichever was timed during it. One candidate after another, it could decide the winner: an
// H200 re-tune of symmetric_both tf32x3 timed its finalists about 15% slow and picked one that
// ran 1.243 ms in the bench, against 1.030 for the one it passed over.
constexpr int kFinalPasses = 5;

// The GPU's clock and power sampled while it lives (SearchEnvironment::record_gpu).
class GpuRecording {
 public:
  explicit GpuRecording(const std::function<void(bool)>& record) : record_(record) {
    if (record_) record_(true);
  }
  ~GpuRecording() {
    if (record_) record_(false);
  }
  GpuRecording(const GpuRecording&) = delete;
  GpuRecording& operator=(const GpuRecording&) = delete;

 private:
  const std::function<void(bool)>& record_;
};

// Each finalist's runs in one pass of a final round of `runs` runs (it gets at least `runs`).
int final_pass_runs(int runs) { return (runs + kFinalPasses - 1) / kFinalPasses; }

std::string excerpt(const std::string& log, size_t max = 400) {
  return log.size() <= max ? log : log.substr(0, max) + "...";
}

uint64_t fresh_seed(uint64_t seed) {
  return seed != 0 ? seed : static_cast<uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count());
}

// What the settings ask of the search.
struct SearchPlan {
  double budget_s = 0;     // 0: none
  double prune_ratio = 0;  // 0: none
  int first_warmup = 0;    // round 1's warm-up runs (after the verification launch)
  HalvingSettings halving;
  int jobs = 1;
};

SearchPlan plan_of(const TuneSettings& s) {
  const bool budgeted = s.search == TuneSearch::Budgeted;
  SearchPlan p;
  p.budget_s = budgeted ? std::max(0.0, s.budget_s) : 0;
  p.prune_ratio = budgeted ? s.prune_ratio : 0;
  p.first_warmup = budgeted ? std::min(1, s.warmup_runs) : s.warmup_runs;
  p.halving = {std::max(1, budgeted ? s.first_runs : s.screen_runs), std::max(1, s.finalists),
               std::max(1, s.timing_runs), budgeted};
  const int cores = std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
  p.jobs = s.jobs > 0 ? s.jobs : budgeted ? std::max(1, cores - 1) : cores;  // budgeted: a core for the bench
  return p;
}

// Progress reports from the compiling threads and the measuring one, one at a time, with the
// best verified time so far.
class ProgressReporter {
 public:
  ProgressReporter(const TuneProgressCallback& callback, const TuningBudget& budget)
      : callback_(callback), budget_(budget) {}
  void report(TuneProgress::Phase phase, size_t index, size_t total, const std::string& name, int round) {
    if (!callback_) return;
    std::lock_guard lock(mutex_);
    callback_({phase, index, total, name, best_ms_, best_name_, round, budget_.elapsed_s(), budget_.budget_s()});
  }
  void offer_best(double ms, const std::string& name) {
    std::lock_guard lock(mutex_);
    if (best_ms_ == 0 || ms < best_ms_) best_ms_ = ms, best_name_ = name;
  }

 private:
  const TuneProgressCallback& callback_;
  const TuningBudget& budget_;
  std::mutex mutex_;
  double best_ms_ = 0;
  std::string best_name_;
};

class SearchRun {
 public:
  SearchRun(const GemmProblem& problem, const SearchEnvironment& env, const TuneSettings& settings,
            const TuneProgressCallback& progress)
      : env_(env), settings_(settings), plan_(plan_of(settings)), budget_(plan_.budget_s, env.clock),
        report_(progress, budget_) {
    result_.problem = problem;
    result_.key = make_problem_key(problem);
  }

  TuneResult run() {
    const std::vector<size_t> order = rank();
    order_size_ = order.size();
    CompileQueue queue(env_.configs, order, env_.specialization, env_.compile, *env_.templates, plan_.jobs, env_.clock,
                       [this](size_t done, size_t kernels, const CompiledCandidate& c) {
                         report_.report(TuneProgress::Phase::Compiling, done, kernels, c.config.name(), 0);
                       });
    start_bench();
    screen_while_compiling(queue, order.size());
    record_left_out(queue, order);
    time_later_rounds(queue);
    finish(queue);
    return std::move(result_);
  }

 private:
  // Every candidate with its rank and estimate; the pruned get their outcome. The order to compile in.
  std::vector<size_t> rank() {
    const CandidateRanking ranking =
        rank_candidates(result_.key, env_.configs, env_.device, {plan_.prune_ratio, settings_.priors, env_.kept});
    result_.candidates.resize(env_.configs.size());
    samples_.resize(env_.configs.size());
    round_ends_.resize(env_.configs.size());
    pooled_ms_.resize(env_.configs.size());
    std::vector<size_t> order;
    for (const CandidateRank& r : ranking.order) {
      CandidateMeasurement& m = result_.candidates[r.index];
      if (r.assured) assured_.push_back(r.index);  // never pruned
      m.config = env_.configs[r.index];
      m.estimate_us = r.estimate_us;
      if (r.pruned) {
        m.outcome = CandidateOutcome::Pruned;
        m.detail = fmt::format("pruned: estimate {:.0f} us, {:.1f}x the best estimate of its family", r.estimate_us,
                               r.ratio);
        continue;
      }
      m.rank = static_cast<int>(order.size());
      order.push_back(r.index);
    }
    return order;
  }

  void start_bench() {
    const double start_s = budget_.now_s();
    bench_ = env_.make_bench({fresh_seed(settings_.seed), settings_.warmup_runs, settings_.timing_runs});
    const TuningInputs& inputs = bench_->inputs();
    result_.cublas_rel_error = inputs.cublas_rel_error;
    result_.tolerance = inputs.tolerance;
    result_.cublas_timing = inputs.cublas_timing;
    result_.times.setup_s = budget_.now_s() - start_s;
  }

  // Round 1: each compiled candidate as it arrives, best ranked first; compiles stop when the
  // budget cannot pay for what they would bring.
  void screen_while_compiling(CompileQueue& queue, size_t total) {
    bool stopped = false;
    for (;;) {
      if (!stopped && should_stop_compiling(queue)) {
        queue.stop_starting();
        stopped = true;
        compiles_stopped_s_ = budget_.elapsed_s();
        stop_reason_ = compile_stop_reason(queue);
      }
      if (const std::optional<size_t> i = queue.next(kPollS)) {
        take(*i, queue.candidate(*i), total);
      } else if (queue.done()) {
        break;
      }
    }
  }

  // A compiled candidate: a compile failure or spills is its outcome; a usable one is verified
  // and timed, when the budget pays for it.
  void take(size_t i, const CompiledCandidate& c, size_t total) {
    CandidateMeasurement& m = result_.candidates[i];
    m.resources = c.outcome.kernel.resources;
    if (result_.template_hash.empty()) result_.template_hash = c.rendered.template_hash;
    if (!c.outcome.ok) {
      m.outcome = CandidateOutcome::CompileFailed;
      m.detail = excerpt(c.outcome.log);
      return;
    }
    if (!c.usable()) {
      m.outcome = CandidateOutcome::Spills;
      m.detail = fmt::format("{} B spill stores, {} B spill loads, {} B stack", m.resources.spill_store_bytes,
                             m.resources.spill_load_bytes, m.resources.stack_bytes);
      return;
    }
    if (!contenders_.empty() && !assured(i) && !affordable(screen_cost_s())) {
      m.outcome = CandidateOutcome::OverBudget;
      m.detail = fmt::format("compiled, not timed: the {:g} s budget was spent ({:.1f} s gone)", plan_.budget_s,
                             budget_.elapsed_s());
      return;
    }
    report_.report(TuneProgress::Phase::Verifying, ++screened_, total, m.config.name(), 1);
    const BenchVerdict v = measure(i, c, MeasurePhase::Screen, plan_.first_warmup, plan_.halving.first_runs);
    m.outcome = v.outcome;
    m.timing = v.timing;
    m.rel_error = v.rel_error;
    m.detail = v.detail;
    m.rounds = 1;
    if (v.outcome != CandidateOutcome::Ok) return;
    add_samples(i, v.timing);
    contenders_.push_back(i);
    report_.offer_best(v.timing.median_ms, m.config.name());
  }

  // Every config of the order that never reached round 1: its compile never started.
  void record_left_out(const CompileQueue& queue, const std::vector<size_t>& order) {
    for (size_t rank = 0; rank < order.size(); ++rank) {
      CandidateMeasurement& m = result_.candidates[order[rank]];
      if (m.outcome != CandidateOutcome::Skipped) continue;
      m.outcome = CandidateOutcome::OverBudget;
      m.detail = queue.started(order[rank])
                     ? std::string("compiled, not timed")
                     : fmt::format("not compiled: the {:g} s budget stopped compiles after {:.1f} s (rank {} of {}; {})",
                                   plan_.budget_s, compiles_stopped_s_, rank + 1, order.size(), stop_reason_);
    }
  }

  // Rounds 2.. (tune/successive_halving.hpp) until a final round has a winner.
  void time_later_rounds(const CompileQueue& queue) {
    result_.rounds = contenders_.empty() ? 0 : 1;
    HalvingState state{1, plan_.halving.first_runs, false};
    while (!contenders_.empty()) {
      std::vector<Contender> contenders;
      for (size_t i : contenders_) contenders.push_back({i, pooled_ms_[i]});
      const HalvingRound round = next_halving_round(contenders, state, plan_.halving, budget_.remaining_s(),
                                                    [this](double ms, int runs) { return run_cost_s(ms, runs); });
      if (round.candidates.empty()) break;
      time_round(queue, round);
      result_.rounds = round.round;
      state = {round.round, round.runs, round.final};
      if (round.final && result_.winner >= 0) break;
      state.final = false;  // every finalist failed: the next fastest get a final round
    }
  }

  void time_round(const CompileQueue& queue, const HalvingRound& round) {
    if (round.final) return time_final_round(queue, round);
    const int warmup = std::min(1, settings_.warmup_runs);
    size_t timed = 0;
    for (size_t i : round.candidates) {
      report_.report(TuneProgress::Phase::Timing, ++timed, round.candidates.size(), result_.candidates[i].config.name(),
                     round.round);
      const std::optional<TimingStats> timing = retime(queue, round, i, warmup, round.runs);
      if (timing) add_samples(i, *timing);
    }
  }

  // The final round in kFinalPasses interleaved passes (see kFinalPasses): the warm-up in the
  // first, one warm-up run in each later one; a finalist's timing pools all its passes.
  void time_final_round(const CompileQueue& queue, const HalvingRound& round) {
    const GpuRecording recording(env_.record_gpu);
    std::vector<size_t> timed_in_turn = round.candidates;  // fastest first, as the round lists them
    std::map<size_t, TimingStats> pooled;
    const size_t requests = timed_in_turn.size() * kFinalPasses;
    size_t timed = 0;
    for (int pass = 0; pass < kFinalPasses; ++pass) {
      const int warmup = pass == 0 ? settings_.warmup_runs : std::min(1, settings_.warmup_runs);
      for (size_t i : std::vector<size_t>(timed_in_turn)) {
        report_.report(TuneProgress::Phase::Timing, ++timed, requests, result_.candidates[i].config.name(),
                       round.round);
        const std::optional<TimingStats> timing = retime(queue, round, i, warmup, final_pass_runs(round.runs));
        if (!timing) {
          std::erase(timed_in_turn, i);
          continue;
        }
        TimingStats& all = pooled[i];
        all.samples_ms.insert(all.samples_ms.end(), timing->samples_ms.begin(), timing->samples_ms.end());
        all.l2_flushed = (pass == 0 || all.l2_flushed) && timing->l2_flushed;
      }
    }
    for (size_t i : timed_in_turn) {
      CandidateMeasurement& m = result_.candidates[i];
      const bool flushed = pooled[i].l2_flushed;
      m.timing = summarize(std::move(pooled[i].samples_ms));
      m.timing.l2_flushed = flushed;
      report_.offer_best(m.timing.median_ms, m.config.name());
      if (result_.winner < 0 || m.timing.median_ms < result_.best()->timing.median_ms)
        result_.winner = static_cast<int>(i);
    }
    keep_incumbent(timed_in_turn);
  }

  // A re-tune (TuneSettings::incumbent among the finalists): the record's config keeps the win
  // unless the fastest finalist beats it by more than the margin.
  void keep_incumbent(const std::vector<size_t>& finalists) {
    if (!settings_.incumbent || result_.winner < 0) return;
    for (size_t i : finalists) {
      if (result_.candidates[i].config != *settings_.incumbent || static_cast<int>(i) == result_.winner) continue;
      const double record_ms = result_.candidates[i].timing.median_ms;
      CandidateMeasurement& fastest = result_.candidates[static_cast<size_t>(result_.winner)];
      const double ahead = 1 - fastest.timing.median_ms / record_ms;
      if (ahead > settings_.incumbent_margin) return;
      fastest.detail = fmt::format("{:.1f}% faster than the record's config {} in the final round; a re-tune "
                                   "replaces it only by more than {:g}%",
                                   100 * ahead, settings_.incumbent->name(), 100 * settings_.incumbent_margin);
      result_.winner = static_cast<int>(i);
      return;
    }
  }

  // One request of a later round for contender i: its timing, or nothing when it failed (then it
  // is out of the race, with its new outcome: it cannot win).
  std::optional<TimingStats> retime(const CompileQueue& queue, const HalvingRound& round, size_t i, int warmup,
                                    int runs) {
    CandidateMeasurement& m = result_.candidates[i];
    const BenchVerdict v =
        measure(i, queue.candidate(i), MeasurePhase::Retime, warmup, runs, round.final ? final_idle() : 0.0);
    m.rounds = round.round;
    m.finalist = m.finalist || round.final;
    if (v.outcome == CandidateOutcome::Ok) return v.timing;
    m.outcome = v.outcome;
    m.detail = v.detail;
    std::erase(contenders_, i);
    return std::nullopt;
  }

  // The candidates still in the race that were not finalists keep every run they had; the
  // winner names its template; the times.
  void finish(const CompileQueue& queue) {
    for (size_t i : contenders_) {
      CandidateMeasurement& m = result_.candidates[i];
      if (m.finalist) continue;
      m.timing = summarize(samples_[i]);
      if (result_.best() != nullptr && plan_.halving.halve)
        m.detail = fmt::format("timed in {} round(s), not a finalist: {:.2f}x the winner's median in those rounds",
                               m.rounds, m.timing.median_ms / winner_ms_in_rounds(round_ends_[i].size()));
    }
    if (result_.winner >= 0)
      result_.template_hash = queue.candidate(static_cast<size_t>(result_.winner)).rendered.template_hash;
    const CompileQueueStats stats = queue.stats();
    if (stats.finished > 0) {
      result_.times.compile_s = stats.last_finish_s - stats.first_start_s;
      result_.times.compile_cpu_s = stats.mean_compile_s * static_cast<double>(stats.finished);
    }
    result_.times.total_s = budget_.elapsed_s();
    report_.report(TuneProgress::Phase::Done, result_.candidates.size(), result_.candidates.size(), "", result_.rounds);
  }

  BenchVerdict measure(size_t i, const CompiledCandidate& c, MeasurePhase phase, int warmup, int runs,
                       double idle_ratio = 0) {
    MeasureRequest r{i, &c.config, &c.outcome.kernel, phase, warmup, runs, 0, idle_ratio};
    r.watchdog_ms = std::max(kMinWatchdogMs, kWatchdogFactor * best_known_ms() * run_lengths_of(r));
    const double start_s = budget_.now_s();
    const BenchVerdict v = bench_->measure(r);
    const double wall_s = budget_.now_s() - start_s;
    result_.times.measure_s += wall_s;
    if (v.outcome == CandidateOutcome::Ok)
      budget_.record_measure(wall_s, run_lengths_of(r), v.timing.median_ms, phase == MeasurePhase::Screen);
    return v;
  }

  // The winner's median over its runs of rounds 1 .. `rounds` (the rounds a candidate that was
  // not a finalist ran in): a comparison on the same footing, since the final round's runs come
  // later, when the GPU may run warmer or slower (H200: non-finalists once read 0.96x the
  // winner's final-round median, having lost to it in every round they ran).
  double winner_ms_in_rounds(size_t rounds) const {
    const size_t w = static_cast<size_t>(result_.winner);
    const std::vector<size_t>& ends = round_ends_[w];
    if (ends.empty() || rounds == 0) return result_.best()->timing.median_ms;
    const size_t end = ends[std::min(rounds, ends.size()) - 1];
    return summarize(std::vector<double>(samples_[w].begin(), samples_[w].begin() + static_cast<std::ptrdiff_t>(end)))
        .median_ms;
  }

  void add_samples(size_t i, const TimingStats& timing) {
    samples_[i].insert(samples_[i].end(), timing.samples_ms.begin(), timing.samples_ms.end());
    round_ends_[i].push_back(samples_[i].size());
    pooled_ms_[i] = samples_[i].empty() ? timing.median_ms : summarize(samples_[i]).median_ms;
  }

  double best_known_ms() const {
    double best = result_.cublas_timing.median_ms;
    for (size_t i : contenders_) best = std::min(best, pooled_ms_[i]);
    return best > 0 ? best : 1.0;
  }

  // A typical candidate's median: the middle one of those timed, else a guess from cuBLAS's.
  double guess_median_ms() const {
    if (contenders_.empty()) return kGuessFactor * std::max(result_.cublas_timing.median_ms, 1e-3);
    std::vector<double> medians;
    for (size_t i : contenders_) medians.push_back(pooled_ms_[i]);
    std::nth_element(medians.begin(), medians.begin() + static_cast<std::ptrdiff_t>(medians.size() / 2), medians.end());
    return medians[medians.size() / 2];
  }

  // Seconds to time a candidate of this median with `runs` runs in a round: one request (one
  // warm-up run and the verification a fresh worker makes), or in the final round its passes
  // (the warm-up in the first, one warm-up run in each other). These requests only time: they
  // are charged the timing requests' overhead, learned apart from round 1's, which verify (on a
  // large output that costs many times more). Charged a verification per request, the later
  // rounds' reserve outgrew a 20 s budget after the first candidate of a 4096^3 fp32 problem,
  // and the search timed 1 of 896 (H200).
  double run_cost_s(double median_ms, int runs) const {
    if (runs < plan_.halving.timing_runs) return budget_.retime_cost_s(median_ms, 1 + 1 + runs);
    const int per_pass = final_pass_runs(runs);
    const double runs_and_idle = per_pass * (1 + final_idle());
    return budget_.retime_cost_s(median_ms, 1 + settings_.warmup_runs + runs_and_idle) +
           (kFinalPasses - 1) * budget_.retime_cost_s(median_ms, 1 + std::min(1, settings_.warmup_runs) + runs_and_idle);
  }
  double final_idle() const { return std::max(0.0, settings_.final_round_idle); }
  double screen_cost_s() const {
    return budget_.measure_cost_s(guess_median_ms(), 1 + plan_.first_warmup + plan_.halving.first_runs);
  }

  // What the search keeps for its later rounds (tune/successive_halving.hpp): the contenders,
  // and guesses for those it expects, up to twice the finalists.
  double reserve_s() const {
    std::vector<Contender> contenders;
    for (size_t i : contenders_) contenders.push_back({i, pooled_ms_[i]});
    const double guess = guess_median_ms();
    for (size_t k = contenders.size(); k < 2 * static_cast<size_t>(plan_.halving.finalists); ++k)
      contenders.push_back({std::numeric_limits<size_t>::max() - k, guess});
    return halving_reserve_s(contenders, plan_.halving, [this](double ms, int runs) { return run_cost_s(ms, runs); });
  }

  bool assured(size_t i) const { return std::find(assured_.begin(), assured_.end(), i) != assured_.end(); }

  bool affordable(double cost_s) const {
    return !budget_.limited() || budget_.elapsed_s() + cost_s + reserve_s() <= budget_.budget_s();
  }

  // Stop starting compiles when what is under way and waiting (a compile's time, then timing
  // what it brings) and the later rounds would use up the budget; never before one passed and
  // kScreenedBeforeStopping were screened.
  bool should_stop_compiling(const CompileQueue& queue) const {
    // Not on the first screenings' costs alone: the first pays the worker's one-time costs.
    if (!budget_.limited() || contenders_.empty() || screened_ < kScreenedBeforeStopping) return false;
    for (size_t i : assured_)
      if (!queue.started(i)) return false;  // they come first in the order: a few more compiles at most
    const CompileQueueStats s = queue.stats();
    const double configs_per_kernel =
        s.kernels > 0 ? static_cast<double>(order_size_) / static_cast<double>(s.kernels) : 1.0;
    const double waiting = static_cast<double>(s.ready) + static_cast<double>(s.in_flight) * configs_per_kernel;
    return !affordable(s.mean_compile_s + waiting * screen_cost_s());
  }

  // The estimates that stopped the compiles, for the outcomes of those never started.
  std::string compile_stop_reason(const CompileQueue& queue) const {
    const CompileQueueStats s = queue.stats();
    return fmt::format("{} configs compiled and {} kernels compiling to screen at {:.3f} s a candidate, {:.2f} s kept for "
                       "the later rounds ({} contenders, {:.3f} s per timing request, {:.3f} s per verifying one)",
                       s.ready, s.in_flight, screen_cost_s(), reserve_s(), contenders_.size(),
                       budget_.retime_overhead_s(), budget_.overhead_s());
  }

  const SearchEnvironment& env_;
  const TuneSettings& settings_;
  const SearchPlan plan_;
  TuningBudget budget_;
  ProgressReporter report_;
  TuneResult result_;
  std::unique_ptr<CandidateBench> bench_;
  std::vector<std::vector<double>> samples_;  // every run of each candidate before the final round
  std::vector<double> pooled_ms_;             // their median
  std::vector<std::vector<size_t>> round_ends_;  // samples_[i].size() after each round it ran in
  std::vector<size_t> contenders_;            // verified, still in the race
  std::vector<size_t> assured_;               // priors and kept configs (a few): timed whatever the guesses say
  size_t order_size_ = 0;                     // candidates not pruned
  size_t screened_ = 0;
  double compiles_stopped_s_ = 0;
  std::string stop_reason_;
};

}  // namespace

TuneResult run_tune_search(const GemmProblem& problem, const SearchEnvironment& env, const TuneSettings& settings,
                           const TuneProgressCallback& progress) {
  return SearchRun(problem, env, settings, progress).run();
}

}  // namespace jitgemm
