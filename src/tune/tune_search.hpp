// tune_search.hpp — the tuning loop of tune_problem (tune/tuner.hpp) with its parts passed in:
// the candidates, how a kernel is compiled, how the bench is started, the clock and the device
// model. tune_problem passes NVRTC, a worker (or local) bench and the steady clock; the CPU
// tests pass a fake compile, a fake bench with synthetic timings and a fake clock.
//
//   SearchEnvironment env{configs, specialization_of(key), &templates, compile, make_bench,
//                         steady_seconds(), DeviceModel::hopper(info.sm_count), {untuned_config(key)}};
//   TuneResult result = run_tune_search(problem, env, settings, progress);
#pragma once

#include <functional>
#include <memory>
#include <vector>

#include "codegen/kernel_config.hpp"
#include "tune/candidate_compiler.hpp"
#include "tune/performance_model.hpp"
#include "tune/tuner.hpp"
#include "tune/tuning_bench.hpp"
#include "tune/tuning_budget.hpp"

namespace jitgemm {

struct SearchEnvironment {
  std::vector<KernelConfig> configs;  // the candidates; the result lists them in this order
  KernelSpecialization specialization;
  const TemplateStore* templates = nullptr;
  CompileKernel compile;  // called from the compiling threads
  // Starts the bench; called once, on the calling thread, while the first compiles run.
  std::function<std::unique_ptr<CandidateBench>(const BenchSettings&)> make_bench;
  TuningClock clock;
  DeviceModel device;
  std::vector<KernelConfig> kept;  // never pruned (the untuned default)
  // Called with true as the final round starts and with false when it ends (tune_problem
  // samples the GPU's clock and power over it: TuneResult::final_round_gpu); may be empty.
  std::function<void(bool)> record_gpu;
};

// As tune_problem: every config ends with an outcome, the best final median wins, a broken
// environment (a compile or bench that throws) aborts with its exception.
TuneResult run_tune_search(const GemmProblem& problem, const SearchEnvironment& env, const TuneSettings& settings,
                           const TuneProgressCallback& progress = {});

}  // namespace jitgemm
