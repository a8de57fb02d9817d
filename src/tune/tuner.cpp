#include "tune/tuner.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>

#include "codegen/candidate_space.hpp"
#include "codegen/template_store.hpp"
#include "cuda/device_buffer.hpp"
#include "cuda/device_info.hpp"
#include "cuda/driver_api.hpp"
#include "cuda/module.hpp"
#include "cuda/stream.hpp"
#include "exec/compiled_module.hpp"
#include "exec/gemm_launch.hpp"
#include "jitgemm/error.hpp"
#include "problem/gemm_work.hpp"
#include "problem/operand_structure.hpp"
#include "problem/stored_shape.hpp"
#include "tune/accuracy_contract.hpp"
#include "tune/candidate_compiler.hpp"
#include "tune/cublas_reference.hpp"
#include "tune/support_kernels.hpp"

namespace jitgemm {
namespace {

// Device buffers of one tuning run: operands, output, their float64 copies, scratch.
struct Workspace {
  cuda::DeviceBuffer a, b, c, a64, b64, c64, scratch;
  cuda::DeviceBuffer workspace;  // split-K partials or TF32 planes, grown to the largest candidate's need
  Workspace(const GemmProblem& p)
      : a(sizeof(float) * stored_shape_a(p).rows * p.effective_lda()),
        b(sizeof(float) * stored_shape_b(p).rows * p.effective_ldb()),
        c(sizeof(float) * p.m * p.effective_ldc()),
        a64(sizeof(double) * stored_shape_a(p).rows * p.effective_lda()),
        b64(sizeof(double) * stored_shape_b(p).rows * p.effective_ldb()),
        c64(sizeof(double) * p.m * p.effective_ldc()),
        scratch(64) {}
};

// The device objects the phases of one tuning run share.
struct TuningBench {
  const GemmProblem& problem;
  const ProblemKey& key;  // of `problem` on the bench's aligned buffers
  cuda::Stream stream;
  Workspace ws;
  SupportKernels support;
  GemmLauncher launcher;
  CublasHandle cublas;
  EventTimer timer;

  TuningBench(const GemmProblem& p, const ProblemKey& k, const cuda::DeviceInfo& device, const Compiler& compiler,
              const TemplateStore& templates)
      : problem(p),
        key(k),
        ws(p),
        support(compiler, templates),
        launcher(compiler, templates, device.sm_count),
        timer(static_cast<size_t>(device.l2_bytes)) {}

