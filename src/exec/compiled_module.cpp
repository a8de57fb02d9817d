#include "exec/compiled_module.hpp"

#include <fmt/format.h>

#include "jitgemm/error.hpp"

namespace jitgemm {

CompileOptions compile_options_for(const RenderedKernel& kernel) {
  CompileOptions options;
  if (!kernel.arch.empty()) options.arch = kernel.arch;
  options.ptxas_verbose = true;
  return options;
}

CompiledModule load_module(const CompiledKernel& kernel, const std::string& label) {
  CompiledModule out;
  out.module = cuda::Module(kernel.cubin, label.empty() ? kernel.kernel_name : label);
  out.function = out.module.function(kernel.lowered_name.empty() ? kernel.kernel_name : kernel.lowered_name);
  return out;
}

CompiledModule compile_module(const Compiler& compiler, const std::string& source, const std::string& kernel_name,
                              const CompileOptions& options, const std::string& label) {
  const CompileOutcome outcome = compiler.compile(source, kernel_name, options);
  if (!outcome.ok)
    throw CompileError(label.empty() ? fmt::format("NVRTC failed to compile kernel {}", kernel_name)
                                     : fmt::format("NVRTC failed to compile kernel {} of {}", kernel_name, label),
                       outcome.log);
  return load_module(outcome.kernel, label.empty() ? kernel_name : label);
}

}  // namespace jitgemm
