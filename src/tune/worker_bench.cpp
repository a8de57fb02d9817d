// WorkerBench: measure requests forwarded to a worker process, restarted after a candidate
// takes it down (see worker_bench.hpp).
#include "tune/worker_bench.hpp"

#include <fmt/format.h>

#include "codegen/template_store.hpp"
#include "compile/compiler.hpp"
#include "cuda/device_info.hpp"
#include "jitgemm/error.hpp"
#include "tune/worker_process.hpp"
#include "tune/worker_protocol.hpp"

namespace jitgemm {
namespace {

// Starting a worker: a CUDA context, the support kernels (NVRTC, usually from the binary
// cache), the operands, the float64 reference and the cuBLAS baseline.
constexpr double kSetupTimeoutMs = 300'000;

class WorkerBench : public CandidateBench {
 public:
  WorkerBench(worker::WorkerSetup setup, std::filesystem::path executable)
      : setup_(std::move(setup)), executable_(std::move(executable)) {
    inputs_ = start();
  }

  const TuningInputs& inputs() const override { return inputs_; }

  BenchVerdict measure(const MeasureRequest& r) override {
    if (!worker_ || !worker_->alive()) start();
    const worker::json request = worker::measure_message(r);  // holds the cubin: encoded once
    if (!worker_->send(request)) {
      // It died between requests (nothing of this candidate ran): one fresh try.
      start();
      if (!worker_->send(request))
        throw Error(fmt::format("tuning worker: a fresh worker died before its first request ({})", worker_->fate()));
    }
    worker::json reply;
    switch (worker_->receive(r.watchdog_ms, reply)) {
      case WorkerProcess::Wait::TimedOut:
        return lost(CandidateOutcome::TimedOut);
      case WorkerProcess::Wait::Died:
        return lost(CandidateOutcome::Faulted);
      case WorkerProcess::Wait::Message:
        break;
    }
    if (reply.value("type", "") == "failure") worker::rethrow_failure(reply, "tuning worker");
    bool context_lost = false;
    BenchVerdict v = worker::parse_verdict(reply, context_lost);
    if (context_lost) worker_.reset();  // it exits after this verdict; the next request starts another
    return v;
  }

 private:
  // A fresh worker, set up and ready; returns the inputs it prepared.
  TuningInputs start() {
    worker_.reset();
    worker_ = std::make_unique<WorkerProcess>(executable_);
    if (!worker_->send(worker::setup_message(setup_)))
      throw Error(fmt::format("tuning worker {}: could not be set up ({})", executable_.string(), worker_->fate()));
    worker::json reply;
    const WorkerProcess::Wait wait = worker_->receive(kSetupTimeoutMs, reply);
    if (wait != WorkerProcess::Wait::Message)
      throw Error(fmt::format("tuning worker {}: no inputs ({})", executable_.string(), worker_->fate()));
    if (reply.value("type", "") == "failure") worker::rethrow_failure(reply, "tuning worker");
    return worker::parse_ready(reply);
  }

  BenchVerdict lost(CandidateOutcome outcome) {
    BenchVerdict v;
    v.outcome = outcome;
    v.detail = worker_->fate();
    worker_.reset();
    return v;
  }

  worker::WorkerSetup setup_;
  std::filesystem::path executable_;
  std::unique_ptr<WorkerProcess> worker_;
  TuningInputs inputs_;  // the first worker's (later ones prepare the same operands)
};

}  // namespace

std::unique_ptr<CandidateBench> make_worker_bench(const GemmProblem& problem, const cuda::DeviceInfo& device,
                                                  const Compiler& compiler, const TemplateStore& templates,
                                                  const BenchSettings& settings) {
  worker::WorkerSetup setup;
  setup.problem = problem;
  setup.settings = settings;
  setup.device = device.ordinal;
  setup.template_dir = templates.origin() == "embedded" ? std::string() : templates.origin();
  setup.cache_dir = compiler.cache() ? compiler.cache()->dir().string() : std::string();
  return std::make_unique<WorkerBench>(std::move(setup), find_tuning_worker());
}

}  // namespace jitgemm
