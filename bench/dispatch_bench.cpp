#include "dispatch_bench.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <functional>

#include "codegen/kernel_config.hpp"
#include "codegen/kernel_family.hpp"
#include "codegen/template_store.hpp"
#include "cuda/device_buffer.hpp"
#include "cuda/driver_api.hpp"
#include "exec/compiled_module.hpp"
#include "exec/gemm_launch.hpp"
#include "exec/kernel_args.hpp"
#include "launch/kernel_cache.hpp"
#include "problem/problem_key.hpp"

namespace jitgemm {
namespace {

using Clock = std::chrono::steady_clock;
constexpr int kCalls = 200;  // per round: well under the driver's queue depth
constexpr int kRounds = 21;

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// Host microseconds per call of `call`, the stream drained before each round.
double host_us_per_call(const std::function<void()>& call, CUstream stream) {
  std::vector<double> rounds;
  for (int r = 0; r < kRounds; ++r) {
    JITGEMM_CU(cuda::driver().cuStreamSynchronize(stream), "dispatch round");
    const auto t0 = Clock::now();
    for (int i = 0; i < kCalls; ++i) call();
    const auto t1 = Clock::now();
    rounds.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count() / kCalls);
  }
  JITGEMM_CU(cuda::driver().cuStreamSynchronize(stream), "dispatch rounds");
  return median(rounds);
}

}  // namespace

DispatchFigures measure_dispatch(Runtime& runtime, const Compiler& compiler, int sm_count, Precision precision,
                                 CUstream stream) {
  GemmProblem p;
  p.m = p.n = p.k = 64;
  p.precision = precision;
  const size_t bytes = sizeof(float) * 64 * 64;
  cuda::DeviceBuffer a(bytes), b(bytes), c(bytes);
  for (cuda::DeviceBuffer* x : {&a, &b, &c}) x->fill_bytes_async(0, stream);
  const float* pa = a.as<const float>();
  const float* pb = b.as<const float>();
  float* pc = c.as<float>();
  auto* s = reinterpret_cast<CUstream_st*>(stream);

  DispatchFigures f;
  f.precision = precision;
  const GemmPlan plan = runtime.plan(p);
  f.kernel = plan.kernel();
  runtime.gemm(p, pa, pb, pc, s);  // warm: the thread's serve cache and workspace
  plan.run(pa, pb, pc, s);
  f.gemm_us = host_us_per_call([&] { runtime.gemm(p, pa, pb, pc, s); }, stream);
  f.plan_us = host_us_per_call([&] { plan.run(pa, pb, pc, s); }, stream);

  // The same kernel, loaded on its own, launched with the arguments the launcher gives it.
  const KernelConfig config = KernelConfig::parse(f.kernel);
  const ProblemKey key = make_problem_key(p, pa, pb, pc);
  KernelCache kernels(compiler, TemplateStore::active());
  const LoadedKernel& kernel = kernels.get(config, specialization_of(key));
  GemmLauncher launcher(compiler, TemplateStore::active(), sm_count);
  const LaunchPlan lp = launcher.plan(kernel.function, config, key);
  if (config.family() == KernelFamily::Wgmma) return f;  // pre-passes and tensor maps: not one launch
  // The split-K sequence as GemmLauncher::launch_split_k runs it: the main kernel writes split_k
  // partial products to the workspace, then either its tiles' last CTAs add them (the arrival
  // counters zeroed first) or fp32/split_k_reduce.cu does (as run_reduce launches it).
  const bool split = config.split_k > 1;
  cuda::DeviceBuffer workspace(std::max<size_t>(lp.workspace.total_bytes, 256));
  const CUdeviceptr partials = workspace.get() + lp.workspace.split_k_partials.offset;
  const CUdeviceptr arrivals = workspace.get() + lp.workspace.split_k_arrivals.offset;
  GemmProblem main_problem = p;
  if (split) main_problem.alpha = 1.0f, main_problem.beta = 0.0f, main_problem.ldc = lp.split_k_ld;
  GemmKernelArgs args(main_problem, a.get(), b.get(), split ? partials : c.get());
  if (lp.split_k_finish) args.finish = {c.get(), p.effective_ldc(), p.alpha, p.beta, arrivals};
  auto params = args.pointers();
  const CompiledModule reducer = compile_module(compiler, TemplateStore::active().expand_includes("fp32/split_k_reduce.cu"),
                                                "split_k_reduce", {}, "fp32/split_k_reduce.cu");
  SplitKReduceArgs reduce{partials, config.split_k, 64, 64, lp.split_k_ld, c.get(), 64, p.alpha, p.beta, 0};
  reduce.groups = split_k_reduce_groups(config.split_k);
  auto reduce_params = reduce.pointers();
  const unsigned reduce_blocks = 16 * reduce.groups;  // 64 x 64 outputs: 1024 quads, 256 / groups a CTA
  const CUfunction fn = kernel.function.handle, reduce_fn = reducer.function.handle;
  const LaunchGeometry g = lp.main;
  f.launches = split ? 2 : 1;  // the memset and the main kernel, or the main kernel and the reduction
  f.raw_launch_us = host_us_per_call(
      [&] {
        if (lp.split_k_finish)
          JITGEMM_CU(cuda::driver().cuMemsetD32Async(arrivals, 0, g.grid_x, stream), "raw arrival counters");
        JITGEMM_CU(cuda::driver().cuLaunchKernel(fn, g.grid_x, g.grid_y, g.grid_z, g.block_x, 1, 1,
                                                 static_cast<unsigned>(g.smem_bytes), stream, params.data(), nullptr),
                   "raw launch");
        if (split && !lp.split_k_finish)
          JITGEMM_CU(cuda::driver().cuLaunchKernel(reduce_fn, reduce_blocks, 1, 1, 256, 1, 1, 0, stream,
                                                   reduce_params.data(), nullptr),
                     "raw reduce launch");
      },
      stream);
  return f;
}

double measure_db_load_ms(const GemmProblem& tuned, int rounds) {
  const size_t bytes_a = sizeof(float) * static_cast<size_t>(tuned.m * tuned.k);
  const size_t bytes_b = sizeof(float) * static_cast<size_t>(tuned.k * tuned.n);
  const size_t bytes_c = sizeof(float) * static_cast<size_t>(tuned.m * tuned.n);
  cuda::DeviceBuffer a(bytes_a), b(bytes_b), c(bytes_c);
  std::vector<double> ms;
  for (int r = 0; r < rounds; ++r) {
    const auto t0 = Clock::now();
    Runtime runtime;
    runtime.gemm(tuned, a.as<const float>(), b.as<const float>(), c.as<float>());
    JITGEMM_CU(cuda::driver().cuCtxSynchronize(), "first launch");
    ms.push_back(std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
  }
  return median(ms);
}

}  // namespace jitgemm
