// The launch API: a Runtime serves tuned kernels for GemmProblems on one device.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "jitgemm/backward.hpp"
#include "jitgemm/error.hpp"  // what every call here throws
#include "jitgemm/problem.hpp"

struct CUstream_st;  // the same type as cudaStream_t; nullptr is the default stream

namespace jitgemm {

struct RuntimeOptions {
  int device = 0;                    // CUDA device ordinal
  std::string database_path;         // empty: $JITGEMM_TUNING_DB, else the shipped tuning_db
  std::string cache_dir;             // empty: $JITGEMM_CACHE_DIR, else ~/.cache/jitgemm
  std::string template_dir;          // empty: $JITGEMM_TEMPLATE_DIR, else the embedded templates
};

// Which rule chose the kernel of a gemm call. Nearest includes the record of a sibling device
// (the same sm and SM count, e.g. an H200's for an H100 SXM) for exactly this problem, used when
// this device has none (the explanation's text says "sibling").
enum class ServeRule { Exact, Nearest, Default };

struct ServeCounters {
  uint64_t exact = 0;    // a record for this device and problem key
  uint64_t nearest = 0;  // the nearest record of the same kind (op, transposes, precision, alignment),
                         // or a sibling device's record of this problem
  uint64_t fallback = 0; // no usable record: the documented default heuristic
  uint64_t stale = 0;    // of the above, records whose environment differs (served, flagged)
};

// How Runtime::gemm serves a problem now (Runtime::explain): nothing is compiled or run.
struct ServeExplanation {
  ServeRule rule = ServeRule::Default;
  std::string kernel;   // the kernel config's name
  std::string record;   // the key of the record served; empty under the Default rule
  bool stale = false;   // the record's environment (driver, NVRTC, templates) differs from this machine's
  std::string text;     // problem, decision, kernel and staleness, one per line (as jitgemm-db explain)
};

struct TuneOptions {
  int jobs = 0;           // parallel NVRTC compiles; 0 = hardware threads
  int timing_runs = 25;   // median of this many event-timed runs (>= 20)
  // Seconds of wall time the tuning may take: candidates ranked by a performance model and
  // pruned, compiled while others are timed, successive halving to the finalists. 0: every
  // candidate compiled, verified and timed (the exhaustive search: about a minute cold).
  double budget_s = 20;
  bool write_database = true;
};

class Runtime;

// A launch plan for one problem (Runtime::plan): the serving decision, the loaded kernel, its
// geometry and workspace layout, worked out once, for callers that launch the same problem
// (sizes, leading dimensions, alpha, beta) many times. run() launches with no lookup, lock,
// formatting or allocation (for operands at 16-byte aligned addresses, as the plan assumes;
// other addresses are served as Runtime::gemm would, correctly but through its lookup). Copies
// share one plan; run() may be called from any number of threads at once, and inside a CUDA
// graph capture. Valid while its Runtime lives. A default-constructed plan is empty.
class GemmPlan {
 public:
  GemmPlan() = default;

  // C = alpha * op(A) * op(B) + beta * C for the plan's problem, as Runtime::gemm. Throws
  // InvalidArgument (null, misaligned or overlapping operands; an empty plan) / CudaError.
  void run(const float* a, const float* b, float* c, CUstream_st* stream = nullptr) const;

  const GemmProblem& problem() const;
  // The kernel config's name ("" for a problem that multiplies nothing).
  std::string kernel() const;
  explicit operator bool() const noexcept { return state_ != nullptr; }

 private:
  friend class Runtime;
  struct State;
  std::shared_ptr<const State> state_;
};

class Runtime {
 public:
  explicit Runtime(RuntimeOptions options = {});
  ~Runtime();
  Runtime(const Runtime&) = delete;
  Runtime& operator=(const Runtime&) = delete;
  Runtime(Runtime&&) noexcept;
  Runtime& operator=(Runtime&&) noexcept;

  // C = alpha * op(A) * op(B) + beta * C on `stream`, asynchronously. A, B, C are device
  // pointers. Untuned problems use the nearest tuned record or the default heuristic;
  // this never tunes. Throws InvalidArgument / NotSupported / CudaError.
  void gemm(const GemmProblem& problem, const float* a, const float* b, float* c,
            CUstream_st* stream = nullptr);

  // A reusable launch plan for `problem` (GemmPlan): selects and loads its kernel now (compiling
  // it if no cached binary exists), so the plan's first run costs no more than its last. Its
  // decision is fixed: a later tune of the problem is served by a new plan. Throws
  // InvalidArgument / NotSupported / CompileError / CudaError.
  GemmPlan plan(const GemmProblem& problem);

  // The gradients of the forward `problem` (jitgemm/backward.hpp): dA = d(loss)/dA and dB =
  // d(loss)/dB for the Model fill(alpha op(A) op(B)) given dC, on `stream`, asynchronously; each
  // is one or two forward products (backward_problems), served like gemm. dA is written stored
  // like A (lda), dB like B (ldb); beta is ignored (the Model's C is not an input). A null
  // gradient is not computed (both null: nothing happens). An input a computed product does not
  // read may be null (BLAS rules per product: M or N = 0 leaves dC unread, a skipped dA leaves B
  // unread). Throws InvalidArgument naming the argument (dC, A, B, dA, dB, project_a,
  // project_b) / NotSupported / CudaError.
  void gemm_backward(const GemmProblem& problem, const float* dc, const float* a, const float* b, float* da,
                     float* db, CUstream_st* stream = nullptr, const BackwardOptions& options = {});

  // Tunes `problem` on this device within options.budget_s (candidates ranked by a performance
  // model and pruned, compiled while others are verified against the float64 reference and
  // timed, successive halving to the finalists; budget 0: every candidate), stores the winner in
  // the database (its full candidate table in the history file) and serves it from now on, in
  // a new GemmPlan too (plans made before keep their kernel). A problem this device already has
  // a record of keeps that record's config unless a finalist beats it by more than 2% (a lead
  // that small has measured differently on the next machine). Returns the winner's median time
  // in milliseconds.
  double tune(const GemmProblem& problem, const TuneOptions& options = {});

  // The decision gemm would take for `problem` with operands at 256-byte aligned addresses (as
  // cuMemAlloc and PyTorch's allocator give); not counted in serve_counters. Throws
  // InvalidArgument / NotSupported as gemm does.
  ServeExplanation explain(const GemmProblem& problem) const;

  ServeCounters serve_counters() const;
  ServeRule last_serve_rule() const;
  std::string device_name() const;

 private:
  friend class GemmPlan;
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// "0.1.0"
std::string_view version() noexcept;

}  // namespace jitgemm
