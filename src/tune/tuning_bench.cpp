// LocalBench: the operands, the float64 reference, the cuBLAS baseline and the candidates
// loaded in this process (see tuning_bench.hpp).
#include "tune/tuning_bench.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <functional>
#include <map>

#include "codegen/template_store.hpp"
#include "cuda/device_buffer.hpp"
#include "cuda/device_info.hpp"
#include "cuda/driver_api.hpp"
#include "cuda/stream.hpp"
#include "exec/compiled_module.hpp"
#include "exec/gemm_launch.hpp"
#include "jitgemm/error.hpp"
#include "problem/operand_structure.hpp"
#include "problem/problem_key.hpp"
#include "problem/stored_shape.hpp"
#include "tune/accuracy_contract.hpp"
#include "tune/cublas_reference.hpp"
#include "tune/support_kernels.hpp"

namespace jitgemm {
namespace {

// Device buffers of one tuning run: operands, output, their float64 copies, scratch.
struct Workspace {
  cuda::DeviceBuffer a, b, c, a64, b64, c64, scratch;
  cuda::DeviceBuffer workspace;  // split-K partials or TF32 planes, grown to the largest candidate's need
  explicit Workspace(const GemmProblem& p)
      : a(sizeof(float) * stored_shape_a(p).rows * p.effective_lda()),
        b(sizeof(float) * stored_shape_b(p).rows * p.effective_ldb()),
        c(sizeof(float) * p.m * p.effective_ldc()),
        a64(sizeof(double) * stored_shape_a(p).rows * p.effective_lda()),
        b64(sizeof(double) * stored_shape_b(p).rows * p.effective_ldb()),
        c64(sizeof(double) * p.m * p.effective_ldc()),
        scratch(64) {}
};

// A loaded candidate: its module, and how to launch it on the bench's buffers.
struct LoadedCandidate {
  CompiledModule module;
  std::function<void(const GemmProblem&, CUstream)> launch;
};

}  // namespace

int launches_of(const MeasureRequest& request) { return 1 + request.warmup_runs + request.runs; }
double run_lengths_of(const MeasureRequest& request) {
  return launches_of(request) + request.runs * request.idle_ratio;
}

bool is_context_fault(int code) noexcept {
  switch (code) {
    case CUDA_ERROR_ILLEGAL_ADDRESS:
    case CUDA_ERROR_LAUNCH_TIMEOUT:
    case CUDA_ERROR_HARDWARE_STACK_ERROR:
    case CUDA_ERROR_ILLEGAL_INSTRUCTION:
    case CUDA_ERROR_MISALIGNED_ADDRESS:
    case CUDA_ERROR_INVALID_ADDRESS_SPACE:
    case CUDA_ERROR_INVALID_PC:
    case CUDA_ERROR_LAUNCH_FAILED:
    case CUDA_ERROR_ECC_UNCORRECTABLE:
    case CUDA_ERROR_UNKNOWN:
      return true;
    default:
      return false;
  }
}

struct LocalBench::State {
  const GemmProblem problem;
  const GemmProblem verify_problem;  // beta = 0: verification runs on a NaN-poisoned C
  const ProblemKey key;              // of `problem` on the bench's aligned buffers
  const BenchSettings settings;
  cuda::Stream stream;
  Workspace ws;
  SupportKernels support;
  GemmLauncher launcher;
  CublasHandle cublas;
  EventTimer timer;
  TuningInputs inputs;
  std::map<size_t, LoadedCandidate> loaded;  // by request index
  bool context_lost = false;

  State(const GemmProblem& p, const cuda::DeviceInfo& device, const Compiler& compiler,
        const TemplateStore& templates, const BenchSettings& s)
      : problem(p),
        verify_problem([&] {
          GemmProblem v = p;
          v.beta = 0.0f;
          return v;
        }()),
        key(make_problem_key(p)),
        settings(s),
        ws(p),
        support(compiler, templates),
        launcher(compiler, templates, device.sm_count),
        timer(static_cast<size_t>(device.l2_bytes)) {
    prepare_inputs();
  }

  // C filled with NaN: after a beta = 0 launch an unwritten element is still NaN.
  void poison_c() { support.fill_value(ws.c.get(), problem.m * problem.effective_ldc(), NAN, stream.get()); }
  // NaN through the whole workspace: it is shared by the candidates, so a candidate that reads a
  // part its own pre-passes did not write in this call would otherwise find what an earlier one
  // left there (a dense copy, planes), and could pass verification on it.
  void poison_workspace() {
    const int64_t floats = static_cast<int64_t>(ws.workspace.size() / sizeof(float));
    if (floats > 0) support.fill_value(ws.workspace.get(), floats, NAN, stream.get());
  }
  // C against the float64 reference C64.
  ErrorStats check_c() {
    return support.error_stats(ws.c.get(), problem.effective_ldc(), ws.c64.get(), problem.effective_ldc(), problem.m,
                               problem.n, ws.scratch.get(), stream.get());
  }

