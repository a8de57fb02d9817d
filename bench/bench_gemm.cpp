// jitgemm-bench: jitgemm (as served by the Runtime from the tuning database) and cuBLAS
// side by side in one process, for the reference problems (lowertri against cublasStrmm or
// the TF32 GEMM, each followed by a tril kernel), the symmetric Model with both operands
// declared symmetric and declared general, and a size sweep. Each iteration times one
// jitgemm and one baseline run, in alternating order, with events after an L2 flush and a
// hold of the stream (the host's enqueueing stays out of the time; JITGEMM_BENCH_HOLD_US), on
// fresh random data checked against a float64 reference. Counters: medians in ms, TFLOP/s, speedup over the baseline
// and both errors. Also writes bench/results/<gpu>.json (each row names its baseline). The
// gradients of the reference Models are rows <id>_backward (their own section below).
#include "dispatch_bench.hpp"
#include "cuda/gpu_telemetry.hpp"

#include <benchmark/benchmark.h>
#include <fmt/chrono.h>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <regex>
#include <thread>

#include "codegen/template_store.hpp"
#include "compile/binary_cache.hpp"
#include "compile/compiler.hpp"
#include "cuda/context.hpp"
#include "cuda/device_buffer.hpp"
#include "cuda/device_info.hpp"
#include "cuda/driver_api.hpp"
#include "cuda/event.hpp"
#include "cuda/stream.hpp"
#include "jitgemm/backward.hpp"
#include "jitgemm/runtime.hpp"
#include "database/default_database.hpp"
#include "database/tuning_database.hpp"
#include "problem/flop_rate.hpp"
#include "problem/operand_structure.hpp"
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
  std::string baseline;  // "cublas_sgemm", "cublas_tf32", "cublas_strmm_tril", "cublas_tf32_tril"
  double jitgemm_ms = 0, baseline_ms = 0, relerr = 0, baseline_relerr = 0;
  int products = 1;  // products of the problem's size one timing covers (TFLOP/s): 2 for a gradient row
  GpuConditions telemetry;  // the GPU during jitgemm's timed runs
  double tune_s = 0;       // the tuning of the record that served the row, as recorded; 0: none
  // Each side's median over the timings that followed the other side / itself (the order is
  // counterbalanced, measure_row): what the order moves, shown beside the medians of all.
  double jitgemm_ms_after_baseline = 0, jitgemm_ms_after_itself = 0;
  double baseline_ms_after_jitgemm = 0, baseline_ms_after_itself = 0;
};

// What jitgemm is compared with: the mode's cuBLAS GEMM on the dense operands, and for a
// triangular A what a BLAS user would call instead: cublasStrmm in fp32 (the fp32 and tf32x3
// rows; the tf32 rows keep the TF32 GEMM, strmm has no tensor-core mode). A fill follows as
// a tril / triu kernel, timed with the baseline and named in it: "cublas_strmm_tril",
// "cublas_tf32_tril". Where strmm cannot compute the product (A not square and triangular,
// op(B) transposed, beta != 0) the GEMM stands in.
bool strmm_baseline(const GemmProblem& p) {
  return p.precision != Precision::TF32 && is_triangular(p.structure_a) && p.m == p.k && p.trans_b == Op::N &&
         p.beta == 0.0f;
}

std::string baseline_of(const GemmProblem& p) {
  const char* fill = p.fill == Fill::Lower ? "_tril" : p.fill == Fill::Upper ? "_triu" : "";
  return fmt::format("{}{}", strmm_baseline(p) ? "cublas_strmm" : cublas_baseline_name(p.precision), fill);
}

RuntimeOptions untuned_options() {
  RuntimeOptions o;
  o.database_path = (std::filesystem::temp_directory_path() / "jitgemm-bench-untuned.json").string();
  std::filesystem::remove(o.database_path);
  return o;
}

double bench_hold_us() {
  const char* v = std::getenv("JITGEMM_BENCH_HOLD_US");
  if (v == nullptr || *v == '\0') return 100.0;
  char* end = nullptr;
  const double us = std::strtod(v, &end);
  if (end == v || *end != '\0' || !(us >= 0) || us > 1e6) {
    fmt::print(stderr, "jitgemm-bench: JITGEMM_BENCH_HOLD_US={:?} is not a number of microseconds in [0, 1e6]\n", v);
    std::exit(2);
  }
  return us;
}

