// source_render.hpp — (template, config, specialization) -> one self-contained CUDA unit.
//
// The generated part is only a prologue of constants (BLOCK_M ... VEC_C, KERNEL_NAME) put in
// front of the template with its includes inlined; the kernel logic lives in the template.
// wgmma families (tf32/wgmma_gemm.cu) get TF32X3, BLOCK_M/N/K, STAGES, CONSUMERS,
// ACC_BLOCK_K, ACC_BUFFERS, SUM_BLOCKS, RASTER_GROUP, PRODUCER_REGS, CONSUMER_REGS and
// SMEM_BYTES; their operands are prepared by the pre-pass of split_operand_render.hpp.
// mma.sync families (tf32/mma_sync_gemm.cu) get TF32X3, BLOCK_M/N/K, WARPS_M/N, STAGES,
// SPLIT_K, RASTER_GROUP, ACC_BLOCK_K, TRANS_A/B, VEC_A/B/C and SMEM_BYTES.
//
//   RenderedKernel k = render_kernel(config, KernelSpecialization{Op::T, Op::N, 4, 4, 4});
//   compiler.compile(k.source, k.kernel_name, options);
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "codegen/kernel_config.hpp"
#include "codegen/template_store.hpp"

namespace jitgemm {

struct RenderedKernel {
  std::string kernel_name;    // "jitgemm_" + config.name() + "_" + spec.suffix(); extern "C".
                              // wgmma families: "jitgemm_" + config.name() (no spec suffix)
  std::string source;         // prologue + expanded template
  int threads = 0;            // blockDim.x
  size_t smem_bytes = 0;      // dynamic shared memory per CTA
  std::string template_hash;  // hash_hex of the expanded template, without the prologue
};

// The template file of a family, e.g. "fp32/simt_gemm.cu", "tf32/wgmma_gemm.cu",
// "tf32/mma_sync_gemm.cu".
std::string_view template_path(KernelFamily family) noexcept;

// Throws InvalidArgument when the config is not statically_valid (the message says why), a
// vector width is not 1 or 4, or the template is missing from the store. The wgmma main
// kernel does not depend on `spec` (its operands come K-major from the pre-pass).
RenderedKernel render_kernel(const KernelConfig& config, const KernelSpecialization& spec,
                             const TemplateStore& templates = TemplateStore::active());

}  // namespace jitgemm
