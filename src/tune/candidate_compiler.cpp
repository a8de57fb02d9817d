#include "tune/candidate_compiler.hpp"

#include <algorithm>
#include <atomic>
#include <mutex>
#include <thread>

#include "codegen/template_store.hpp"

namespace jitgemm {

CompileOptions gemm_compile_options() {
  CompileOptions options;
  options.arch = "sm_90a";
  options.ptxas_verbose = true;
  return options;
}

std::vector<CompiledCandidate> compile_candidates(const std::vector<KernelConfig>& configs,
                                                  const KernelSpecialization& specialization,
                                                  const Compiler& compiler, const TemplateStore& templates,
                                                  int jobs, const CompileProgress& progress) {
  std::vector<CompiledCandidate> results(configs.size());
  const CompileOptions options = gemm_compile_options();
  std::atomic<size_t> next{0};
  std::mutex progress_mutex;
  size_t done = 0;
  auto worker = [&] {
    for (size_t i = next++; i < configs.size(); i = next++) {
      CompiledCandidate& result = results[i];
      result.config = configs[i];
      try {
        result.rendered = render_kernel(configs[i], specialization, templates);
        result.outcome = compiler.compile(result.rendered.source, result.rendered.kernel_name, options);
      } catch (const std::exception& e) {  // a thread must not throw; the failure becomes data
        result.outcome.ok = false;
        result.outcome.log = e.what();
      }
      std::lock_guard lock(progress_mutex);
      ++done;
      if (progress) progress(done, configs.size(), result);
    }
  };
  unsigned threads = jobs > 0 ? static_cast<unsigned>(jobs) : std::max(1u, std::thread::hardware_concurrency());
  threads = std::min<unsigned>(threads, static_cast<unsigned>(std::max<size_t>(1, configs.size())));
  std::vector<std::jthread> pool;
  for (unsigned t = 1; t < threads; ++t) pool.emplace_back(worker);
  worker();
  pool.clear();  // joins
  return results;
}

}  // namespace jitgemm
