// The C ABI: exceptions become status codes plus a thread-local message.
#include "jitgemm/jitgemm.h"

#include <fmt/format.h>

#include <cmath>
#include <cstddef>
#include <cstring>
#include <string>

#include "jitgemm/error.hpp"
#include "jitgemm/runtime.hpp"

struct jitgemm_runtime_s {
  jitgemm::Runtime runtime;
};

struct jitgemm_plan_s {
  jitgemm::GemmPlan plan;
};

namespace {

thread_local std::string g_last_error;
thread_local jitgemm::ServeExplanation g_explanation;  // what jitgemm_explain's strings point into

template <class F>
jitgemm_status guarded(F&& body) {
  try {
    body();
    g_last_error.clear();
    return JITGEMM_SUCCESS;
  } catch (const jitgemm::InvalidArgument& e) {
    g_last_error = e.what();
    return JITGEMM_INVALID_ARGUMENT;
  } catch (const jitgemm::NotSupported& e) {
    g_last_error = e.what();
    return JITGEMM_NOT_SUPPORTED;
  } catch (const jitgemm::CudaError& e) {
    g_last_error = e.what();
    return JITGEMM_CUDA_ERROR;
  } catch (const jitgemm::CompileError& e) {
    g_last_error = std::string(e.what()) + "\n" + e.log();
    return JITGEMM_COMPILE_ERROR;
  } catch (const jitgemm::DatabaseError& e) {
    g_last_error = e.what();
    return JITGEMM_DATABASE_ERROR;
  } catch (const std::exception& e) {
    g_last_error = e.what();
    return JITGEMM_INTERNAL_ERROR;
  } catch (...) {
    g_last_error = "unknown exception";
    return JITGEMM_INTERNAL_ERROR;
  }
}

jitgemm::GemmProblem to_cpp(const jitgemm_problem& p) {
  jitgemm::GemmProblem q;
  q.m = p.m;
  q.n = p.n;
  q.k = p.k;
  q.trans_a = p.trans_a == JITGEMM_OP_T ? jitgemm::Op::T : jitgemm::Op::N;
  q.trans_b = p.trans_b == JITGEMM_OP_T ? jitgemm::Op::T : jitgemm::Op::N;
  q.lda = p.lda;
  q.ldb = p.ldb;
  q.ldc = p.ldc;
  q.alpha = p.alpha;
  q.beta = p.beta;
  auto structure = [](jitgemm_structure s, const char* name) {
    switch (s) {
      case JITGEMM_STRUCTURE_GENERAL: return jitgemm::Structure::General;
      case JITGEMM_STRUCTURE_SYMMETRIC: return jitgemm::Structure::Symmetric;
      case JITGEMM_STRUCTURE_LOWER: return jitgemm::Structure::Lower;
      case JITGEMM_STRUCTURE_UPPER: return jitgemm::Structure::Upper;
      case JITGEMM_STRUCTURE_SYMMETRIC_UPPER: return jitgemm::Structure::SymmetricUpper;
      case JITGEMM_STRUCTURE_LOWER_UNIT: return jitgemm::Structure::LowerUnit;
      case JITGEMM_STRUCTURE_UPPER_UNIT: return jitgemm::Structure::UpperUnit;
    }
    throw jitgemm::InvalidArgument(std::string("jitgemm_problem.") + name + ": unknown structure value");
  };
  q.structure_a = structure(p.structure_a, "structure_a");
  q.structure_b = structure(p.structure_b, "structure_b");
  switch (p.fill) {
    case JITGEMM_FILL_FULL: q.fill = jitgemm::Fill::Full; break;
    case JITGEMM_FILL_LOWER: q.fill = jitgemm::Fill::Lower; break;
    case JITGEMM_FILL_UPPER: q.fill = jitgemm::Fill::Upper; break;
    default: throw jitgemm::InvalidArgument("jitgemm_problem.fill: unknown fill value");
  }
  switch (p.precision) {
    case JITGEMM_PRECISION_FP32: q.precision = jitgemm::Precision::FP32; break;
    case JITGEMM_PRECISION_TF32X3: q.precision = jitgemm::Precision::TF32x3; break;
    case JITGEMM_PRECISION_TF32: q.precision = jitgemm::Precision::TF32; break;
    default: throw jitgemm::InvalidArgument("jitgemm_problem.precision: unknown precision value");
  }
  if (p.trans_a != JITGEMM_OP_N && p.trans_a != JITGEMM_OP_T)
    throw jitgemm::InvalidArgument("jitgemm_problem.trans_a: unknown op value");
  if (p.trans_b != JITGEMM_OP_N && p.trans_b != JITGEMM_OP_T)
    throw jitgemm::InvalidArgument("jitgemm_problem.trans_b: unknown op value");
  return q;
}

void require(const void* p, const char* what) {
  if (p == nullptr) throw jitgemm::InvalidArgument(std::string(what) + " is a null pointer");
}

// A C boolean argument: 0 or 1 (anything else is more likely a swapped argument than "true").
bool flag(int value, const char* what) {
  if (value != 0 && value != 1)
    throw jitgemm::InvalidArgument(std::string(what) + "=" + std::to_string(value) + " must be 0 or 1");
  return value == 1;
}

// One field of a C struct, for jitgemm_abi_layout (NULL field: the struct itself).
struct LayoutEntry {
  const char* type;
  const char* field;
  size_t value;
};

#define JITGEMM_FIELD(T, F) LayoutEntry{#T, #F, offsetof(T, F)}
#define JITGEMM_STRUCT(T) LayoutEntry{#T, nullptr, sizeof(T)}
constexpr LayoutEntry kLayout[] = {
    JITGEMM_STRUCT(jitgemm_problem),
    JITGEMM_FIELD(jitgemm_problem, m),
    JITGEMM_FIELD(jitgemm_problem, n),
    JITGEMM_FIELD(jitgemm_problem, k),
    JITGEMM_FIELD(jitgemm_problem, trans_a),
    JITGEMM_FIELD(jitgemm_problem, trans_b),
    JITGEMM_FIELD(jitgemm_problem, lda),
    JITGEMM_FIELD(jitgemm_problem, ldb),
    JITGEMM_FIELD(jitgemm_problem, ldc),
    JITGEMM_FIELD(jitgemm_problem, alpha),
    JITGEMM_FIELD(jitgemm_problem, beta),
    JITGEMM_FIELD(jitgemm_problem, structure_a),
    JITGEMM_FIELD(jitgemm_problem, structure_b),
    JITGEMM_FIELD(jitgemm_problem, fill),
    JITGEMM_FIELD(jitgemm_problem, precision),
    JITGEMM_STRUCT(jitgemm_tune_options),
    JITGEMM_FIELD(jitgemm_tune_options, jobs),
    JITGEMM_FIELD(jitgemm_tune_options, timing_runs),
    JITGEMM_FIELD(jitgemm_tune_options, write_database),
    JITGEMM_FIELD(jitgemm_tune_options, budget_s),
    JITGEMM_STRUCT(jitgemm_serve_counters),
    JITGEMM_FIELD(jitgemm_serve_counters, exact),
    JITGEMM_FIELD(jitgemm_serve_counters, nearest),
    JITGEMM_FIELD(jitgemm_serve_counters, fallback),
    JITGEMM_FIELD(jitgemm_serve_counters, stale),
    JITGEMM_STRUCT(jitgemm_explanation),
    JITGEMM_FIELD(jitgemm_explanation, rule),
    JITGEMM_FIELD(jitgemm_explanation, stale),
    JITGEMM_FIELD(jitgemm_explanation, kernel),
    JITGEMM_FIELD(jitgemm_explanation, record),
    JITGEMM_FIELD(jitgemm_explanation, text),
};
#undef JITGEMM_FIELD
#undef JITGEMM_STRUCT

}  // namespace