  // Fresh random operands (padding NaN) and their float64 reference; cuBLAS on the same
  // inputs gives the accuracy contract and the speed baseline (SGEMM for fp32 and tf32x3, the
  // TF32 tensor-core mode for tf32). A symmetric operand is filled symmetric; once cuBLAS has
  // used it, its unread triangle becomes NaN: a candidate that reads it fails verification.
  void prepare_inputs() {
    CUstream s = stream.get();
    const StoredShape stored_a = stored_shape_a(problem), stored_b = stored_shape_b(problem);
    const int64_t lda = problem.effective_lda(), ldb = problem.effective_ldb(), ldc = problem.effective_ldc();
    support.fill_random(ws.a.get(), stored_a.rows, stored_a.cols, lda, settings.seed, RandomKind::Uniform01,
                        is_symmetric(problem.structure_a), NAN, s);
    support.fill_random(ws.b.get(), stored_b.rows, stored_b.cols, ldb, settings.seed + 1, RandomKind::Uniform01,
                        is_symmetric(problem.structure_b), NAN, s);
    // The reference and cuBLAS multiply the dense matrices the structured operands stand for.
    support.densify(ws.a.get(), stored_a.rows, stored_a.cols, lda, problem.structure_a, s);
    support.densify(ws.b.get(), stored_b.rows, stored_b.cols, ldb, problem.structure_b, s);
    support.widen_to_double(ws.a.get(), ws.a64.get(), stored_a.rows * lda, s);
    support.widen_to_double(ws.b.get(), ws.b64.get(), stored_b.rows * ldb, s);
    const GemmProblem dense = dense_problem(verify_problem);
    cublas_dgemm(cublas, dense, ws.a64.get(), ws.b64.get(), ws.c64.get(), s);
    support.apply_fill_f64(ws.c64.get(), problem.m, problem.n, ldc, problem.fill, s);

    const CublasMode baseline = cublas_baseline(problem.precision);
    poison_c();
    cublas_sgemm(cublas, dense, ws.a.get(), ws.b.get(), ws.c.get(), s, baseline);
    support.apply_fill(ws.c.get(), problem.m, problem.n, ldc, problem.fill, s);
    inputs.cublas_rel_error = check_c().rel_error;
    inputs.tolerance = error_tolerance(problem.precision, inputs.cublas_rel_error);
    const GemmProblem dense_timed = dense_problem(problem);  // with the caller's beta
    inputs.cublas_timing = timer.time(
        [&](CUstream t) { cublas_sgemm(cublas, dense_timed, ws.a.get(), ws.b.get(), ws.c.get(), t, baseline); }, s,
        settings.warmup_runs, settings.timing_runs);
    // Candidates never read what the structures leave unread: NaN there catches one that does.
    support.poison_unread(ws.a.get(), stored_a.rows, stored_a.cols, lda, problem.structure_a, NAN, s);
    support.poison_unread(ws.b.get(), stored_b.rows, stored_b.cols, ldb, problem.structure_b, NAN, s);
  }

  // Loads the candidate, gives it the workspace it needs and makes its launch function.
  LoadedCandidate& load(const MeasureRequest& r) {
    if (auto it = loaded.find(r.index); it != loaded.end()) return it->second;
    LoadedCandidate cand{load_module(*r.kernel, r.kernel->kernel_name), {}};
    const cuda::Function fn = cand.module.function;
    const LaunchPlan plan = launcher.plan(fn, *r.config, key);
    if (plan.workspace.total_bytes > ws.workspace.size()) {
      JITGEMM_CU(cuda::driver().cuStreamSynchronize(stream.get()), "before growing the workspace");
      ws.workspace = cuda::DeviceBuffer(plan.workspace.total_bytes);
    }
    cand.launch = [this, fn, plan](const GemmProblem& p, CUstream s) {
      launcher.launch(plan, p, fn, ws.a.get(), ws.b.get(), ws.c.get(), ws.workspace.get(), s);
    };
    return loaded.emplace(r.index, std::move(cand)).first->second;
  }

  // Verification on a NaN-poisoned C and workspace: Ok, or WrongResult with the error counts.
  BenchVerdict verify(const LoadedCandidate& cand) {
    BenchVerdict v;
    poison_c();
    poison_workspace();
    cand.launch(verify_problem, stream.get());
    const ErrorStats stats = check_c();
    v.rel_error = stats.rel_error;
    if (!stats.passes(inputs.tolerance)) {
      v.outcome = CandidateOutcome::WrongResult;
      v.detail = fmt::format("error {:.3g} (tolerance {:.3g}), {} unwritten, {} NaN/Inf mismatches", stats.rel_error,
                             inputs.tolerance, stats.unwritten, stats.mismatched);
    }
    return v;
  }

  BenchVerdict measure(const MeasureRequest& r) {
    if (context_lost) {
      return {CandidateOutcome::LaunchFailed, {}, 0,
              "not run: an earlier candidate's fault left this process's CUDA context unusable"};
    }
    const bool first_sight = !loaded.contains(r.index);
    try {
      LoadedCandidate& cand = load(r);
      // A candidate timed again is verified again when this bench has not seen it (a fresh worker).
      BenchVerdict v = r.phase == MeasurePhase::Screen || first_sight ? verify(cand) : BenchVerdict{};
      if (v.outcome != CandidateOutcome::Ok) return v;
      v.timing = timer.time([&](CUstream s) { cand.launch(problem, s); }, stream.get(), std::max(0, r.warmup_runs),
                            std::max(1, r.runs), r.idle_ratio);
      return v;
    } catch (const CudaError& e) {
      // A fault is sticky: the context is lost whatever the code says when it cannot sync.
      const bool fault = is_context_fault(e.code());
      context_lost = fault || cuda::driver().cuCtxSynchronize() != CUDA_SUCCESS;
      return {fault ? CandidateOutcome::Faulted : CandidateOutcome::LaunchFailed, {}, 0, e.what()};
    }
  }
};

LocalBench::LocalBench(const GemmProblem& problem, const cuda::DeviceInfo& device, const Compiler& compiler,
                       const TemplateStore& templates, const BenchSettings& settings)
    : state_(std::make_unique<State>(problem, device, compiler, templates, settings)) {}

LocalBench::~LocalBench() = default;

const TuningInputs& LocalBench::inputs() const { return state_->inputs; }

BenchVerdict LocalBench::measure(const MeasureRequest& request) { return state_->measure(request); }

bool LocalBench::context_lost() const noexcept { return state_->context_lost; }

}  // namespace jitgemm