// Everything one process shares: context, runtime, cuBLAS, helper kernels, flush buffer.
struct BenchEnv {
  cuda::PrimaryContext context{0};
  cuda::DeviceInfo info = cuda::query_device(0);
  Runtime runtime;
  // The rows named *_untuned: a database of no records, so the default rule serves.
  Runtime untuned{untuned_options()};
  Compiler compiler{BinaryCache::default_dir()};
  SupportKernels support{compiler, TemplateStore::active()};
  CublasHandle cublas;
  cuda::Stream stream;
  cuda::DeviceBuffer flush{2 * static_cast<size_t>(info.l2_bytes)};
  cuda::Event start, stop;
  // Microseconds the stream is held busy between the L2 flush and each timing's start event
  // (JITGEMM_BENCH_HOLD_US, default 100; 0: none), so that the launches a side enqueues after
  // the start event find the GPU busy: the events then time the GPU's work, not the host's
  // enqueueing (which dispatch_64x64x64 measures on its own).
  double hold_us = bench_hold_us();
  std::vector<BenchRow> rows;
  GpuTelemetry telemetry{0};
  std::vector<DispatchFigures> dispatch;  // host cost per call, 64 x 64 x 64 (dispatch_bench.hpp)
  double db_load_ms = 0;                  // Runtime construction + first launch of a tuned problem
  // The database `runtime` serves from, read again for what the runtime does not report: how
  // long each record's tuning took.
  TuningDatabase database = TuningDatabase::load(default_database_path());
};
BenchEnv* g_env = nullptr;

// The Runtime that serves row `id`: the rows named *_untuned are served with no records.
Runtime& runtime_for(BenchEnv& env, const std::string& id) {
  return id.ends_with("_untuned") ? env.untuned : env.runtime;
}

// strmm's general operand is B as the dense matrix it stands for.
GemmProblem dense_b(GemmProblem p) {
  p.structure_b = Structure::General;
  p.fill = Fill::Full;
  return p;
}

double timed(BenchEnv& env, const std::function<void(CUstream)>& run) {
  const auto& cu = cuda::driver();
  static unsigned value = 0;
  JITGEMM_CU(cu.cuMemsetD32Async(env.flush.get(), ++value, env.flush.size() / 4, env.stream.get()), "L2 flush");
  env.support.hold(env.hold_us, env.stream.get());
  env.start.record(env.stream.get());
  run(env.stream.get());
  env.stop.record(env.stream.get());
  env.stop.synchronize();
  return cuda::elapsed_ms(env.start, env.stop);
}

// The measurement every row shares: each side's error on poisoned outputs (`poison` before
// each run), a warm-up, then jitgemm and cuBLAS timed in counterbalanced order (J C, C J, J C,
// ...: each side follows the other in half its timings and itself in the other half); the
// medians become the benchmark's counters and `row` (its id, problem, baseline and products
// already set). Always timing jitgemm right after cuBLAS charged the lighter side for the
// heavier one's heat: on the H200 (session 34) the lowertri tf32 kernel read 0.1227 ms so
// against 0.1178 timed alone, with the flush and hold of each timing in both, while cuBLAS's
// 0.36 ms product read the same in either order.
using Run = std::function<void(CUstream)>;
void measure_row(benchmark::State& state, BenchEnv& env, BenchRow row, const std::function<void()>& poison,
                 const std::function<double()>& error, const Run& run_jitgemm, const Run& run_cublas) {
  CUstream s = env.stream.get();
  poison();
  run_jitgemm(s);
  row.relerr = error();
  poison();
  run_cublas(s);
  row.baseline_relerr = error();
  for (int i = 0; i < 3; ++i) { run_jitgemm(s); run_cublas(s); }  // warm-up
  std::vector<double> ours, theirs;
  std::array<std::vector<double>, 2> ours_after, theirs_after;  // [0]: after the other side, [1]: after itself
  bool last_ours = false;  // the warm-up ended with cuBLAS
  auto time_ours = [&] {
    env.telemetry.record(true);
    const double ms = timed(env, run_jitgemm);
    env.telemetry.record(false);
    ours.push_back(ms);
    ours_after[last_ours ? 1 : 0].push_back(ms);
    last_ours = true;
    return ms;
  };
  auto time_theirs = [&] {
    const double ms = timed(env, run_cublas);
    theirs.push_back(ms);
    theirs_after[last_ours ? 0 : 1].push_back(ms);
    last_ours = false;
  };
  env.telemetry.start();
  bool ours_first = true;
  for (auto _ : state) {
    double ms = 0;
    if (ours_first) {
      ms = time_ours();
      time_theirs();
    } else {
      time_theirs();
      ms = time_ours();
    }
    ours_first = !ours_first;
    state.SetIterationTime(ms / 1e3);
  }
  row.telemetry = env.telemetry.stop();
  row.jitgemm_ms = summarize(ours).median_ms;
  row.baseline_ms = summarize(theirs).median_ms;
  auto median = [](const std::vector<double>& v) { return v.empty() ? 0.0 : summarize(v).median_ms; };
  row.jitgemm_ms_after_baseline = median(ours_after[0]), row.jitgemm_ms_after_itself = median(ours_after[1]);
  row.baseline_ms_after_jitgemm = median(theirs_after[0]), row.baseline_ms_after_itself = median(theirs_after[1]);
  state.counters["jitgemm_ms"] = row.jitgemm_ms;
  state.counters["cublas_ms"] = row.baseline_ms;
  state.counters["TFLOPs"] = row.products * tflops(row.problem, row.jitgemm_ms);
  state.counters["speedup"] = row.baseline_ms / row.jitgemm_ms;
  state.counters["relerr"] = row.relerr;
  state.counters["cublas_relerr"] = row.baseline_relerr;
  state.counters["sm_mhz"] = row.telemetry.sm_clock_mhz;
  state.counters["power_w"] = row.telemetry.power_w;
  if (const ServeExplanation how = env.runtime.explain(row.problem); how.rule == ServeRule::Exact)
    if (const TuningRecord* record = env.database.find(how.record); record != nullptr) row.tune_s = record->tune_s;
  env.rows.push_back(std::move(row));
}

