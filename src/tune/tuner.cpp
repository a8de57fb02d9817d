// tune_problem: the tuning loop (tune/tune_search.hpp) on NVRTC, a worker or local bench and
// the steady clock.
#include "tune/tuner.hpp"

#include <fmt/format.h>

#include "codegen/candidate_space.hpp"
#include "codegen/template_store.hpp"
#include "compile/compiler.hpp"
#include "cuda/device_info.hpp"
#include "cuda/gpu_telemetry.hpp"
#include "exec/compiled_module.hpp"
#include "jitgemm/error.hpp"
#include "problem/gemm_work.hpp"
#include "tune/tune_search.hpp"
#include "tune/worker_bench.hpp"

namespace jitgemm {

TuneSearch search_for_budget(double budget_s) noexcept {
  return budget_s > 0 ? TuneSearch::Budgeted : TuneSearch::Exhaustive;
}

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
  const ProblemKey key = make_problem_key(problem);
  SearchEnvironment env;
  // tf32x3 / tf32 problems too small, skinny or long for the wgmma kernels to pay get the
  // mma.sync family of their mode too (tuning_candidates).
  env.configs = settings.candidates.empty() ? tuning_candidates(key) : settings.candidates;
  env.specialization = specialization_of(key);
  env.templates = &templates;
  env.compile = [&compiler](const RenderedKernel& kernel) {
    return compiler.compile(kernel.source, kernel.kernel_name, compile_options_for(kernel));
  };
  env.make_bench = [&](const BenchSettings& bench) -> std::unique_ptr<CandidateBench> {
    if (settings.isolation == TuneIsolation::Worker)
      return make_worker_bench(problem, device, compiler, templates, bench);
    return std::make_unique<LocalBench>(problem, device, compiler, templates, bench);
  };
  env.clock = steady_seconds();
  env.device = DeviceModel::hopper(device.sm_count);
  env.kept = {untuned_config(key)};
  GpuTelemetry telemetry(device.ordinal);
  telemetry.start();
  env.record_gpu = [&telemetry](bool on) { telemetry.record(on); };
  TuneResult result = run_tune_search(problem, env, settings, progress);
  result.final_round_gpu = telemetry.stop();
  return result;
}

}  // namespace jitgemm
