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

uint64_t fresh_seed(uint64_t seed) {
  return seed != 0 ? seed : static_cast<uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count());
}

std::string excerpt(const std::string& log, size_t max = 400) {
  return log.size() <= max ? log : log.substr(0, max) + "...";
}

KernelSpecialization specialization_of(const ProblemKey& key) {
  return {key.trans_a, key.trans_b, key.vec_a, key.vec_b, key.vec_c};
}

}  // namespace

TuneResult tune_problem(const GemmProblem& problem, const cuda::DeviceInfo& device, const Compiler& compiler,
                        const TemplateStore& templates, const TuneSettings& settings,
                        const TuneProgressCallback& progress) {
  problem.validate("tune");
  TuneResult result;
  result.problem = problem;
  result.key = make_problem_key(problem);
  const KernelSpecialization spec = specialization_of(result.key);
  // tf32x3 / tf32 problems too small, skinny or long for the wgmma kernels to pay get the
  // mma.sync family of their mode too (tuning_candidates).
  std::vector<KernelConfig> configs =
      settings.candidates.empty() ? tuning_candidates(result.key) : settings.candidates;
  auto report = [&](TuneProgress::Phase phase, size_t index, const std::string& name, size_t total = 0) {
    if (!progress) return;
    const auto* best = result.best();
    progress({phase, index, total != 0 ? total : configs.size(), name, best ? best->timing.median_ms : 0.0,
              best ? best->config.name() : std::string()});
  };

  // 1. Compile every candidate in parallel; spills and failures are outcomes.
  auto compiled = compile_candidates(configs, spec, compiler, templates, settings.jobs,
                                     [&](size_t done, size_t kernels, const CompiledCandidate& c) {
                                       report(TuneProgress::Phase::Compiling, done, c.config.name(), kernels);
                                     });
  if (!compiled.empty()) result.template_hash = compiled.front().rendered.template_hash;

  // 2. Fresh random operands (padding NaN) and the float64 reference.
  const auto& cu = cuda::driver();
  cuda::Stream stream;
  Workspace ws(problem);
  SupportKernels support(compiler, templates);
  GemmLauncher launcher(compiler, templates, device.sm_count);
  const uint64_t seed = fresh_seed(settings.seed);
  // A symmetric operand is filled symmetric; once cuBLAS has used it (below), its upper
  // triangle becomes NaN: a candidate that reads it fails verification.
  const bool symmetric_a = problem.structure_a == Structure::Symmetric;
  const bool symmetric_b = problem.structure_b == Structure::Symmetric;
  const StoredShape stored_a = stored_shape_a(problem), stored_b = stored_shape_b(problem);
  support.fill_random(ws.a.get(), stored_a.rows, stored_a.cols, problem.effective_lda(), seed,
                      RandomKind::Uniform01, symmetric_a, NAN, stream.get());
  support.fill_random(ws.b.get(), stored_b.rows, stored_b.cols, problem.effective_ldb(),
                      seed + 1, RandomKind::Uniform01, symmetric_b, NAN, stream.get());
  support.widen_to_double(ws.a.get(), ws.a64.get(), stored_a.rows * problem.effective_lda(), stream.get());
  support.widen_to_double(ws.b.get(), ws.b64.get(), stored_b.rows * problem.effective_ldb(), stream.get());
  // Verification runs with beta = 0 on a NaN-poisoned C: an unwritten element stays NaN.
  GemmProblem verify_problem = problem;
  verify_problem.beta = 0.0f;
  CublasHandle cublas;
  cublas_dgemm(cublas, verify_problem, ws.a64.get(), ws.b64.get(), ws.c64.get(), stream.get());
  const int64_t c_elements = problem.m * problem.effective_ldc();
  auto check_output = [&] {
    return support.error_stats(ws.c.get(), problem.effective_ldc(), ws.c64.get(), problem.effective_ldc(), problem.m,
                               problem.n, ws.scratch.get(), stream.get());
  };

  // 3. cuBLAS on the same inputs: the accuracy contract and the speed baseline (SGEMM for
  //    fp32 and tf32x3, the TF32 tensor-core mode for tf32).
  const CublasMode baseline = cublas_baseline(problem.precision);
  support.fill_value(ws.c.get(), c_elements, NAN, stream.get());
  cublas_sgemm(cublas, verify_problem, ws.a.get(), ws.b.get(), ws.c.get(), stream.get(), baseline);
  result.cublas_rel_error = check_output().rel_error;
  result.tolerance = error_tolerance(problem.precision, result.cublas_rel_error);
  EventTimer timer(static_cast<size_t>(device.l2_bytes));
  result.cublas_timing = timer.time(
      [&](CUstream s) { cublas_sgemm(cublas, problem, ws.a.get(), ws.b.get(), ws.c.get(), s, baseline); },
      stream.get(),
      settings.warmup_runs, settings.timing_runs);
  if (symmetric_a) support.fill_upper_triangle(ws.a.get(), problem.m, problem.effective_lda(), NAN, stream.get());
  if (symmetric_b) support.fill_upper_triangle(ws.b.get(), problem.n, problem.effective_ldb(), NAN, stream.get());

  // 4. Verify, then screen (a few timed runs), every candidate that compiled without spills.
  std::vector<std::function<void(const GemmProblem&, CUstream)>> launchers(compiled.size());
  std::vector<CompiledModule> modules;
  modules.reserve(compiled.size());
  for (size_t i = 0; i < compiled.size(); ++i) {
    const CompiledCandidate& cand = compiled[i];
    CandidateMeasurement m;
    m.config = cand.config;
    m.resources = cand.outcome.kernel.resources;
    if (!cand.outcome.ok) {
      m.outcome = CandidateOutcome::CompileFailed;
      m.detail = excerpt(cand.outcome.log);
    } else if (!cand.usable()) {
      m.outcome = CandidateOutcome::Spills;
      m.detail = fmt::format("{} B spill stores, {} B spill loads, {} B stack", m.resources.spill_store_bytes,
                             m.resources.spill_load_bytes, m.resources.stack_bytes);
    } else {
      report(TuneProgress::Phase::Verifying, i + 1, cand.config.name());
      try {
        modules.push_back(load_module(cand.outcome.kernel, cand.rendered.kernel_name));
        const cuda::Function fn = modules.back().function;
        const size_t workspace_bytes = launcher.workspace_bytes(cand.config, problem);
        if (workspace_bytes > ws.workspace.size()) {
          JITGEMM_CU(cu.cuStreamSynchronize(stream.get()), "before growing the workspace");
          ws.workspace = cuda::DeviceBuffer(workspace_bytes);
        }
        const KernelConfig config = cand.config;
        launchers[i] = [&ws, &launcher, fn, config](const GemmProblem& p, CUstream s) {
          launcher.launch(fn, config, p, ws.a.get(), ws.b.get(), ws.c.get(), ws.workspace.get(), s);
        };
        support.fill_value(ws.c.get(), c_elements, NAN, stream.get());
        launchers[i](verify_problem, stream.get());
        const ErrorStats stats = check_output();
        m.rel_error = stats.rel_error;
        if (!stats.passes(result.tolerance)) {
          m.outcome = CandidateOutcome::WrongResult;
          m.detail = fmt::format("error {:.3g} (tolerance {:.3g}), {} unwritten, {} NaN/Inf mismatches",
                                 stats.rel_error, result.tolerance, stats.unwritten, stats.mismatched);
        } else {
          report(TuneProgress::Phase::Timing, i + 1, cand.config.name());
          m.timing = timer.time([&](CUstream s) { launchers[i](problem, s); }, stream.get(), settings.warmup_runs,
                                settings.screen_runs);
          m.outcome = CandidateOutcome::Ok;
        }
      } catch (const CudaError& e) {
        m.outcome = CandidateOutcome::LaunchFailed;
        m.detail = e.what();
      }
    }
    result.candidates.push_back(std::move(m));
  }

  // 5. The fastest few are timed again with the full run count; the best median wins.
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
    m.timing = timer.time([&](CUstream s) { launchers[i](problem, s); }, stream.get(), settings.warmup_runs,
                          settings.timing_runs);
    m.finalist = true;
    if (result.winner < 0 || m.timing.median_ms < result.best()->timing.median_ms) result.winner = static_cast<int>(i);
  }
  // The record's environment names the template that won (candidates may mix families).
  if (result.winner >= 0) result.template_hash = compiled[static_cast<size_t>(result.winner)].rendered.template_hash;
  JITGEMM_CU(cu.cuStreamSynchronize(stream.get()), "end of tuning {}", problem.to_string());
  report(TuneProgress::Phase::Done, configs.size(), "");
  return result;
}

}  // namespace jitgemm
