#include "tune/tuner.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>

#include "codegen/candidate_space.hpp"
#include "cuda/device_info.hpp"
#include "jitgemm/error.hpp"
#include "problem/gemm_work.hpp"
#include "tune/candidate_compiler.hpp"
#include "tune/tuning_bench.hpp"
#include "tune/worker_bench.hpp"

namespace jitgemm {
namespace {

// Progress reports, with the best verified time so far.
struct ProgressReporter {
  const TuneProgressCallback& callback;
  const TuneResult& result;
  size_t candidate_count;
  void operator()(TuneProgress::Phase phase, size_t index, const std::string& name, size_t total = 0) const {
    if (!callback) return;
    const auto* best = result.best();
    callback({phase, index, total != 0 ? total : candidate_count, name, best ? best->timing.median_ms : 0.0,
              best ? best->config.name() : std::string()});
  }
};

uint64_t fresh_seed(uint64_t seed) {
  return seed != 0 ? seed : static_cast<uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count());
}

std::string excerpt(const std::string& log, size_t max = 400) {
  return log.size() <= max ? log : log.substr(0, max) + "...";
}

// How long a worker may take over one request: max(2 s, 20x the time its launches would
// take at the best median so far (cuBLAS's before any candidate passed)).
struct Watchdog {
  const TuneResult& result;
  const BenchSettings& settings;
  double ms(MeasurePhase phase) const {
    double best = result.cublas_timing.median_ms;
    for (const CandidateMeasurement& m : result.candidates)
      if (m.outcome == CandidateOutcome::Ok && m.timing.median_ms > 0) best = std::min(best, m.timing.median_ms);
    return std::max(2000.0, 20.0 * best * launches_of(phase, settings));
  }
};

// Phase (b), for one candidate: a compile failure or spills is its outcome; a usable one
// is verified against the float64 reference and, when it passes, screened (the bench's
// Screen phase).
CandidateMeasurement verify_and_screen(size_t index, const CompiledCandidate& cand, CandidateBench& bench,
                                       const Watchdog& watchdog, const ProgressReporter& report) {
  CandidateMeasurement m;
  m.config = cand.config;
  m.resources = cand.outcome.kernel.resources;
  if (!cand.outcome.ok) {
    m.outcome = CandidateOutcome::CompileFailed;
    m.detail = excerpt(cand.outcome.log);
    return m;
  }
  if (!cand.usable()) {
    m.outcome = CandidateOutcome::Spills;
    m.detail = fmt::format("{} B spill stores, {} B spill loads, {} B stack", m.resources.spill_store_bytes,
                           m.resources.spill_load_bytes, m.resources.stack_bytes);
    return m;
  }
  report(TuneProgress::Phase::Verifying, index + 1, cand.config.name());
  const BenchVerdict v = bench.measure(
      {index, &cand.config, &cand.outcome.kernel, MeasurePhase::Screen, watchdog.ms(MeasurePhase::Screen)});
  m.outcome = v.outcome;
  m.timing = v.timing;
  m.rel_error = v.rel_error;
  m.detail = v.detail;
  return m;
}

// Phase (c): the fastest few screened candidates (settings.finalists) are timed again with
// settings.timing_runs; the best median is result.winner. A finalist that now fails keeps
// its new outcome and cannot win.
void select_winner(TuneResult& result, const std::vector<CompiledCandidate>& compiled, CandidateBench& bench,
                   const Watchdog& watchdog, const TuneSettings& settings, const ProgressReporter& report) {
  std::vector<size_t> order;
  for (size_t i = 0; i < result.candidates.size(); ++i)
    if (result.candidates[i].outcome == CandidateOutcome::Ok) order.push_back(i);
  std::sort(order.begin(), order.end(), [&](size_t x, size_t y) {
    return result.candidates[x].timing.median_ms < result.candidates[y].timing.median_ms;
  });
  order.resize(std::min(order.size(), static_cast<size_t>(std::max(1, settings.finalists))));
  for (size_t i : order) {
    CandidateMeasurement& m = result.candidates[i];
    report(TuneProgress::Phase::Timing, i + 1, m.config.name());
    const BenchVerdict v = bench.measure(
        {i, &compiled[i].config, &compiled[i].outcome.kernel, MeasurePhase::Final, watchdog.ms(MeasurePhase::Final)});
    m.finalist = true;
    if (v.outcome != CandidateOutcome::Ok) {
      m.outcome = v.outcome;
      m.detail = v.detail;
      continue;
    }
    m.timing = v.timing;
    if (result.winner < 0 || m.timing.median_ms < result.best()->timing.median_ms) result.winner = static_cast<int>(i);
  }
}

}  // namespace

void check_tunable(const GemmProblem& problem, std::string_view where) {
  problem.validate(where);
  if (gemm_work(problem) != GemmWork::Product)
    throw InvalidArgument(fmt::format("{}: {} multiplies nothing (M, N or K is 0, or alpha is 0): there is nothing "
                                      "to tune",
                                      where, problem.to_string()));
}

TuneResult tune_problem(const GemmProblem& problem, const cuda::DeviceInfo& device, const Compiler& compiler,
                        const TemplateStore& templates, const TuneSettings& settings,
                        const TuneProgressCallback& progress) {
  check_tunable(problem, "tune");
  TuneResult result;
  result.problem = problem;
  result.key = make_problem_key(problem);
  // tf32x3 / tf32 problems too small, skinny or long for the wgmma kernels to pay get the
  // mma.sync family of their mode too (tuning_candidates).
  const std::vector<KernelConfig> configs =
      settings.candidates.empty() ? tuning_candidates(result.key) : settings.candidates;
  const ProgressReporter report{progress, result, configs.size()};

  // Compile every candidate in parallel; render and compile failures and spills are outcomes.
  const auto compiled = compile_candidates(configs, specialization_of(result.key), compiler, templates, settings.jobs,
                                           [&](size_t done, size_t kernels, const CompiledCandidate& c) {
                                             report(TuneProgress::Phase::Compiling, done, c.config.name(), kernels);
                                           });
  if (!compiled.empty()) result.template_hash = compiled.front().rendered.template_hash;

  const BenchSettings bench_settings{fresh_seed(settings.seed), settings.warmup_runs, settings.screen_runs,
                                     settings.timing_runs};
  const std::unique_ptr<CandidateBench> bench =
      settings.isolation == TuneIsolation::Worker
          ? make_worker_bench(problem, device, compiler, templates, bench_settings)
          : std::unique_ptr<CandidateBench>(
                std::make_unique<LocalBench>(problem, device, compiler, templates, bench_settings));
  const TuningInputs& inputs = bench->inputs();
  result.cublas_rel_error = inputs.cublas_rel_error;
  result.tolerance = inputs.tolerance;
  result.cublas_timing = inputs.cublas_timing;

  const Watchdog watchdog{result, bench_settings};
  result.candidates.reserve(compiled.size());
  for (size_t i = 0; i < compiled.size(); ++i)
    result.candidates.push_back(verify_and_screen(i, compiled[i], *bench, watchdog, report));

  select_winner(result, compiled, *bench, watchdog, settings, report);
  // The record's environment names the template that won (candidates may mix families).
  if (result.winner >= 0) result.template_hash = compiled[static_cast<size_t>(result.winner)].rendered.template_hash;
  report(TuneProgress::Phase::Done, configs.size(), "");
  return result;
}

}  // namespace jitgemm