// Inputs as reference-problems.md draws them: uniform [0, 1), symmetric operands (X + X^T)/2,
// triangular ones tril(X). jitgemm gets NaN wherever a declared structure does not read; the
// baselines get what they read (strmm A's triangle, the GEMMs the dense operands).
void bench_problem(benchmark::State& state, const std::string& id, GemmProblem p) {
  BenchEnv& env = *g_env;
  CUstream s = env.stream.get();
  const int64_t lda = p.effective_lda(), ldb = p.effective_ldb(), ldc = p.effective_ldc();
  const StoredShape sa = stored_shape_a(p), sb = stored_shape_b(p);
  cuda::DeviceBuffer a(4 * sa.rows * lda), b(4 * sb.rows * ldb), c(4 * p.m * ldc);
  cuda::DeviceBuffer a_dense(4 * sa.rows * lda), b_dense(4 * sb.rows * ldb);
  cuda::DeviceBuffer a64(8 * sa.rows * lda), b64(8 * sb.rows * ldb), c64(8 * p.m * ldc), scratch(64);
  const uint64_t seed = static_cast<uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count());
  const bool symmetric_data = id.rfind("symmetric", 0) == 0;  // the symmetric Model's inputs, declared or not
  env.support.fill_random(a_dense.get(), sa.rows, sa.cols, lda, seed, RandomKind::Uniform01, symmetric_data, NAN, s);
  env.support.fill_random(b_dense.get(), sb.rows, sb.cols, ldb, seed + 7, RandomKind::Uniform01, symmetric_data, NAN,
                          s);
  env.support.densify(a_dense.get(), sa.rows, sa.cols, lda, p.structure_a, s);
  env.support.densify(b_dense.get(), sb.rows, sb.cols, ldb, p.structure_b, s);
  env.support.widen_to_double(a_dense.get(), a64.get(), sa.rows * lda, s);
  env.support.widen_to_double(b_dense.get(), b64.get(), sb.rows * ldb, s);
  const GemmProblem dense = dense_problem(p);
  cublas_dgemm(env.cublas, dense, a64.get(), b64.get(), c64.get(), s);
  env.support.apply_fill_f64(c64.get(), p.m, p.n, ldc, p.fill, s);
  const auto& cu = cuda::driver();
  JITGEMM_CU(cu.cuMemcpyDtoDAsync(a.get(), a_dense.get(), a.size(), s), "A");
  JITGEMM_CU(cu.cuMemcpyDtoDAsync(b.get(), b_dense.get(), b.size(), s), "B");
  env.support.poison_unread(a.get(), sa.rows, sa.cols, lda, p.structure_a, NAN, s);
  env.support.poison_unread(b.get(), sb.rows, sb.cols, ldb, p.structure_b, NAN, s);
  auto error = [&] { return env.support.error_stats(c.get(), ldc, c64.get(), ldc, p.m, p.n, scratch.get(), s).rel_error; };
  Runtime& runtime = runtime_for(env, id);
  auto run_jitgemm = [&](CUstream st) {
    runtime.gemm(p, reinterpret_cast<const float*>(a.get()), reinterpret_cast<const float*>(b.get()),
                     reinterpret_cast<float*>(c.get()), reinterpret_cast<CUstream_st*>(st));
  };
  const bool strmm = strmm_baseline(p);
  auto run_cublas = [&](CUstream st) {
    if (strmm)
      cublas_strmm(env.cublas, dense_b(p), a.get(), b_dense.get(), c.get(), st);  // reads A's triangle only
    else
      cublas_sgemm(env.cublas, dense, a_dense.get(), b_dense.get(), c.get(), st, cublas_baseline(p.precision));
    env.support.apply_fill(c.get(), p.m, p.n, ldc, p.fill, st);
  };
  // Accuracy on poisoned outputs (beta = 0 in the benchmark problems).
  measure_row(state, env, {id, p, baseline_of(p)}, [&] { env.support.fill_value(c.get(), p.m * ldc, NAN, s); }, error,
              run_jitgemm, run_cublas);
}

