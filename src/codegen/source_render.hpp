// source_render.hpp — (config, specialization) -> one self-contained CUDA unit.
//
// The generated part is only a prologue of constants (BLOCK_M ... VEC_C, KERNEL_NAME) that the
// config's family writes (KernelFamilyRules::prologue) in front of the family's template with
// its includes inlined; the kernel logic lives in the template. The wgmma family's operands are
// prepared by the pre-pass of split_operand_render.hpp.
//
//   RenderedKernel k = render_kernel(config, KernelSpecialization{Op::T, Op::N, 4, 4, 4});
//   compiler.compile(k.source, k.kernel_name, options_for(k));
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "codegen/kernel_config.hpp"
#include "codegen/template_store.hpp"

namespace jitgemm {

struct RenderedKernel {
  std::string kernel_name;    // the family's KernelFamilyRules::kernel_name; extern "C"
  std::string source;         // prologue + expanded template
  std::string arch;           // target, e.g. "sm_90a" (KernelFamilyRules::target_arch)
  int threads = 0;            // blockDim.x
  size_t smem_bytes = 0;      // dynamic shared memory per CTA
  std::string template_hash;  // family_template_hash of its family (no prologue)
};

// The template file of a family, e.g. "fp32/simt_gemm.cu", "tf32/wgmma_gemm.cu",
// "tf32/mma_sync_gemm.cu".
std::string_view template_path(KernelFamily family) noexcept;

// What a tuning record of `family` remembers of the templates (RenderedKernel::template_hash, the
// environment's template_hash): hash_hex of the family's expanded template followed by each of
// its support kernels' (KernelFamilyRules::support_template_paths), so that a change to a
// pre-pass, the split-K reduction or the edge strips makes the records they serve stale too.
// Throws as TemplateStore::expand_includes does.
std::string family_template_hash(const TemplateStore& templates, KernelFamily family);
// The family's template alone (TemplateStore::template_hash): what records stamped before
// session 45 remember; jitgemm-tune --refresh-unchanged re-stamps them (tune/record_refresh.hpp).
std::string legacy_template_hash(const TemplateStore& templates, KernelFamily family);

// Throws InvalidArgument when the config is not statically_valid (the message says why), a
// vector width is not 1 or 4, or the template is missing from the store.
RenderedKernel render_kernel(const KernelConfig& config, const KernelSpecialization& spec,
                             const TemplateStore& templates = TemplateStore::active());

}  // namespace jitgemm
