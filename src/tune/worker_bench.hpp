// A CandidateBench whose measurements run in a worker process (jitgemm-tune-worker): a
// candidate that faults (illegal or misaligned address, __trap), crashes the worker or hangs
// past its watchdog is recorded as Faulted or TimedOut with the worker's fate, and the next
// request starts a fresh worker on the same inputs (same seed). The caller's process and
// CUDA context never run a candidate.
#pragma once

#include <memory>

#include "tune/tuning_bench.hpp"

namespace jitgemm {

// Starts the first worker and waits for its inputs. Throws (the failure's own type, e.g.
// CudaError for no device) when the worker cannot start or prepare them: a broken
// environment ends the tuning run. Needs no CUDA context in the caller.
std::unique_ptr<CandidateBench> make_worker_bench(const GemmProblem& problem, const cuda::DeviceInfo& device,
                                                  const Compiler& compiler, const TemplateStore& templates,
                                                  const BenchSettings& settings);

}  // namespace jitgemm
