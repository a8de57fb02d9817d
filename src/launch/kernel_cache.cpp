#include "launch/kernel_cache.hpp"

#include "codegen/source_render.hpp"
#include "common/hash.hpp"
#include "exec/compiled_module.hpp"

namespace jitgemm {

KernelCache::KernelCache(const Compiler& compiler, const TemplateStore& templates)
    : compiler_(compiler), templates_(templates) {}

size_t KernelCache::KeyHash::operator()(const Key& k) const noexcept {
  const KernelSpecialization& s = k.specialization;
  size_t h = KernelConfigHash{}(k.config);
  for (int v : {static_cast<int>(s.trans_a), static_cast<int>(s.trans_b), s.vec_a, s.vec_b, s.vec_c,
                static_cast<int>(s.fill), static_cast<int>(s.work_list), static_cast<int>(s.a_triangle),
                static_cast<int>(s.b_triangle), static_cast<int>(s.a_unit) * 2 + static_cast<int>(s.b_unit),
                static_cast<int>(s.a_symmetric) * 4 + static_cast<int>(s.b_symmetric),
                static_cast<int>(s.a_aligned_copy) * 2 + static_cast<int>(s.b_aligned_copy)})
    h = (h ^ static_cast<size_t>(v)) * 0x100000001b3ull;  // FNV-1a step per field
  return h;
}

const LoadedKernel& KernelCache::get(const KernelConfig& config, const KernelSpecialization& specialization) {
  const Key key{config, specialization};
  {
    std::lock_guard lock(mutex_);
    if (auto it = kernels_.find(key); it != kernels_.end()) return *it->second;
  }
  // A pair seen for the first time: rendered (and compiled, if no other pair rendered the same
  // kernel) with no lock held.
  const RenderedKernel rendered = render_kernel(config, specialization, templates_);
  // The compile options follow from the rendered kernel (compile_options_for), so its name and
  // source identify the binary.
  const std::string identity = Hasher().add(rendered.kernel_name).add(rendered.source).hex();
  const LoadedKernel& loaded = *modules_.get(identity, [&] {
    CompiledModule compiled =
        compile_module(compiler_, rendered.source, rendered.kernel_name, compile_options_for(rendered));
    return std::make_unique<LoadedKernel>(LoadedKernel{config, specialization, rendered.kernel_name,
                                                       std::move(compiled.module), std::move(compiled.function)});
  });
  std::lock_guard lock(mutex_);
  return *kernels_.emplace(key, &loaded).first->second;
}

size_t KernelCache::size() const { return modules_.size(); }

size_t KernelCache::pairs() const {
  std::lock_guard lock(mutex_);
  return kernels_.size();
}

}  // namespace jitgemm