// ==== backward rows (issue 12, "Backward"): <id>_backward ====================================
// dA and dB of a reference Model through Runtime::gemm_backward, timed together, against the
// cuBLAS calls they replace: the mode's GEMM for each gradient on the dense operands
// ("cublas_sgemm", "cublas_tf32"), after a tril / triu kernel on dC where the Model has a fill
// ("cublas_sgemm_tril", "cublas_tf32_tril": autograd's backward of torch.tril). dC is uniform
// [0, 1) like the inputs, NaN outside the fill for jitgemm (never read there). The error is
// the larger of dA's and dB's against float64 (DGEMM of the dense gradient products).
std::string backward_baseline_of(const GemmProblem& p) {
  const char* fill = p.fill == Fill::Lower ? "_tril" : p.fill == Fill::Upper ? "_triu" : "";
  return fmt::format("{}{}", cublas_baseline_name(p.precision), fill);
}

// A device matrix of `rows` x `ld` floats and its float64 twin.
struct BenchMatrix {
  cuda::DeviceBuffer f32, f64;
  BenchMatrix(int64_t rows, int64_t ld) : f32(4 * rows * ld + 4), f64(8 * rows * ld + 8) {}
};

void bench_backward(benchmark::State& state, const std::string& id, const GemmProblem& p) {
  BenchEnv& env = *g_env;
  CUstream s = env.stream.get();
  const int64_t lda = p.effective_lda(), ldb = p.effective_ldb(), ldc = p.effective_ldc();
  const StoredShape sa = stored_shape_a(p), sb = stored_shape_b(p);
  const BackwardProblems grads = backward_problems(p);
  BenchMatrix a(sa.rows, lda), b(sb.rows, ldb), dc(p.m, ldc), da(sa.rows, lda), db(sb.rows, ldb);
  cuda::DeviceBuffer a_read(a.f32.size()), b_read(b.f32.size()), dc_read(dc.f32.size()), dc_masked(dc.f32.size()),
      scratch(64);
  const uint64_t seed = static_cast<uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count());
  const bool symmetric_data = id.rfind("symmetric", 0) == 0;
  // Dense operands (what cuBLAS reads) and G = fill(dC) in float32 and float64.
  env.support.fill_random(a.f32.get(), sa.rows, sa.cols, lda, seed, RandomKind::Uniform01, symmetric_data, NAN, s);
  env.support.fill_random(b.f32.get(), sb.rows, sb.cols, ldb, seed + 7, RandomKind::Uniform01, symmetric_data, NAN, s);
  env.support.fill_random(dc.f32.get(), p.m, p.n, ldc, seed + 13, RandomKind::Uniform01, false, NAN, s);
  env.support.densify(a.f32.get(), sa.rows, sa.cols, lda, p.structure_a, s);
  env.support.densify(b.f32.get(), sb.rows, sb.cols, ldb, p.structure_b, s);
  env.support.apply_fill(dc.f32.get(), p.m, p.n, ldc, p.fill, s);
  for (BenchMatrix* x : {&a, &b, &dc}) env.support.widen_to_double(x->f32.get(), x->f64.get(), x->f32.size() / 4 - 1, s);
  // What jitgemm reads: NaN wherever a structure or the fill says it is not read.
  const auto& cu = cuda::driver();
  JITGEMM_CU(cu.cuMemcpyDtoDAsync(a_read.get(), a.f32.get(), a.f32.size(), s), "A");
  JITGEMM_CU(cu.cuMemcpyDtoDAsync(b_read.get(), b.f32.get(), b.f32.size(), s), "B");
  JITGEMM_CU(cu.cuMemcpyDtoDAsync(dc_read.get(), dc.f32.get(), dc.f32.size(), s), "dC");
  env.support.poison_unread(a_read.get(), sa.rows, sa.cols, lda, p.structure_a, NAN, s);
  env.support.poison_unread(b_read.get(), sb.rows, sb.cols, ldb, p.structure_b, NAN, s);
  env.support.poison_unread(dc_read.get(), p.m, p.n, ldc, p.fill == Fill::Lower   ? Structure::Lower
                                                       : p.fill == Fill::Upper ? Structure::Upper
                                                                               : Structure::General,
                            NAN, s);
  // The dense gradient products on one gradient's operands (dC first or second).
  auto operands = [](const GradientProblem& g, CUdeviceptr dc_ptr, CUdeviceptr other) {
    return g.dc_operand == DcOperand::First ? std::pair{dc_ptr, other} : std::pair{other, dc_ptr};
  };
  const auto [da_first64, da_second64] = operands(grads.da, dc.f64.get(), b.f64.get());
  const auto [db_first64, db_second64] = operands(grads.db, dc.f64.get(), a.f64.get());
  cublas_dgemm(env.cublas, dense_problem(grads.da.product), da_first64, da_second64, da.f64.get(), s);
  cublas_dgemm(env.cublas, dense_problem(grads.db.product), db_first64, db_second64, db.f64.get(), s);
  auto error = [&] {
    return std::max(
        env.support.error_stats(da.f32.get(), lda, da.f64.get(), lda, sa.rows, sa.cols, scratch.get(), s).rel_error,
        env.support.error_stats(db.f32.get(), ldb, db.f64.get(), ldb, sb.rows, sb.cols, scratch.get(), s).rel_error);
  };
  auto poison_outputs = [&] {
    env.support.fill_value(da.f32.get(), sa.rows * lda, NAN, s);
    env.support.fill_value(db.f32.get(), sb.rows * ldb, NAN, s);
  };
  auto run_jitgemm = [&](CUstream st) {
    env.runtime.gemm_backward(p, reinterpret_cast<const float*>(dc_read.get()),
                              reinterpret_cast<const float*>(a_read.get()), reinterpret_cast<const float*>(b_read.get()),
                              reinterpret_cast<float*>(da.f32.get()), reinterpret_cast<float*>(db.f32.get()),
                              reinterpret_cast<CUstream_st*>(st));
  };
  const auto [da_first, da_second] = operands(grads.da, dc_masked.get(), b.f32.get());
  const auto [db_first, db_second] = operands(grads.db, dc_masked.get(), a.f32.get());
  JITGEMM_CU(cu.cuMemcpyDtoDAsync(dc_masked.get(), dc_read.get(), dc_read.size(), s), "dC");
  auto run_cublas = [&](CUstream st) {
    env.support.apply_fill(dc_masked.get(), p.m, p.n, ldc, p.fill, st);  // tril(dC), in place (same result each time)
    const CublasMode mode = cublas_baseline(p.precision);
    cublas_sgemm(env.cublas, dense_problem(grads.da.product), da_first, da_second, da.f32.get(), st, mode);
    cublas_sgemm(env.cublas, dense_problem(grads.db.product), db_first, db_second, db.f32.get(), st, mode);
  };
  measure_row(state, env, BenchRow{id, p, backward_baseline_of(p), 0, 0, 0, 0, 2}, poison_outputs, error,
              run_jitgemm, run_cublas);
}

