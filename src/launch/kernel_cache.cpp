#include "launch/kernel_cache.hpp"

#include <fmt/format.h>

#include "codegen/source_render.hpp"
#include "compile/compiler.hpp"
#include "jitgemm/error.hpp"
#include "tune/candidate_compiler.hpp"

namespace jitgemm {

KernelCache::KernelCache(const Compiler& compiler, const TemplateStore& templates)
    : compiler_(compiler), templates_(templates) {}

const LoadedKernel& KernelCache::get(const KernelConfig& config, const KernelSpecialization& specialization) {
  const std::string key = config.name() + "_" + specialization.suffix();
  std::lock_guard lock(mutex_);
  if (auto it = kernels_.find(key); it != kernels_.end()) return *it->second;
  const RenderedKernel rendered = render_kernel(config, specialization, templates_);
  const CompileOutcome outcome = compiler_.compile(rendered.source, rendered.kernel_name, gemm_compile_options());
  if (!outcome.ok)
    throw CompileError(fmt::format("NVRTC failed to compile kernel {}", rendered.kernel_name), outcome.log);
  cuda::Module module(outcome.kernel.cubin, rendered.kernel_name);
  cuda::Function function = module.function(
      outcome.kernel.lowered_name.empty() ? rendered.kernel_name : outcome.kernel.lowered_name);
  auto loaded = std::make_unique<LoadedKernel>(
      LoadedKernel{config, specialization, rendered.kernel_name, std::move(module), function});
  return *kernels_.emplace(key, std::move(loaded)).first->second;
}

size_t KernelCache::size() const {
  std::lock_guard lock(mutex_);
  return kernels_.size();
}

}  // namespace jitgemm
