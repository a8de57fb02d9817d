// Renders and NVRTC-compiles a list of candidates in parallel threads. A candidate that
// fails to compile or spills is data (an outcome), not an exception.
#pragma once

#include <functional>
#include <vector>

#include "codegen/kernel_config.hpp"
#include "codegen/source_render.hpp"
#include "compile/compiler.hpp"

namespace jitgemm {

class TemplateStore;

struct CompiledCandidate {
  KernelConfig config;
  RenderedKernel rendered;
  CompileOutcome outcome;
  // Compiled, and ptxas reports neither spills nor a stack frame.
  bool usable() const {
    return outcome.ok && !outcome.kernel.resources.spills() && outcome.kernel.resources.stack_bytes == 0;
  }
};

// Called once per finished candidate (from worker threads, serialized by a mutex).
using CompileProgress = std::function<void(size_t done, size_t total, const CompiledCandidate&)>;

// `jobs` <= 0 means std::thread::hardware_concurrency(). Results keep the input order.
// Configs that render the same kernel (they differ only in launch parameters such as
// split_k) share one compile; progress counts distinct kernels.
std::vector<CompiledCandidate> compile_candidates(const std::vector<KernelConfig>& configs,
                                                  const KernelSpecialization& specialization,
                                                  const Compiler& compiler, const TemplateStore& templates,
                                                  int jobs, const CompileProgress& progress = {});

}  // namespace jitgemm
