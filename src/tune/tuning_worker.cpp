// run_tuning_worker: setup, then one verdict per measure request (see tuning_worker.hpp).
#include "tune/tuning_worker.hpp"

#include <unistd.h>

#include <cstdio>
#include <memory>
#include <optional>

#include "codegen/template_store.hpp"
#include "compile/compiler.hpp"
#include "cuda/context.hpp"
#include "cuda/device_info.hpp"
#include "tune/tuning_bench.hpp"
#include "tune/worker_protocol.hpp"

namespace jitgemm {
namespace {

constexpr int kContextLostExit = 3;

// Everything the worker holds, in construction order (the bench uses all of them).
struct WorkerState {
  cuda::PrimaryContext context;
  cuda::DeviceInfo device;
  Compiler compiler;
  std::optional<TemplateStore> directory_templates;
  std::unique_ptr<LocalBench> bench;

  explicit WorkerState(const worker::WorkerSetup& s)
      : context(s.device),
        device(cuda::query_device(s.device)),
        compiler(s.cache_dir.empty() ? std::nullopt : std::optional<std::filesystem::path>(s.cache_dir)) {
    if (!s.template_dir.empty()) directory_templates.emplace(TemplateStore::from_directory(s.template_dir));
    const TemplateStore& templates = directory_templates ? *directory_templates : TemplateStore::embedded();
    bench = std::make_unique<LocalBench>(s.problem, device, compiler, templates, s.settings);
  }
};

}  // namespace

int run_tuning_worker(int fd) {
  worker::FrameDecoder decoder;
  std::unique_ptr<WorkerState> state;
  try {
    const std::optional<worker::json> setup = worker::receive_frame(fd, decoder);
    if (!setup) return 0;
    state = std::make_unique<WorkerState>(worker::parse_setup(*setup));
    worker::send_frame(fd, worker::ready_message(state->bench->inputs()));
    while (const std::optional<worker::json> message = worker::receive_frame(fd, decoder)) {
      const worker::OwnedRequest request = worker::parse_measure(*message);
      const BenchVerdict verdict = state->bench->measure(request.view());
      const bool lost = state->bench->context_lost();
      worker::send_frame(fd, worker::verdict_message(verdict, lost));
      if (lost) {
        // The context is unusable: leave without the destructors' CUDA calls.
        std::fflush(nullptr);
        ::_exit(kContextLostExit);
      }
    }
    return 0;
  } catch (const std::exception& e) {
    try {
      worker::send_frame(fd, worker::failure_message(e));
    } catch (const std::exception&) {
      // the run is gone too
    }
    std::fprintf(stderr, "jitgemm-tune-worker: %s\n", e.what());
    std::fflush(nullptr);
    ::_exit(1);  // the context may be broken: no destructors
  }
}

}  // namespace jitgemm
