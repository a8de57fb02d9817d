// compile_candidates: every candidate through one CompileQueue, in the input order (see
// candidate_compiler.hpp; compile_queue.hpp does the rendering, the sharing of a kernel among
// the configs that render it and the threads).
#include "tune/candidate_compiler.hpp"

#include <numeric>
#include <utility>

#include "exec/compiled_module.hpp"
#include "tune/compile_queue.hpp"

namespace jitgemm {

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
  std::vector<size_t> order(configs.size());
  std::iota(order.begin(), order.end(), size_t{0});
  CompileQueue queue(configs, order, specialization, compile, templates, jobs, steady_seconds(), progress);
  // Every config is delivered once; next() rethrows a compiler's exception after the threads stopped.
  for (size_t delivered = 0; delivered < configs.size();) {
    if (queue.next(1.0)) ++delivered;
    else if (queue.done()) break;  // cannot happen while nothing stops it; never spin
  }
  std::vector<CompiledCandidate> results;
  results.reserve(configs.size());
  for (size_t i = 0; i < configs.size(); ++i) results.push_back(queue.candidate(i));
  return results;
}

}  // namespace jitgemm