extern "C" {

jitgemm_problem jitgemm_problem_default(int64_t m, int64_t n, int64_t k) {
  jitgemm_problem p{};
  p.m = m;
  p.n = n;
  p.k = k;
  p.alpha = 1.0f;
  return p;
}

jitgemm_status jitgemm_create(jitgemm_runtime* out, int device, const char* database_path, const char* cache_dir) {
  return guarded([&] {
    require(out, "jitgemm_create: out");
    *out = nullptr;
    jitgemm::RuntimeOptions options;
    options.device = device;
    if (database_path != nullptr) options.database_path = database_path;
    if (cache_dir != nullptr) options.cache_dir = cache_dir;
    *out = new jitgemm_runtime_s{jitgemm::Runtime(options)};
  });
}

jitgemm_status jitgemm_destroy(jitgemm_runtime runtime) {
  return guarded([&] { delete runtime; });
}

jitgemm_status jitgemm_gemm(jitgemm_runtime runtime, const jitgemm_problem* problem, const float* a, const float* b,
                            float* c, void* stream) {
  return guarded([&] {
    require(runtime, "jitgemm_gemm: runtime");
    require(problem, "jitgemm_gemm: problem");
    runtime->runtime.gemm(to_cpp(*problem), a, b, c, static_cast<CUstream_st*>(stream));
  });
}

jitgemm_status jitgemm_plan_create(jitgemm_runtime runtime, const jitgemm_problem* problem, jitgemm_plan* out) {
  return guarded([&] {
    require(out, "jitgemm_plan_create: out");
    *out = nullptr;
    require(runtime, "jitgemm_plan_create: runtime");
    require(problem, "jitgemm_plan_create: problem");
    *out = new jitgemm_plan_s{runtime->runtime.plan(to_cpp(*problem))};
  });
}

jitgemm_status jitgemm_plan_run(jitgemm_plan plan, const float* a, const float* b, float* c, void* stream) {
  return guarded([&] {
    require(plan, "jitgemm_plan_run: plan");
    plan->plan.run(a, b, c, static_cast<CUstream_st*>(stream));
  });
}

jitgemm_status jitgemm_plan_destroy(jitgemm_plan plan) {
  return guarded([&] { delete plan; });
}

jitgemm_status jitgemm_gemm_backward(jitgemm_runtime runtime, const jitgemm_problem* problem, const float* dc,
                                     const float* a, const float* b, float* da, float* db, int project_a,
                                     int project_b, void* stream) {
  return guarded([&] {
    require(runtime, "jitgemm_gemm_backward: runtime");
    require(problem, "jitgemm_gemm_backward: problem");
    const jitgemm::BackwardOptions options{flag(project_a, "jitgemm_gemm_backward: project_a"),
                                           flag(project_b, "jitgemm_gemm_backward: project_b")};
    runtime->runtime.gemm_backward(to_cpp(*problem), dc, a, b, da, db, static_cast<CUstream_st*>(stream), options);
  });
}

jitgemm_status jitgemm_tune(jitgemm_runtime runtime, const jitgemm_problem* problem, double* median_ms) {
  return guarded([&] {
    require(runtime, "jitgemm_tune: runtime");
    require(problem, "jitgemm_tune: problem");
    const double ms = runtime->runtime.tune(to_cpp(*problem));
    if (median_ms != nullptr) *median_ms = ms;
  });
}

jitgemm_tune_options jitgemm_tune_options_default(void) {
  const jitgemm::TuneOptions d;
  return {d.jobs, d.timing_runs, d.write_database ? 1 : 0, d.budget_s};
}

jitgemm_status jitgemm_tune_with(jitgemm_runtime runtime, const jitgemm_problem* problem,
                                 const jitgemm_tune_options* options, double* median_ms) {
  return guarded([&] {
    require(runtime, "jitgemm_tune_with: runtime");
    require(problem, "jitgemm_tune_with: problem");
    require(options, "jitgemm_tune_with: options");
    if (options->jobs < 0)
      throw jitgemm::InvalidArgument("jitgemm_tune_with: options.jobs=" + std::to_string(options->jobs) +
                                     " must be >= 0 (0: hardware threads)");
    if (options->timing_runs < 20)
      throw jitgemm::InvalidArgument("jitgemm_tune_with: options.timing_runs=" + std::to_string(options->timing_runs) +
                                     " must be >= 20 (the median of at least 20 runs)");
    if (!(options->budget_s >= 0 && std::isfinite(options->budget_s)))  // NaN fails the first test
      throw jitgemm::InvalidArgument(fmt::format(
          "jitgemm_tune_with: options.budget_s={} must be finite and >= 0 (seconds; 0: the exhaustive search)",
          options->budget_s));
    jitgemm::TuneOptions o;
    o.jobs = options->jobs;
    o.budget_s = options->budget_s;
    o.timing_runs = options->timing_runs;
    o.write_database = flag(options->write_database, "jitgemm_tune_with: options.write_database");
    const double ms = runtime->runtime.tune(to_cpp(*problem), o);
    if (median_ms != nullptr) *median_ms = ms;
  });
}

jitgemm_status jitgemm_get_serve_counters(jitgemm_runtime runtime, jitgemm_serve_counters* out) {
  return guarded([&] {
    require(runtime, "jitgemm_get_serve_counters: runtime");
    require(out, "jitgemm_get_serve_counters: out");
    const jitgemm::ServeCounters c = runtime->runtime.serve_counters();
    *out = {c.exact, c.nearest, c.fallback, c.stale};
  });
}

jitgemm_status jitgemm_explain(jitgemm_runtime runtime, const jitgemm_problem* problem, jitgemm_explanation* out) {
  return guarded([&] {
    require(runtime, "jitgemm_explain: runtime");
    require(problem, "jitgemm_explain: problem");
    require(out, "jitgemm_explain: out");
    g_explanation = runtime->runtime.explain(to_cpp(*problem));
    const jitgemm::ServeRule rule = g_explanation.rule;
    out->rule = rule == jitgemm::ServeRule::Exact     ? JITGEMM_SERVE_EXACT
                : rule == jitgemm::ServeRule::Nearest ? JITGEMM_SERVE_NEAREST
                                                      : JITGEMM_SERVE_DEFAULT;
    out->stale = g_explanation.stale ? 1 : 0;
    out->kernel = g_explanation.kernel.c_str();
    out->record = g_explanation.record.c_str();
    out->text = g_explanation.text.c_str();
  });
}

int64_t jitgemm_abi_layout(const char* type, const char* field) {
  if (type == nullptr) return -1;
  for (const LayoutEntry& e : kLayout) {
    if (std::strcmp(e.type, type) != 0) continue;
    if (field == nullptr ? e.field == nullptr : e.field != nullptr && std::strcmp(e.field, field) == 0)
      return static_cast<int64_t>(e.value);
  }
  return -1;
}

const char* jitgemm_last_error(void) { return g_last_error.c_str(); }

const char* jitgemm_version(void) { return JITGEMM_VERSION; }

}  // extern "C"
