#include "tune/candidate_compiler.hpp"

#include <algorithm>
#include <atomic>
#include <exception>
#include <map>
#include <mutex>
#include <thread>
#include <utility>

#include "codegen/template_store.hpp"
#include "exec/compiled_module.hpp"
#include "jitgemm/error.hpp"

namespace jitgemm {
namespace {

// Every config rendered, and which of them start a distinct kernel: configs that differ
// only in launch parameters (split_k) render the same kernel, compiled once and shared.
struct RenderedCandidates {
  std::vector<CompiledCandidate> results;  // config and rendered source, or a render failure
  std::vector<size_t> unique;              // index of the first config of each kernel
  std::vector<size_t> first_of;            // config -> the index of its kernel's first config
};

RenderedCandidates render_candidates(const std::vector<KernelConfig>& configs,
                                     const KernelSpecialization& specialization, const TemplateStore& templates) {
  RenderedCandidates out{std::vector<CompiledCandidate>(configs.size()), {}, std::vector<size_t>(configs.size())};
  std::map<std::string, size_t> by_name;
  for (size_t i = 0; i < configs.size(); ++i) {
    out.results[i].config = configs[i];
    try {
      out.results[i].rendered = render_kernel(configs[i], specialization, templates);
    } catch (const InvalidArgument& e) {  // an unrenderable config is an outcome, like a compile error
      out.results[i].outcome.ok = false;
      out.results[i].outcome.log = e.what();
      out.first_of[i] = i;
      continue;
    }
    const auto [it, inserted] = by_name.emplace(out.results[i].rendered.kernel_name, i);
    out.first_of[i] = it->second;
    if (inserted) out.unique.push_back(i);
  }
  return out;
}

}  // namespace

std::vector<CompiledCandidate> compile_candidates(const std::vector<KernelConfig>& configs,
                                                  const KernelSpecialization& specialization,
                                                  const Compiler& compiler, const TemplateStore& templates,
                                                  int jobs, const CompileProgress& progress) {
  const CompileKernel compile = [&](const RenderedKernel& kernel) {
    return compiler.compile(kernel.source, kernel.kernel_name, compile_options_for(kernel));
  };
  return compile_candidates(configs, specialization, compile, templates, jobs, progress);
}

std::vector<CompiledCandidate> compile_candidates(const std::vector<KernelConfig>& configs,
                                                  const KernelSpecialization& specialization,
                                                  const CompileKernel& compile, const TemplateStore& templates,
                                                  int jobs, const CompileProgress& progress) {
  RenderedCandidates rendered = render_candidates(configs, specialization, templates);
  std::vector<CompiledCandidate>& results = rendered.results;
  const std::vector<size_t>& unique = rendered.unique;  // the kernels to compile

  std::atomic<size_t> next{0};
  std::atomic<bool> stop{false};
  std::mutex mutex;  // guards done, progress calls and first_error
  size_t done = 0;
  std::exception_ptr first_error;
  auto worker = [&] {
    while (!stop) {
      const size_t u = next++;
      if (u >= unique.size()) return;
      CompiledCandidate& result = results[unique[u]];
      try {
        result.outcome = compile(result.rendered);  // a compile error comes back as ok=false with the log
        std::lock_guard lock(mutex);
        ++done;
        if (progress) progress(done, unique.size(), result);
      } catch (...) {  // a broken environment: no thread starts another kernel, the caller gets it
        std::lock_guard lock(mutex);
        if (!first_error) first_error = std::current_exception();
        stop = true;
        return;
      }
    }
  };
  unsigned threads = jobs > 0 ? static_cast<unsigned>(jobs) : std::max(1u, std::thread::hardware_concurrency());
  threads = std::min<unsigned>(threads, static_cast<unsigned>(std::max<size_t>(1, unique.size())));
  {
    std::vector<std::jthread> pool;
    for (unsigned t = 1; t < threads; ++t) pool.emplace_back(worker);
    worker();
  }  // joins
  if (first_error) std::rethrow_exception(first_error);
  for (size_t i = 0; i < configs.size(); ++i)
    if (rendered.first_of[i] != i) results[i].outcome = results[rendered.first_of[i]].outcome;
  return std::move(rendered.results);
}

}  // namespace jitgemm
