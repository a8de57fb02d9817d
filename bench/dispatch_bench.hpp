// Host cost per call of serving a small product (64 x 64 x 64), back to back on one stream:
// Runtime::gemm, GemmPlan::run and raw cuLaunchKernel calls of the same kernels with the same
// arguments (the main kernel, and the split-K reduction when the served config splits K), each as the median over rounds of the mean over 200 calls (the stream is
// synchronized between rounds, outside the timing). And db_load_ms: a Runtime constructed
// on the default database plus its first call of a tuned problem, warm (binary cache filled).
#pragma once

#include <string>
#include <vector>

#include <cuda.h>

#include "jitgemm/problem.hpp"
#include "jitgemm/runtime.hpp"

namespace jitgemm {

class Compiler;

struct DispatchFigures {
  Precision precision = Precision::FP32;
  std::string kernel;        // the served config
  double gemm_us = 0;        // Runtime::gemm
  double plan_us = 0;        // GemmPlan::run
  double raw_launch_us = 0;  // cuLaunchKernel of the same kernels (0: a wgmma plan, not measured)
  int launches = 0;          // kernels a call launches (main, reduction)
};

// 64 x 64 x 64 in `precision` through `runtime`, on `stream`.
DispatchFigures measure_dispatch(Runtime& runtime, const Compiler& compiler, int sm_count, Precision precision,
                                 CUstream stream);

// Milliseconds from Runtime construction (default options) to the end of the first run of
// `tuned` (a problem with a record in the default database); median of `rounds`.
double measure_db_load_ms(const GemmProblem& tuned, int rounds);

}  // namespace jitgemm