// The four reference Models in every mode (largeK too: its gradients are products of K = 256).
std::vector<std::pair<std::string, GemmProblem>> backward_bench_problems() {
  std::vector<std::pair<std::string, GemmProblem>> list;
  for (Precision mode : {Precision::FP32, Precision::TF32x3, Precision::TF32})
    for (const auto& r : reference_problems(mode)) list.emplace_back(r.id + "_backward", r.problem);
  return list;
}
// ==== end of the backward rows =============================================================

std::vector<std::pair<std::string, GemmProblem>> bench_problems() {
  std::vector<std::pair<std::string, GemmProblem>> list;
  for (Precision mode : {Precision::FP32, Precision::TF32x3, Precision::TF32})
    for (const auto& r : reference_problems(mode))
      if (r.runnable) list.emplace_back(r.id, r.problem);
  // The symmetric Model declared two ways, next to each other in the same run and on the same
  // kind of inputs (both symmetric): both operands declared symmetric (the reference row
  // declares B only), and the same product declared general. Declaring a structure must never
  // make a product slower than declaring it general.
  for (Precision mode : {Precision::FP32, Precision::TF32x3, Precision::TF32}) {
    GemmProblem general;
    general.m = general.n = general.k = 4096;
    general.precision = mode;
    GemmProblem both = general;
    both.structure_a = both.structure_b = Structure::Symmetric;
    list.emplace_back("symmetric_both", both);
    list.emplace_back("symmetric_general", general);
  }
  // largeK as a new user meets it: no record (the default rule's K pieces), every mode.
  for (Precision mode : {Precision::FP32, Precision::TF32x3, Precision::TF32})
    for (const auto& r : reference_problems(mode))
      if (r.id == "largeK") list.emplace_back("largeK_untuned", r.problem);
  for (auto& np : load_problem_list(JITGEMM_SOURCE_DIR "/bench/sweep_problems.json"))
    list.emplace_back(np.id, np.problem);
  GemmProblem big;
  big.m = big.n = big.k = 8192;
  big.precision = Precision::TF32x3;
  list.emplace_back("dense_8192x8192x8192_NN", big);
  return list;
}

