// The tuning loop for one problem: candidates -> parallel compile -> verify each against
// the float64 reference -> time the survivors -> winner. Reports progress through a
// callback and returns measurements; it prints nothing and writes no files.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "codegen/kernel_config.hpp"
#include "compile/resource_report.hpp"
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
  TimingStats timing;  // screening runs, or the full runs for finalists
  bool finalist = false;
  double rel_error = 0;
  ResourceUsage resources;
  std::string detail;  // compile log excerpt, error count, launch error...
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
  const CandidateMeasurement* best() const { return winner >= 0 ? &candidates[static_cast<size_t>(winner)] : nullptr; }
};

// Where candidates run. Worker (the default): in worker processes (jitgemm-tune-worker) that
// a faulting or hanging candidate may take down; the caller's process and CUDA context never
// run one. InProcess: in the caller's current context (kernel development, debuggers); a
// faulting candidate then ends the run.
enum class TuneIsolation { Worker, InProcess };

struct TuneSettings {
  int jobs = 0;             // parallel compiles; 0 = hardware threads
  int warmup_runs = 3;
  int screen_runs = 5;      // every verified candidate: median of these
  int finalists = 8;        // the fastest this many are timed again with timing_runs
  int timing_runs = 25;     // median of these (>= 20) decides the winner
  uint64_t seed = 0;        // 0: fresh from the clock
  TuneIsolation isolation = TuneIsolation::Worker;
  // Candidates to try; empty: the problem's full candidate space.
  std::vector<KernelConfig> candidates;
};

struct TuneProgress {
  enum class Phase { Compiling, Verifying, Timing, Done } phase;
  size_t index = 0, total = 0;
  std::string candidate;       // config name
  double best_ms = 0;          // best verified time so far (0: none yet)
  std::string best_candidate;
};
using TuneProgressCallback = std::function<void(const TuneProgress&)>;

// Throws InvalidArgument (prefixed by `where`) unless `problem` is valid and multiplies
// something: M, N, K >= 1 and alpha != 0 (an empty product or C = beta * C has nothing to tune).
void check_tunable(const GemmProblem& problem, std::string_view where);

// Compiles in the calling process; verifies and times as settings.isolation says (InProcess:
// on the current context, which the caller makes current). A candidate that fails in any way
// is recorded with its outcome; a broken environment (no device, no NVRTC, no worker
// executable) throws.
TuneResult tune_problem(const GemmProblem& problem, const cuda::DeviceInfo& device, const Compiler& compiler,
                        const TemplateStore& templates, const TuneSettings& settings,
                        const TuneProgressCallback& progress = {});

}  // namespace jitgemm
