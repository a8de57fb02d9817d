// Renders and NVRTC-compiles a list of candidates in parallel threads (a CompileQueue drained in
// the input order: tune/compile_queue.hpp). A candidate that cannot be rendered
// (InvalidArgument from codegen), fails to compile (the compiler's log) or spills is data (an
// outcome), not an exception; anything else the compiler throws means a broken environment and
// aborts the whole list with that exception.
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

// How one rendered kernel becomes a binary: Compiler::compile with compile_options_for(kernel)
// in the tuner; tests pass a fake to force the error paths. Called from worker threads.
using CompileKernel = std::function<CompileOutcome(const RenderedKernel&)>;

// `jobs` <= 0 means std::thread::hardware_concurrency(). Results keep the input order.
// Configs that render the same kernel (they differ only in launch parameters such as
// split_k) share one compile; progress counts distinct kernels. When a compile throws, no
// further kernel is started and, once the threads have joined, the first exception is
// rethrown (e.g. CompileError "nvrtcCompileProgram(...) failed: ..." for a broken NVRTC).
std::vector<CompiledCandidate> compile_candidates(const std::vector<KernelConfig>& configs,
                                                  const KernelSpecialization& specialization,
                                                  const Compiler& compiler, const TemplateStore& templates,
                                                  int jobs, const CompileProgress& progress = {});
std::vector<CompiledCandidate> compile_candidates(const std::vector<KernelConfig>& configs,
                                                  const KernelSpecialization& specialization,
                                                  const CompileKernel& compile, const TemplateStore& templates,
                                                  int jobs, const CompileProgress& progress = {});

}  // namespace jitgemm
