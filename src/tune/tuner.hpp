// The tuning loop for one problem: candidates -> parallel compile -> verify each against
// the float64 reference -> time the survivors -> winner. Reports progress through a
// callback and returns measurements; it prints nothing and writes no files.
//
// Two searches (TuneSearch). Budgeted (the default) ranks the candidates with a performance
// model (tune/candidate_ranking.hpp) and prunes those it says cannot win, compiles in rank
// order while the calling thread verifies and times each compiled candidate (round 1, a few
// runs), then keeps the faster half with twice the runs round after round until the finalists
// get timing_runs (tune/successive_halving.hpp), all within budget_s of wall time from the
// call. Exhaustive compiles, verifies and screens every candidate (screen_runs), then times
// the fastest `finalists` with timing_runs. Either way every candidate timed is verified
// against float64 first, the best final median wins, and every candidate ends with an outcome
// saying what happened to it (pruned and over_budget for those the budget left out).
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "codegen/kernel_config.hpp"
#include "compile/resource_report.hpp"
#include "cuda/gpu_telemetry.hpp"
#include "jitgemm/problem.hpp"
#include "problem/problem_key.hpp"
#include "tune/candidate_outcome.hpp"
#include "tune/event_timer.hpp"

namespace jitgemm {

class Compiler;
class TemplateStore;
namespace cuda { struct DeviceInfo; }

struct CandidateMeasurement {
  KernelConfig config;
  CandidateOutcome outcome = CandidateOutcome::Skipped;
  TimingStats timing;  // every run before the final round, or the final round's for finalists
  bool finalist = false;
  double rel_error = 0;
  ResourceUsage resources;
  std::string detail;     // compile log excerpt, error count, launch error, why it was left out...
  int rank = -1;          // position in the search's order (0: compiled first); -1: pruned
  double estimate_us = 0; // the performance model's estimate (tune/performance_model.hpp)
  int rounds = 0;         // timing rounds it took part in
};

// Where a tuning run's wall time went (seconds). Compiling overlaps measuring in the
// budgeted search, so the parts add up to more than total_s.
struct TuneTimes {
  double setup_s = 0;     // starting the bench: worker, operands, float64 reference, cuBLAS
  double compile_s = 0;   // from the first compile's start to the last one's end
  double compile_cpu_s = 0;  // the compiles' wall seconds summed over the threads
  double measure_s = 0;   // in the bench's verifications and timings
  double total_s = 0;     // the whole tune_problem
};

struct TuneResult {
  GemmProblem problem;
  ProblemKey key;
  std::vector<CandidateMeasurement> candidates;
  int winner = -1;  // index into candidates; -1 when none passed
  TimingStats cublas_timing;
  double cublas_rel_error = 0;
  double tolerance = 0;
  std::string template_hash;  // of the winner's template (else the first candidate's)
  TuneTimes times;
  int rounds = 0;             // timing rounds: 1 the screening, the last one the finalists
  // The GPU while the final round ran (NVML; samples = 0 without it): a round slowed by the
  // power cap or heat times every finalist slow, and configs far apart on a cool card can then
  // read alike (describe_slowdown says so).
  GpuConditions final_round_gpu;
  const CandidateMeasurement* best() const { return winner >= 0 ? &candidates[static_cast<size_t>(winner)] : nullptr; }
};

// Where candidates run. Worker (the default): in worker processes (jitgemm-tune-worker) that
// a faulting or hanging candidate may take down; the caller's process and CUDA context never
// run one. InProcess: in the caller's current context (kernel development, debuggers); a
// faulting candidate then ends the run.
enum class TuneIsolation { Worker, InProcess };

// Budgeted: ranked, pruned, pipelined, successive halving within budget_s. Exhaustive: every
// candidate compiled, verified and screened (what tuning did before the budget; for comparisons).
enum class TuneSearch { Exhaustive, Budgeted };

struct TuneSettings {
  int jobs = 0;             // parallel compiles; 0 = hardware threads (Budgeted: one less, for the bench)
  int warmup_runs = 3;      // before the finalists' runs (Exhaustive: before every timing)
  int screen_runs = 5;      // Exhaustive: every verified candidate, median of these
  int first_runs = 2;       // Budgeted: round 1, every verified candidate (after one warm-up run)
  int finalists = 8;        // timed with timing_runs at the end
  int timing_runs = 25;     // median of these (>= 20) decides the winner
  // After each timed run of the final round the GPU is left idle this many times the run's
  // time (0: back to back). Timed back to back, tf32x3 finalists held an H200 at its 700 W
  // power cap (SM clock 1650-1920 MHz against 1980) and ranked as they do not run on a card
  // that is not held there (README, "Budgeted tuning").
  double final_round_idle = 1.0;
  uint64_t seed = 0;        // 0: fresh from the clock
  TuneIsolation isolation = TuneIsolation::Worker;
  TuneSearch search = TuneSearch::Budgeted;
  double budget_s = 20;     // Budgeted: wall seconds for the whole call; <= 0: no limit
  double prune_ratio = 2;   // Budgeted: never compile what the model estimates at more than this
                            // many times the best of its family (<= 0: prune nothing)
  // Candidates to try; empty: the problem's full candidate space.
  std::vector<KernelConfig> candidates;
  // The configs of the nearest tuned records of this problem's kind, best first: the budgeted
  // search tries those among the candidates (as given, or adapted to the problem) first and
  // never prunes them.
  std::vector<KernelConfig> priors;
  // A re-tune: the config of this problem's own record on this device. Where it reaches the
  // final round, it keeps the win unless a finalist's median is more than incumbent_margin
  // below its own: smaller differences move between machines of one kind (H100, 2048^3 fp32:
  // a challenger 0.5% ahead in one machine's re-tune ran 5% behind on two others).
  std::optional<KernelConfig> incumbent;
  double incumbent_margin = 0.02;
};

// What a TuneOptions::budget_s or `jitgemm-tune --budget` asks for: <= 0 the exhaustive search,
// otherwise the budgeted one (with TuneSettings::budget_s = budget_s).
TuneSearch search_for_budget(double budget_s) noexcept;

struct TuneProgress {
  enum class Phase { Compiling, Verifying, Timing, Done } phase;
  size_t index = 0, total = 0;
  std::string candidate;       // config name
  double best_ms = 0;          // best verified time so far (0: none yet)
  std::string best_candidate;
  int round = 0;               // Verifying: 1; Timing: the halving round (0 while compiling)
  double elapsed_s = 0;        // since the call
  double budget_s = 0;         // 0: none
};
using TuneProgressCallback = std::function<void(const TuneProgress&)>;

// Throws InvalidArgument (prefixed by `where`) unless `problem` is valid and multiplies
// something: M, N, K >= 1 and alpha != 0 (an empty product or C = beta * C has nothing to tune).
void check_tunable(const GemmProblem& problem, std::string_view where);

// Compiles in the calling process; verifies and times as settings.isolation says (InProcess:
// on the current context, which the caller makes current). A candidate that fails in any way
// is recorded with its outcome; a broken environment (no device, no NVRTC, no worker
// executable) throws. tune/tune_search.hpp runs the same loop with its parts passed in.
TuneResult tune_problem(const GemmProblem& problem, const cuda::DeviceInfo& device, const Compiler& compiler,
                        const TemplateStore& templates, const TuneSettings& settings,
                        const TuneProgressCallback& progress = {});

}  // namespace jitgemm
