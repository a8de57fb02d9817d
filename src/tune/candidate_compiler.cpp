#include "tune/candidate_compiler.hpp"

#include <algorithm>
#include <atomic>
#include <map>
#include <mutex>
#include <thread>

#include "codegen/template_store.hpp"
#include "exec/compiled_module.hpp"

namespace jitgemm {

std::vector<CompiledCandidate> compile_candidates(const std::vector<KernelConfig>& configs,
                                                  const KernelSpecialization& specialization,
                                                  const Compiler& compiler, const TemplateStore& templates,
                                                  int jobs, const CompileProgress& progress) {
  std::vector<CompiledCandidate> results(configs.size());
  // Render everything first: configs that differ only in launch parameters (split_k) render
  // the same kernel, which is compiled once and shared.
  std::vector<size_t> unique;                    // index of the first config of each kernel
  std::vector<size_t> first_of(configs.size());  // config -> that index
  std::map<std::string, size_t> by_name;
  for (size_t i = 0; i < configs.size(); ++i) {
    results[i].config = configs[i];
    try {
      results[i].rendered = render_kernel(configs[i], specialization, templates);
    } catch (const std::exception& e) {  // an unrenderable config is an outcome, like a compile error
      results[i].outcome.ok = false;
      results[i].outcome.log = e.what();
      first_of[i] = i;
      continue;
    }
    const auto [it, inserted] = by_name.emplace(results[i].rendered.kernel_name, i);
    first_of[i] = it->second;
    if (inserted) unique.push_back(i);
  }

  std::atomic<size_t> next{0};
  std::mutex progress_mutex;
  size_t done = 0;
  auto worker = [&] {
    for (size_t u = next++; u < unique.size(); u = next++) {
      CompiledCandidate& result = results[unique[u]];
      try {
        result.outcome = compiler.compile(result.rendered.source, result.rendered.kernel_name,
                                          compile_options_for(result.rendered));
      } catch (const std::exception& e) {  // a thread must not throw; the failure becomes data
        result.outcome.ok = false;
        result.outcome.log = e.what();
      }
      std::lock_guard lock(progress_mutex);
      ++done;
      if (progress) progress(done, unique.size(), result);
    }
  };
  unsigned threads = jobs > 0 ? static_cast<unsigned>(jobs) : std::max(1u, std::thread::hardware_concurrency());
  threads = std::min<unsigned>(threads, static_cast<unsigned>(std::max<size_t>(1, unique.size())));
  {
    std::vector<std::jthread> pool;
    for (unsigned t = 1; t < threads; ++t) pool.emplace_back(worker);
    worker();
  }  // joins
  for (size_t i = 0; i < configs.size(); ++i)
    if (first_of[i] != i) results[i].outcome = results[first_of[i]].outcome;
  return results;
}

}  // namespace jitgemm
