/* jitgemm C ABI: plain functions and an opaque handle, for C and ctypes callers.
 * Every function returns a jitgemm_status; on failure jitgemm_last_error() returns the
 * message of the failure on the calling thread. Conventions as in problem.hpp. */
#ifndef JITGEMM_JITGEMM_H
#define JITGEMM_JITGEMM_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
  JITGEMM_SUCCESS = 0,
  JITGEMM_INVALID_ARGUMENT = 1,
  JITGEMM_NOT_SUPPORTED = 2,
  JITGEMM_CUDA_ERROR = 3,
  JITGEMM_COMPILE_ERROR = 4,
  JITGEMM_DATABASE_ERROR = 5,
  JITGEMM_INTERNAL_ERROR = 6
} jitgemm_status;

typedef enum { JITGEMM_OP_N = 0, JITGEMM_OP_T = 1 } jitgemm_op;
/* As jitgemm::Structure (problem.hpp): the stored operand's structure; the other triangle is never read. */
typedef enum { JITGEMM_STRUCTURE_GENERAL = 0, JITGEMM_STRUCTURE_SYMMETRIC = 1, JITGEMM_STRUCTURE_LOWER = 2,
               JITGEMM_STRUCTURE_UPPER = 3, JITGEMM_STRUCTURE_SYMMETRIC_UPPER = 4, JITGEMM_STRUCTURE_LOWER_UNIT = 5,
               JITGEMM_STRUCTURE_UPPER_UNIT = 6 } jitgemm_structure;
typedef enum { JITGEMM_FILL_FULL = 0, JITGEMM_FILL_LOWER = 1, JITGEMM_FILL_UPPER = 2 } jitgemm_fill;
typedef enum { JITGEMM_PRECISION_FP32 = 0, JITGEMM_PRECISION_TF32X3 = 1, JITGEMM_PRECISION_TF32 = 2 } jitgemm_precision;

typedef struct {
  int64_t m, n, k;
  jitgemm_op trans_a, trans_b;
  int64_t lda, ldb, ldc; /* 0: tight */
  float alpha, beta;
  jitgemm_structure structure_a, structure_b;
  jitgemm_fill fill;
  jitgemm_precision precision;
} jitgemm_problem;

typedef struct jitgemm_runtime_s* jitgemm_runtime;

/* A problem with every field at its default (alpha 1, beta 0, general, full, fp32). */
jitgemm_problem jitgemm_problem_default(int64_t m, int64_t n, int64_t k);

/* device: CUDA ordinal; database_path, cache_dir: NULL for the defaults. */
jitgemm_status jitgemm_create(jitgemm_runtime* out, int device, const char* database_path, const char* cache_dir);
jitgemm_status jitgemm_destroy(jitgemm_runtime runtime);

/* C = alpha op(A) op(B) + beta C on `stream` (a CUstream / cudaStream_t, NULL: default). */
jitgemm_status jitgemm_gemm(jitgemm_runtime runtime, const jitgemm_problem* problem, const float* a,
                            const float* b, float* c, void* stream);

/* As jitgemm::GemmPlan (Runtime::plan): `problem`'s kernel selected and loaded once; each
 * jitgemm_plan_run launches it with no lookup (thread-safe, capturable in a CUDA graph).
 * Destroy plans before their runtime. */
typedef struct jitgemm_plan_s* jitgemm_plan;
jitgemm_status jitgemm_plan_create(jitgemm_runtime runtime, const jitgemm_problem* problem, jitgemm_plan* out);
jitgemm_status jitgemm_plan_run(jitgemm_plan plan, const float* a, const float* b, float* c, void* stream);
jitgemm_status jitgemm_plan_destroy(jitgemm_plan plan);

/* The gradients of the forward `problem` (jitgemm/backward.hpp; README "Backward"): dA and dB of
 * the Model fill(alpha op(A) op(B)) given dc, on `stream`. da is written stored like A (lda), db
 * like B (ldb); a NULL da or db is not computed (both NULL: nothing happens). project_a /
 * project_b (0 or 1): project that gradient on its operand's declared structure (triangular:
 * its triangle, unit: strict triangle, symmetric: (dX + dX^T) / 2; a general operand is
 * JITGEMM_INVALID_ARGUMENT). */
jitgemm_status jitgemm_gemm_backward(jitgemm_runtime runtime, const jitgemm_problem* problem, const float* dc,
                                     const float* a, const float* b, float* da, float* db, int project_a,
                                     int project_b, void* stream);

/* Tunes `problem` and stores the winner; *median_ms receives its time (may be NULL). */
jitgemm_status jitgemm_tune(jitgemm_runtime runtime, const jitgemm_problem* problem, double* median_ms);

/* As jitgemm::TuneOptions: parallel compiles (0: hardware threads), timed runs per candidate
 * (the median of at least 20), whether the winner is written to the database (0 or 1), and the
 * seconds of wall time the tuning may take (default 20: candidates ranked by a performance
 * model, pruned, successive halving to the finalists; 0: the exhaustive search; finite, >= 0).
 * Start from jitgemm_tune_options_default() so that a field added later gets its default. */
typedef struct {
  int jobs;
  int timing_runs;
  int write_database;
  double budget_s;
} jitgemm_tune_options;

jitgemm_tune_options jitgemm_tune_options_default(void);
jitgemm_status jitgemm_tune_with(jitgemm_runtime runtime, const jitgemm_problem* problem,
                                 const jitgemm_tune_options* options, double* median_ms);

/* As jitgemm::ServeCounters: how many gemm calls each serving rule answered. */
typedef struct {
  uint64_t exact, nearest, fallback, stale;
} jitgemm_serve_counters;

jitgemm_status jitgemm_get_serve_counters(jitgemm_runtime runtime, jitgemm_serve_counters* out);

typedef enum { JITGEMM_SERVE_EXACT = 0, JITGEMM_SERVE_NEAREST = 1, JITGEMM_SERVE_DEFAULT = 2 } jitgemm_serve_rule;

/* As jitgemm::ServeExplanation (Runtime::explain): how gemm serves `problem` now, with aligned
 * operands; nothing is compiled or run. The strings stay valid until the next jitgemm_explain on
 * the calling thread; record is "" under the default rule. */
typedef struct {
  jitgemm_serve_rule rule;
  int stale;
  const char* kernel;
  const char* record;
  const char* text;
} jitgemm_explanation;

jitgemm_status jitgemm_explain(jitgemm_runtime runtime, const jitgemm_problem* problem, jitgemm_explanation* out);

/* The struct layout this library was built with, for bindings that mirror the structs (ctypes):
 * the byte offset of `field` in the struct named `type` ("jitgemm_problem", "jitgemm_tune_options",
 * "jitgemm_serve_counters", "jitgemm_explanation"), the struct's size when field is NULL, -1 for
 * a name it does not know. */
int64_t jitgemm_abi_layout(const char* type, const char* field);

/* The message of the last failure on this thread ("" if none). Valid until the next call. */
const char* jitgemm_last_error(void);

const char* jitgemm_version(void);

#ifdef __cplusplus
}
#endif

#endif /* JITGEMM_JITGEMM_H */
