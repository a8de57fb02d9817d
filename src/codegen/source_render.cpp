// render_kernel: the family's prologue of constants in front of its expanded template.
#include "codegen/source_render.hpp"

#include <fmt/format.h>

#include <vector>

#include "codegen/kernel_family.hpp"
#include "jitgemm/error.hpp"

namespace jitgemm {
namespace {

void check_vec(int vec, std::string_view what, const KernelSpecialization& spec) {
  if (vec != 1 && vec != 4)
    throw InvalidArgument(fmt::format("render_kernel: {}={} in specialization {} must be 1 or 4", what, vec,
                                      spec.suffix()));
}

}  // namespace

std::string_view template_path(KernelFamily family) noexcept { return family_rules(family).template_path(); }

std::string family_template_hash(const TemplateStore& templates, KernelFamily family) {
  const KernelFamilyRules& rules = family_rules(family);
  std::vector<std::string_view> paths{rules.template_path()};
  paths.insert(paths.end(), rules.support_template_paths().begin(), rules.support_template_paths().end());
  return templates.joined_hash(paths);
}

std::string legacy_template_hash(const TemplateStore& templates, KernelFamily family) {
  return templates.template_hash(template_path(family));
}

RenderedKernel render_kernel(const KernelConfig& config, const KernelSpecialization& spec,
                             const TemplateStore& templates) {
  std::string why;
  if (!statically_valid(config, StaticLimits{}, &why))
    throw InvalidArgument(fmt::format("render_kernel: config {} is not valid: {}", config.name(), why));
  check_vec(spec.vec_a, "vec_a", spec);
  check_vec(spec.vec_b, "vec_b", spec);
  check_vec(spec.vec_c, "vec_c", spec);

  const KernelFamilyRules& rules = rules_of(config);
  RenderedKernel out;
  const std::string body = templates.expand_includes(rules.template_path());
  out.template_hash = family_template_hash(templates, rules.family());
  out.kernel_name = rules.kernel_name(config, spec);
  out.source = rules.prologue(config, spec, out.kernel_name) + body;
  out.arch = std::string(rules.target_arch());
  out.threads = rules.threads(config);
  out.smem_bytes = rules.shared_memory_bytes(config);
  return out;
}

}  // namespace jitgemm
