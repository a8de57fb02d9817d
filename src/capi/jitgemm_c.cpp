// The C ABI: exceptions become status codes plus a thread-local message.
#include "jitgemm/jitgemm.h"

#include <string>

#include "jitgemm/error.hpp"
#include "jitgemm/runtime.hpp"

struct jitgemm_runtime_s {
  jitgemm::Runtime runtime;
};

namespace {

thread_local std::string g_last_error;

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

const char* jitgemm_last_error(void) { return g_last_error.c_str(); }

const char* jitgemm_version(void) { return JITGEMM_VERSION; }

}  // extern "C"