// The host cost rows: Runtime::gemm, GemmPlan::run and a raw launch, per mode; the database load.
void bench_dispatch(benchmark::State& state, Precision precision) {
  BenchEnv& env = *g_env;
  DispatchFigures f;
  for (auto _ : state) f = measure_dispatch(env.runtime, env.compiler, env.info.sm_count, precision, env.stream.get());
  state.counters["gemm_us"] = f.gemm_us;
  state.counters["plan_us"] = f.plan_us;
  state.counters["raw_launch_us"] = f.raw_launch_us;
  env.dispatch.push_back(f);
}

void bench_db_load(benchmark::State& state) {
  const GemmProblem tuned = reference_problems(Precision::TF32x3).front().problem;
  double ms = 0;
  for (auto _ : state) ms = measure_db_load_ms(tuned, 5);
  state.counters["db_load_ms"] = ms;
  g_env->db_load_ms = ms;
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
                         {"jitgemm_ms", r.jitgemm_ms}, {"baseline", r.baseline},
                         {"baseline_ms", r.baseline_ms},
                         {"speedup", r.baseline_ms / r.jitgemm_ms}, {"relerr", r.relerr},
                         {"baseline_relerr", r.baseline_relerr}, {"described", r.problem.to_string()},
                         {"tflops", r.products * tflops(r.problem, r.jitgemm_ms)},
                         {"order", {{"jitgemm_ms_after_baseline", r.jitgemm_ms_after_baseline},
                                    {"jitgemm_ms_after_itself", r.jitgemm_ms_after_itself},
                                    {"baseline_ms_after_jitgemm", r.baseline_ms_after_jitgemm},
                                    {"baseline_ms_after_itself", r.baseline_ms_after_itself}}},
                         {"gpu", {{"samples", r.telemetry.samples},
                                  {"sm_clock_mhz", r.telemetry.sm_clock_mhz},
                                  {"min_sm_clock_mhz", r.telemetry.min_sm_clock_mhz},
                                  {"power_w", r.telemetry.power_w},
                                  {"max_power_w", r.telemetry.max_power_w},
                                  {"power_limit_w", r.telemetry.power_limit_w},
                                  {"max_temperature_c", r.telemetry.max_temperature_c},
                                  {"power_capped", r.telemetry.power_capped},
                                  {"thermal_or_hw_slowdown", r.telemetry.thermal_or_hw}}}});
  for (size_t i = 0; i < env.rows.size(); ++i)
    if (env.rows[i].tune_s > 0) j["rows"][i]["tune_s"] = env.rows[i].tune_s;
  if (!env.telemetry.unavailable().empty()) j["gpu_telemetry"] = env.telemetry.unavailable();
  // Host cost per call (64 x 64 x 64): the top-level figures are the worst mode's, the one with
  // the largest gemm - raw difference (which may be negative: host noise of a few tenths of a us).
  j["dispatch"] = nlohmann::json::array();
  for (const auto& d : env.dispatch)
    j["dispatch"].push_back({{"mode", std::string(to_string(d.precision))}, {"kernel", d.kernel},
                             {"gemm_us", d.gemm_us}, {"plan_us", d.plan_us}, {"raw_launch_us", d.raw_launch_us}, {"launches", d.launches}});
  const auto worst = std::max_element(env.dispatch.begin(), env.dispatch.end(), [](const auto& x, const auto& y) {
    return x.gemm_us - x.raw_launch_us < y.gemm_us - y.raw_launch_us;
  });
  j["dispatch_us"] = worst != env.dispatch.end() ? worst->gemm_us : 0.0;
  j["raw_launch_us"] = worst != env.dispatch.end() ? worst->raw_launch_us : 0.0;
  j["db_load_ms"] = env.db_load_ms;
  j["hold_us"] = env.hold_us;
  const std::string dir = fmt::format("{}/bench/results", JITGEMM_SOURCE_DIR);
  std::filesystem::create_directories(dir);
  const char* out = std::getenv("JITGEMM_BENCH_RESULTS");  // another file than bench/results/<gpu>.json
  const std::string path = out != nullptr && *out != '\0' ? std::string(out) : fmt::format("{}/{}.json", dir, gpu);
  std::ofstream file(path);
  file << j.dump(2) << "\n";
  if (!file.flush()) fmt::print(stderr, "jitgemm-bench: could not write {}\n", path);
  fmt::print("\nwrote {}\n\n{:<28} {:>6} {:>11} {:>18} {:>10} {:>8} {:>9} {:>10} {:>10} {:>6} {:>6} {:>5} {:>6}\n", path,
             "problem", "mode", "jitgemm ms", "baseline", "base ms", "speedup", "TFLOP/s", "relerr", "base err", "MHz",
             "W", "cap%", "tune s");
  for (const auto& r : env.rows)
    fmt::print("{:<28} {:>6} {:>11.3f} {:>18} {:>10.3f} {:>7.2f}x {:>9.1f} {:>10.2e} {:>10.2e} {:>6.0f} {:>6.0f} {:>5.0f} {:>6}\n",
               r.id, to_string(r.problem.precision), r.jitgemm_ms, r.baseline, r.baseline_ms,
               r.baseline_ms / r.jitgemm_ms, r.products * tflops(r.problem, r.jitgemm_ms), r.relerr, r.baseline_relerr,
               r.telemetry.sm_clock_mhz, r.telemetry.power_w, 100 * r.telemetry.power_capped,
               r.tune_s > 0 ? fmt::format("{:.1f}", r.tune_s) : "-");
  if (!env.telemetry.unavailable().empty()) fmt::print("GPU telemetry: {}\n", env.telemetry.unavailable());
  fmt::print("\nhost cost per call, 64x64x64, us\n{:<7} {:>9} {:>9} {:>9} {:>9}  kernel\n", "mode", "gemm", "plan",
             "raw", "launches");
  for (const auto& d : env.dispatch)
    fmt::print("{:<7} {:>9.2f} {:>9.2f} {:>9.2f} {:>9}  {}\n", to_string(d.precision), d.gemm_us, d.plan_us,
               d.raw_launch_us, d.launches, d.kernel);
  fmt::print("database load (Runtime construction + first launch of a tuned problem, warm): {:.1f} ms\n",
             env.db_load_ms);
}

