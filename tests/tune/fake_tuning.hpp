// Fakes for the CPU tests of the tuning loop: a clock that moves only when told, a bench with
// synthetic timings that costs fake time per request, and a compile that costs fake time.
#pragma once

#include <atomic>
#include <chrono>
#include <map>
#include <memory>
#include <mutex>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "tune/candidate_compiler.hpp"
#include "tune/tuning_bench.hpp"
#include "tune/tuning_budget.hpp"

namespace jitgemm::testing {

// Seconds that pass only when advance() says so; shared by every thread of a run.
class FakeClock {
 public:
  void advance(double seconds) {
    double now = now_.load();
    while (!now_.compare_exchange_weak(now, now + seconds)) {
    }
  }
  double now() const { return now_.load(); }
  TuningClock clock() const {
    return [this] { return now(); };
  }

 private:
  std::atomic<double> now_{1000.0};
};

// What a fake candidate does on the bench.
struct FakeKernel {
  double ms = 1.0;             // its true median
  bool wrong = false;          // fails verification
  bool faults_on_retime = false;
};

// A bench whose candidates take their FakeKernel's time, with relative noise, and whose
// requests cost `overhead_s` plus their launches in fake time. Records every request.
class FakeBench : public CandidateBench {
 public:
  struct Request {
    size_t index;
    std::string config;
    MeasurePhase phase;
    int warmup_runs, runs;
    double idle_ratio;
  };

  FakeBench(FakeClock& clock, std::map<std::string, FakeKernel> kernels, double overhead_s, double noise,
            uint64_t seed = 7)
      : clock_(clock), kernels_(std::move(kernels)), overhead_s_(overhead_s), noise_(noise), random_(seed) {
    inputs_.tolerance = 1e-6;
    inputs_.cublas_rel_error = 5e-7;
    inputs_.cublas_timing.median_ms = 1.0;
    inputs_.cublas_timing.runs = 25;
  }

  const TuningInputs& inputs() const override { return inputs_; }

  BenchVerdict measure(const MeasureRequest& r) override {
    const std::string name = r.config->name();
    requests.push_back({r.index, name, r.phase, r.warmup_runs, r.runs, r.idle_ratio});
    const auto it = kernels_.find(name);
    const FakeKernel kernel = it != kernels_.end() ? it->second : FakeKernel{};
    clock_.advance(overhead_s_ + run_lengths_of(r) * kernel.ms / 1000);
    BenchVerdict v;
    if (r.phase == MeasurePhase::Screen && kernel.wrong) {
      v.outcome = CandidateOutcome::WrongResult;
      v.rel_error = 1e-2;
      v.detail = "error 1e-2 (tolerance 1e-6), 0 unwritten, 0 NaN/Inf mismatches";
      return v;
    }
    if (r.phase == MeasurePhase::Retime && kernel.faults_on_retime) {
      v.outcome = CandidateOutcome::Faulted;
      v.detail = "CUDA_ERROR_ILLEGAL_ADDRESS";
      return v;
    }
    std::uniform_real_distribution<double> jitter(1 - noise_, 1 + noise_);
    std::vector<double> samples;
    for (int i = 0; i < r.runs; ++i) samples.push_back(slowdown * kernel.ms * jitter(random_));
    v.timing = summarize(samples);
    v.rel_error = 1e-7;
    return v;
  }

  std::vector<Request> requests;
  double slowdown = 1.0;  // every kernel's time this many times its median (a slow stretch of the GPU)

 private:
  FakeClock& clock_;
  std::map<std::string, FakeKernel> kernels_;
  TuningInputs inputs_;
  double overhead_s_, noise_;
  std::mt19937_64 random_;
};

// How far compiles may run ahead of measurements: with fake time, a compiling thread that ran
// on while the measuring one was descheduled would spend fake seconds nobody could react to.
// A compile waits (up to `patience`, real time) until no more than `lead` compiles are ahead
// of the bench's requests.
struct CompilePacing {
  std::atomic<int> compiles{0};
  std::atomic<int> measures{0};
  int lead = 4;
  std::chrono::milliseconds patience{300};
  void wait_turn() {
    const int mine = ++compiles;
    const auto give_up = std::chrono::steady_clock::now() + patience;
    while (mine > measures.load() + lead && std::chrono::steady_clock::now() < give_up)
      std::this_thread::sleep_for(std::chrono::microseconds(100));
  }
};

// A compile that succeeds and costs `seconds` of fake time (and a little real time, so that
// the measuring thread runs between compiles); paced by `pacing` when given.
inline CompileKernel fake_compile(FakeClock& clock, double seconds, std::atomic<int>* calls = nullptr,
                                  CompilePacing* pacing = nullptr) {
  return [&clock, seconds, calls, pacing](const RenderedKernel& kernel) {
    if (calls) ++*calls;
    if (pacing) pacing->wait_turn();
    std::this_thread::sleep_for(std::chrono::microseconds(200));
    clock.advance(seconds);
    CompileOutcome out;
    out.ok = true;
    out.kernel.kernel_name = kernel.kernel_name;
    return out;
  };
}

}  // namespace jitgemm::testing
