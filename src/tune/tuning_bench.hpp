// Where tuning candidates are verified and timed. A CandidateBench owns one problem's
// operands, their float64 reference and the cuBLAS baseline (TuningInputs), and measures
// compiled candidates on them one request at a time, each request saying how many warm-up and
// timed runs it wants:
//   Screen  load the kernel, run it once on a NaN-poisoned C, check it against the float64
//           reference and, when it passes, time it;
//   Retime  time it again (a later round of the search, or a finalist); a bench that has not
//           seen the candidate (a fresh worker) verifies it first.
// make_local_bench measures in the calling process's current context; make_worker_bench
// (tune/worker_bench.hpp) in a worker process that a faulting or hanging candidate may take
// down without harming the caller.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "codegen/kernel_config.hpp"
#include "compile/compiled_kernel.hpp"
#include "jitgemm/problem.hpp"
#include "tune/candidate_outcome.hpp"
#include "tune/event_timer.hpp"

namespace jitgemm {

class Compiler;
class TemplateStore;
namespace cuda { struct DeviceInfo; }

// The inputs and the cuBLAS baseline (timed with warmup_runs, then timing_runs).
struct BenchSettings {
  uint64_t seed = 0;  // of the random operands (the same seed gives the same inputs)
  int warmup_runs = 3;
  int timing_runs = 25;
};

// What every candidate is checked and timed against.
struct TuningInputs {
  double cublas_rel_error = 0;  // cuBLAS's error against the float64 reference
  double tolerance = 0;         // the mode's contract (tune/accuracy_contract.hpp)
  TimingStats cublas_timing;    // the baseline, with the caller's beta
};

enum class MeasurePhase { Screen, Retime };

struct MeasureRequest {
  size_t index = 0;  // the candidate's position in the tuning run (a key for its loaded kernel)
  const KernelConfig* config = nullptr;
  const CompiledKernel* kernel = nullptr;
  MeasurePhase phase = MeasurePhase::Screen;
  int warmup_runs = 3;     // untimed launches before the timed ones
  int runs = 5;            // timed launches (each after an L2 flush); the verdict's median is theirs
  double watchdog_ms = 0;  // a worker bench gives up on the candidate after this long
  double idle_ratio = 0;   // after each timed run the GPU idles this many times its time
};

// What one measurement found. Ok: verified, and `timing` holds the phase's runs.
struct BenchVerdict {
  CandidateOutcome outcome = CandidateOutcome::Ok;
  TimingStats timing;
  double rel_error = 0;
  std::string detail;  // why it is not Ok: error counts, the failing CUDA call, the worker's fate
};

class CandidateBench {
 public:
  virtual ~CandidateBench() = default;
  virtual const TuningInputs& inputs() const = 0;
  // Never throws for what a candidate does; throws for a broken environment (no device, a
  // worker that cannot start or prepare the inputs).
  virtual BenchVerdict measure(const MeasureRequest& request) = 0;
};

// Launches that a request may make (the verification, the warm-up and timed runs): the
// watchdog scales with them.
int launches_of(const MeasureRequest& request);
// What the request keeps the GPU for, in runs of the candidate: its launches and the idle after
// its timed runs (idle_ratio each). Its wall time is this times the median, plus an overhead:
// the watchdog and the budget count it so.
double run_lengths_of(const MeasureRequest& request);

// True for the CUDA errors after which the context cannot be used again (illegal address,
// __trap, misaligned access, ...): the candidate is Faulted rather than LaunchFailed.
bool is_context_fault(int cuda_error_code) noexcept;

// A bench in the calling thread's current context. Prepares the inputs at once. A faulting
// candidate poisons this context (context_lost() then; every later request fails).
class LocalBench : public CandidateBench {
 public:
  LocalBench(const GemmProblem& problem, const cuda::DeviceInfo& device, const Compiler& compiler,
             const TemplateStore& templates, const BenchSettings& settings);
  ~LocalBench() override;
  const TuningInputs& inputs() const override;
  BenchVerdict measure(const MeasureRequest& request) override;
  bool context_lost() const noexcept;

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace jitgemm