// A row's benchmark: registered as "<id>/<mode>", run as that name with Google Benchmark's
// suffixes for kRowIterations iterations of manual time (the name filters match).
constexpr int kRowIterations = 30;
std::string row_name(const std::string& id, const GemmProblem& p) {
  return fmt::format("{}/{}", id, to_string(p.precision));
}
std::string row_run_name(const std::string& id, const GemmProblem& p) {
  return fmt::format("{}/iterations:{}/manual_time", row_name(id, p), kRowIterations);
}

// Before the rows run: the kernels of every row the filter selects, loaded (compiled where the
// binary cache has none) from JITGEMM_BENCH_WARM_THREADS threads at once (default: one per core,
// at most 16; 0: off), since the Runtime compiles different kernels in parallel and the rows would
// otherwise compile theirs one after another (about 2 s each on the GPU machine, every row's
// kernel on a fresh machine). A row whose plan fails here fails, with the same error, when it runs.
void warm_up(BenchEnv& env, const std::vector<std::pair<std::string, GemmProblem>>& forward,
             const std::vector<std::pair<std::string, GemmProblem>>& backward) {
  unsigned threads = std::min(std::max(std::thread::hardware_concurrency(), 1u), 16u);
  if (const char* v = std::getenv("JITGEMM_BENCH_WARM_THREADS"); v != nullptr && *v != '\0')
    threads = static_cast<unsigned>(std::strtoul(v, nullptr, 10));
  if (threads == 0) return;
  // Google Benchmark's filter: a POSIX extended regular expression searched in the row's name;
  // "", "all" and a negative filter ("-...") warm every row.
  const std::string filter = benchmark::GetBenchmarkFilter();
  bool all = filter.empty() || filter == "all" || filter == "." || filter[0] == '-';
  std::regex selected;
  try {
    if (!all) selected = std::regex(filter, std::regex::extended);
  } catch (const std::regex_error&) {
    all = true;  // a filter std::regex reads otherwise than Google Benchmark: warm every row
  }
  struct Job {
    Runtime* runtime;
    GemmProblem problem;
  };
  std::vector<Job> jobs;
  // Matched against the name the filter sees ("/fp32/" and "^largeK/fp32/" select as for the rows).
  auto wanted = [&](const std::string& id, const GemmProblem& p) {
    return all || std::regex_search(row_run_name(id, p), selected);
  };
  for (const auto& [id, p] : forward)
    if (wanted(id, p)) jobs.push_back({&runtime_for(env, id), p});
  for (const auto& [id, p] : backward)
    if (wanted(id, p)) {
      const BackwardProblems grads = backward_problems(p);
      for (const GradientProblem* g : {&grads.da, &grads.db}) {
        jobs.push_back({&env.runtime, g->product});
        if (g->transposed_sum) jobs.push_back({&env.runtime, *g->transposed_sum});
      }
    }
  const auto started = std::chrono::steady_clock::now();
  std::atomic<size_t> next{0};
  const size_t workers = std::min<size_t>(threads, jobs.size());
  std::vector<std::thread> pool;
  for (size_t t = 0; t < workers; ++t)
    pool.emplace_back([&] {
      for (size_t i = next++; i < jobs.size(); i = next++) {
        try {
          jobs[i].runtime->plan(jobs[i].problem);
        } catch (const std::exception&) {
          // The row reports it.
        }
      }
    });
  for (auto& th : pool) th.join();
  fmt::print(stderr, "jitgemm-bench: {} products' kernels loaded from {} threads in {:.1f} s\n", jobs.size(), workers,
             std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count());
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
  warm_up(*env, bench_problems(), backward_bench_problems());
  for (auto& [id, problem] : bench_problems()) {
    const std::string name = row_name(id, problem);
    benchmark::RegisterBenchmark(name.c_str(), [id = id, problem = problem](benchmark::State& st) {
      bench_problem(st, id, problem);
    })->UseManualTime()->Iterations(kRowIterations)->Unit(benchmark::kMillisecond);
  }
  // ---- backward rows (see the section above) ----
  for (auto& [id, problem] : backward_bench_problems()) {
    const std::string name = row_name(id, problem);
    benchmark::RegisterBenchmark(name.c_str(), [id = id, problem = problem](benchmark::State& st) {
      bench_backward(st, id, problem);
    })->UseManualTime()->Iterations(kRowIterations)->Unit(benchmark::kMillisecond);
  }
  // ---- end of the backward rows ----
  for (Precision mode : {Precision::FP32, Precision::TF32x3, Precision::TF32})
    benchmark::RegisterBenchmark(fmt::format("dispatch_64x64x64/{}", to_string(mode)).c_str(),
                                 [mode](benchmark::State& st) { bench_dispatch(st, mode); })
        ->Iterations(1)
        ->Unit(benchmark::kMicrosecond);
  benchmark::RegisterBenchmark("db_load", bench_db_load)->Iterations(1)->Unit(benchmark::kMillisecond);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  write_results(*env);
  g_env = nullptr;
  return 0;
}