  // C filled with NaN: after a beta = 0 launch an unwritten element is still NaN.
  void poison_c() { support.fill_value(ws.c.get(), problem.m * problem.effective_ldc(), NAN, stream.get()); }
  // C against the float64 reference C64.
  ErrorStats check_c() {
    return support.error_stats(ws.c.get(), problem.effective_ldc(), ws.c64.get(), problem.effective_ldc(), problem.m,
                               problem.n, ws.scratch.get(), stream.get());
  }
};

// What every candidate is checked and timed against.
struct TuningInputs {
  GemmProblem verify_problem;  // beta = 0: verification runs on a NaN-poisoned C
  double cublas_rel_error = 0;
  double tolerance = 0;
  TimingStats cublas_timing;
};

// How to launch each loaded candidate (by candidate index; empty: never loaded), and the
// modules that keep their kernels alive.
struct LoadedCandidates {
  std::vector<CompiledModule> modules;
  std::vector<std::function<void(const GemmProblem&, CUstream)>> launch;
};

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

// Phase (a): fresh random operands (padding NaN) and their float64 reference; cuBLAS on the
// same inputs gives the accuracy contract and the speed baseline (SGEMM for fp32 and tf32x3,
// the TF32 tensor-core mode for tf32). A symmetric operand is filled symmetric; once cuBLAS
// has used it, its upper triangle becomes NaN: a candidate that reads it fails verification.
TuningInputs prepare_inputs(TuningBench& bench, const TuneSettings& settings) {
  const GemmProblem& problem = bench.problem;
  Workspace& ws = bench.ws;
  CUstream stream = bench.stream.get();
  const uint64_t seed = fresh_seed(settings.seed);
  const StoredShape stored_a = stored_shape_a(problem), stored_b = stored_shape_b(problem);
  const int64_t lda = problem.effective_lda(), ldb = problem.effective_ldb();
  bench.support.fill_random(ws.a.get(), stored_a.rows, stored_a.cols, lda, seed, RandomKind::Uniform01,
                            is_symmetric(problem.structure_a), NAN, stream);
  bench.support.fill_random(ws.b.get(), stored_b.rows, stored_b.cols, ldb, seed + 1, RandomKind::Uniform01,
                            is_symmetric(problem.structure_b), NAN, stream);
  // The reference and cuBLAS multiply the dense matrices the structured operands stand for.
  bench.support.densify(ws.a.get(), stored_a.rows, stored_a.cols, lda, problem.structure_a, stream);
  bench.support.densify(ws.b.get(), stored_b.rows, stored_b.cols, ldb, problem.structure_b, stream);
  bench.support.widen_to_double(ws.a.get(), ws.a64.get(), stored_a.rows * lda, stream);
  bench.support.widen_to_double(ws.b.get(), ws.b64.get(), stored_b.rows * ldb, stream);
  TuningInputs inputs;
  inputs.verify_problem = problem;
  inputs.verify_problem.beta = 0.0f;
  const GemmProblem dense = dense_problem(inputs.verify_problem);
  const int64_t ldc = problem.effective_ldc();
  cublas_dgemm(bench.cublas, dense, ws.a64.get(), ws.b64.get(), ws.c64.get(), stream);
  bench.support.apply_fill_f64(ws.c64.get(), problem.m, problem.n, ldc, problem.fill, stream);

  const CublasMode baseline = cublas_baseline(problem.precision);
  bench.poison_c();
  cublas_sgemm(bench.cublas, dense, ws.a.get(), ws.b.get(), ws.c.get(), stream, baseline);
  bench.support.apply_fill(ws.c.get(), problem.m, problem.n, ldc, problem.fill, stream);
  inputs.cublas_rel_error = bench.check_c().rel_error;
  inputs.tolerance = error_tolerance(problem.precision, inputs.cublas_rel_error);
  const GemmProblem dense_timed = dense_problem(problem);  // with the caller's beta
  inputs.cublas_timing = bench.timer.time(
      [&](CUstream s) { cublas_sgemm(bench.cublas, dense_timed, ws.a.get(), ws.b.get(), ws.c.get(), s, baseline); },
      stream, settings.warmup_runs, settings.timing_runs);
  // Candidates never read what the structures leave unread: NaN there catches one that does.
  bench.support.poison_unread(ws.a.get(), stored_a.rows, stored_a.cols, lda, problem.structure_a, NAN, stream);
  bench.support.poison_unread(ws.b.get(), stored_b.rows, stored_b.cols, ldb, problem.structure_b, NAN, stream);
  return inputs;
}

// Phase (b), for one candidate: a compile failure or spills is its outcome; a usable one is
// loaded, gets the workspace it needs, runs once on a NaN-poisoned C and is checked against
// the reference, and when it passes is screened (timed with settings.screen_runs). Fills
// loaded.launch[index] once the candidate is loaded.
CandidateMeasurement verify_and_screen(size_t index, const CompiledCandidate& cand, TuningBench& bench,
                                       const TuningInputs& inputs, const TuneSettings& settings,
                                       LoadedCandidates& loaded, const ProgressReporter& report) {
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
  try {
    loaded.modules.push_back(load_module(cand.outcome.kernel, cand.rendered.kernel_name));
    const cuda::Function fn = loaded.modules.back().function;
    const LaunchPlan plan = bench.launcher.plan(fn, cand.config, bench.key);
    if (plan.workspace.total_bytes > bench.ws.workspace.size()) {
      JITGEMM_CU(cuda::driver().cuStreamSynchronize(bench.stream.get()), "before growing the workspace");
      bench.ws.workspace = cuda::DeviceBuffer(plan.workspace.total_bytes);
    }
    auto& launch = loaded.launch[index];
    launch = [&ws = bench.ws, &launcher = bench.launcher, fn, plan](const GemmProblem& p, CUstream s) {
      launcher.launch(plan, p, fn, ws.a.get(), ws.b.get(), ws.c.get(), ws.workspace.get(), s);
    };
    bench.poison_c();
    launch(inputs.verify_problem, bench.stream.get());
    const ErrorStats stats = bench.check_c();
    m.rel_error = stats.rel_error;
    if (!stats.passes(inputs.tolerance)) {
      m.outcome = CandidateOutcome::WrongResult;
      m.detail = fmt::format("error {:.3g} (tolerance {:.3g}), {} unwritten, {} NaN/Inf mismatches", stats.rel_error,
                             inputs.tolerance, stats.unwritten, stats.mismatched);
      return m;
    }
    report(TuneProgress::Phase::Timing, index + 1, cand.config.name());
    m.timing = bench.timer.time([&](CUstream s) { launch(bench.problem, s); }, bench.stream.get(),
                                settings.warmup_runs, settings.screen_runs);
    m.outcome = CandidateOutcome::Ok;
  } catch (const CudaError& e) {
    m.outcome = CandidateOutcome::LaunchFailed;
    m.detail = e.what();
  }
  return m;
}

// Phase (c): the fastest few screened candidates (settings.finalists) are timed again with
// settings.timing_runs; the best median is result.winner.
void select_winner(TuneResult& result, TuningBench& bench, const LoadedCandidates& loaded,
                   const TuneSettings& settings, const ProgressReporter& report) {
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
    m.timing = bench.timer.time([&](CUstream s) { loaded.launch[i](bench.problem, s); }, bench.stream.get(),
                                settings.warmup_runs, settings.timing_runs);
    m.finalist = true;
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

  TuningBench bench(problem, result.key, device, compiler, templates);
  const TuningInputs inputs = prepare_inputs(bench, settings);
  result.cublas_rel_error = inputs.cublas_rel_error;
  result.tolerance = inputs.tolerance;
  result.cublas_timing = inputs.cublas_timing;

  LoadedCandidates loaded;
  loaded.modules.reserve(compiled.size());
  loaded.launch.resize(compiled.size());
  for (size_t i = 0; i < compiled.size(); ++i)
    result.candidates.push_back(verify_and_screen(i, compiled[i], bench, inputs, settings, loaded, report));

  select_winner(result, bench, loaded, settings, report);
  // The record's environment names the template that won (candidates may mix families).
  if (result.winner >= 0) result.template_hash = compiled[static_cast<size_t>(result.winner)].rendered.template_hash;
  JITGEMM_CU(cuda::driver().cuStreamSynchronize(bench.stream.get()), "end of tuning {}", problem.to_string());
  report(TuneProgress::Phase::Done, configs.size(), "");
  return result;
}

}  // namespace jitgemm
