// jitgemm-bench: jitgemm (as served by the Runtime from the tuning database) and cuBLAS
// side by side in one process, for the reference problems and a size sweep. Each
// iteration times one jitgemm and one cuBLAS run with events after an L2 flush, on fresh
// random data checked against a float64 reference. Counters: medians in ms, TFLOP/s,
// speedup over cuBLAS and both errors. Also writes bench/results/<gpu>.json.
#include <benchmark/benchmark.h>
#include <fmt/chrono.h>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <memory>

#include "codegen/template_store.hpp"
#include "compile/binary_cache.hpp"
#include "compile/compiler.hpp"
#include "cuda/context.hpp"
#include "cuda/device_buffer.hpp"
#include "cuda/device_info.hpp"
#include "cuda/driver_api.hpp"
#include "cuda/event.hpp"
#include "cuda/stream.hpp"
#include "jitgemm/runtime.hpp"
#include "problem/flop_rate.hpp"
#include "problem/problem_list.hpp"
#include "problem/reference_problems.hpp"
#include "problem/stored_shape.hpp"
#include "tune/cublas_reference.hpp"
#include "tune/event_timer.hpp"
#include "tune/support_kernels.hpp"

namespace jitgemm {
namespace {

struct BenchRow {
  std::string id;
  GemmProblem problem;
  double jitgemm_ms = 0, baseline_ms = 0, relerr = 0, baseline_relerr = 0;
};

// Everything one process shares: context, runtime, cuBLAS, helper kernels, flush buffer.
struct BenchEnv {
  cuda::PrimaryContext context{0};
  cuda::DeviceInfo info = cuda::query_device(0);
  Runtime runtime;
  Compiler compiler{BinaryCache::default_dir()};
  SupportKernels support{compiler, TemplateStore::active()};
  CublasHandle cublas;
  cuda::Stream stream;
  cuda::DeviceBuffer flush{2 * static_cast<size_t>(info.l2_bytes)};
  cuda::Event start, stop;
  std::vector<BenchRow> rows;
};
BenchEnv* g_env = nullptr;

double timed(BenchEnv& env, const std::function<void(CUstream)>& run) {
  const auto& cu = cuda::driver();
  static unsigned value = 0;
  JITGEMM_CU(cu.cuMemsetD32Async(env.flush.get(), ++value, env.flush.size() / 4, env.stream.get()), "L2 flush");
  env.start.record(env.stream.get());
  run(env.stream.get());
  env.stop.record(env.stream.get());
  env.stop.synchronize();
  return cuda::elapsed_ms(env.start, env.stop);
}

void bench_problem(benchmark::State& state, const std::string& id, GemmProblem p) {
  BenchEnv& env = *g_env;
  CUstream s = env.stream.get();
  const int64_t lda = p.effective_lda(), ldb = p.effective_ldb(), ldc = p.effective_ldc();
  const StoredShape sa = stored_shape_a(p), sb = stored_shape_b(p);
  cuda::DeviceBuffer a(4 * sa.rows * lda), b(4 * sb.rows * ldb), c(4 * p.m * ldc);
  cuda::DeviceBuffer a64(8 * sa.rows * lda), b64(8 * sb.rows * ldb), c64(8 * p.m * ldc), scratch(64);
  const uint64_t seed = static_cast<uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count());
  env.support.fill_random(a.get(), sa.rows, sa.cols, lda, seed, RandomKind::Uniform01, id == "symmetric", NAN, s);
  env.support.fill_random(b.get(), sb.rows, sb.cols, ldb, seed + 7, RandomKind::Uniform01, id == "symmetric", NAN, s);
  env.support.widen_to_double(a.get(), a64.get(), sa.rows * lda, s);
  env.support.widen_to_double(b.get(), b64.get(), sb.rows * ldb, s);
  cublas_dgemm(env.cublas, p, a64.get(), b64.get(), c64.get(), s);
  auto error = [&] { return env.support.error_stats(c.get(), ldc, c64.get(), ldc, p.m, p.n, scratch.get(), s).rel_error; };
  auto run_jitgemm = [&](CUstream st) {
    env.runtime.gemm(p, reinterpret_cast<const float*>(a.get()), reinterpret_cast<const float*>(b.get()),
                     reinterpret_cast<float*>(c.get()), reinterpret_cast<CUstream_st*>(st));
  };
  const CublasMode baseline = cublas_baseline(p.precision);
  auto run_cublas = [&](CUstream st) { cublas_sgemm(env.cublas, p, a.get(), b.get(), c.get(), st, baseline); };
  // Accuracy on poisoned outputs (beta = 0 in the benchmark problems).
  env.support.fill_value(c.get(), p.m * ldc, NAN, s);
  run_jitgemm(s);
  const double err = error();
  env.support.fill_value(c.get(), p.m * ldc, NAN, s);
  run_cublas(s);
  const double cublas_err = error();
  for (int i = 0; i < 3; ++i) { run_jitgemm(s); run_cublas(s); }  // warm-up
  std::vector<double> ours, theirs;
  for (auto _ : state) {
    const double ms = timed(env, run_jitgemm);
    ours.push_back(ms);
    theirs.push_back(timed(env, run_cublas));
    state.SetIterationTime(ms / 1e3);
  }
  const double median = summarize(ours).median_ms, cublas_median = summarize(theirs).median_ms;
  state.counters["jitgemm_ms"] = median;
  state.counters["cublas_ms"] = cublas_median;
  state.counters["TFLOPs"] = tflops(p, median);
  state.counters["speedup"] = cublas_median / median;
  state.counters["relerr"] = err;
  state.counters["cublas_relerr"] = cublas_err;
  env.rows.push_back({id, p, median, cublas_median, err, cublas_err});
}

std::vector<std::pair<std::string, GemmProblem>> bench_problems() {
  std::vector<std::pair<std::string, GemmProblem>> list;
  for (Precision mode : {Precision::FP32, Precision::TF32x3, Precision::TF32})
    for (const auto& r : reference_problems(mode))
      if (r.runnable) list.emplace_back(r.id, r.problem);
  for (auto& np : load_problem_list(JITGEMM_SOURCE_DIR "/bench/sweep_problems.json"))
    list.emplace_back(np.id, np.problem);
  GemmProblem big;
  big.m = big.n = big.k = 8192;
  big.precision = Precision::TF32x3;
  list.emplace_back("dense_8192x8192x8192_NN", big);
  return list;
}

void write_results(const BenchEnv& env) {
  const std::string gpu = cuda::short_gpu_name(env.info.name);
  nlohmann::json j;
  j["device"] = env.info.name;
  const std::time_t now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm tm{};
  gmtime_r(&now, &tm);
  j["date"] = fmt::format("{:%Y-%m-%d}", tm);
  j["rows"] = nlohmann::json::array();
  for (const auto& r : env.rows)
    j["rows"].push_back({{"problem", r.id}, {"mode", std::string(to_string(r.problem.precision))},
                         {"m", r.problem.m}, {"n", r.problem.n}, {"k", r.problem.k},
                         {"jitgemm_ms", r.jitgemm_ms}, {"baseline", cublas_baseline_name(r.problem.precision)},
                         {"baseline_ms", r.baseline_ms},
                         {"speedup", r.baseline_ms / r.jitgemm_ms}, {"relerr", r.relerr},
                         {"baseline_relerr", r.baseline_relerr}, {"described", r.problem.to_string()}});
  const std::string dir = fmt::format("{}/bench/results", JITGEMM_SOURCE_DIR);
  std::filesystem::create_directories(dir);
  const std::string path = fmt::format("{}/{}.json", dir, gpu);
  std::ofstream file(path);
  file << j.dump(2) << "\n";
  if (!file.flush()) fmt::print(stderr, "jitgemm-bench: could not write {}\n", path);
  fmt::print("\nwrote {}\n\n{:<28} {:>6} {:>11} {:>10} {:>8} {:>9} {:>10} {:>10}\n", path, "problem", "mode",
             "jitgemm ms", "base ms", "speedup", "TFLOP/s", "relerr", "base err");
  for (const auto& r : env.rows)
    fmt::print("{:<28} {:>6} {:>11.3f} {:>10.3f} {:>7.2f}x {:>9.1f} {:>10.2e} {:>10.2e}\n", r.id,
               to_string(r.problem.precision), r.jitgemm_ms, r.baseline_ms, r.baseline_ms / r.jitgemm_ms,
               tflops(r.problem, r.jitgemm_ms), r.relerr, r.baseline_relerr);
}

}  // namespace
}  // namespace jitgemm

int main(int argc, char** argv) {
  using namespace jitgemm;
  benchmark::Initialize(&argc, argv);
  std::string reason;
  if (!cuda::gpu_available(&reason)) {
    fmt::print("jitgemm-bench: no GPU ({}); nothing to measure.\n", reason);
    return 0;
  }
  auto env = std::make_unique<BenchEnv>();
  g_env = env.get();
  for (auto& [id, problem] : bench_problems()) {
    const std::string name = fmt::format("{}/{}", id, to_string(problem.precision));
    benchmark::RegisterBenchmark(name.c_str(), [id = id, problem = problem](benchmark::State& st) {
      bench_problem(st, id, problem);
    })->UseManualTime()->Iterations(30)->Unit(benchmark::kMillisecond);
  }
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  write_results(*env);
  g_env = nullptr;
  return 0;
}
