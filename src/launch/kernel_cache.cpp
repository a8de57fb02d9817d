#include "launch/kernel_cache.hpp"

#include "codegen/source_render.hpp"
#include "common/hash.hpp"
#include "exec/compiled_module.hpp"

namespace jitgemm {

KernelCache::KernelCache(const Compiler& compiler, const TemplateStore& templates)
    : compiler_(compiler), templates_(templates) {}

size_t KernelCache::KeyHash::operator()(const Key& k) const noexcept {
  const KernelSpecialization& s = k.specialization;
  return FieldHash()
      .add(KernelConfigHash{}(k.config))
      .add(s.trans_a).add(s.trans_b).add(s.vec_a).add(s.vec_b).add(s.vec_c).add(s.fill).add(s.work_list)
      .add(s.a_triangle).add(s.b_triangle).add(s.a_unit).add(s.b_unit).add(s.a_symmetric).add(s.b_symmetric)
      .add(s.a_aligned_copy).add(s.b_aligned_copy)
      .value();
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
