// simt_family.hpp — the SIMT fp32 family (fp32/simt_gemm.cu); simt_family.cpp is its home.
#pragma once

#include <vector>

#include "codegen/kernel_family.hpp"

namespace jitgemm {

const KernelFamilyRules& simt_rules() noexcept;

// Which general operands of an fp32 problem the SIMT kernel reads from a transposed dense copy
// (simt_family.cpp has the rule and its measurements); specialization_of records them.
struct TransposedCopies {
  bool a = false, b = false;
};
TransposedCopies simt_transposed_copies(const ProblemKey& key) noexcept;

// The configs worth timing for an fp32 problem:
//   CTA tiles 64/128/256 x 64/128/256, block_k 8/16/32, 4 or 8 warps, each warp's 32 lanes
//   arranged 4x8 or 8x4 with thread tiles 4x4 .. 8x16 / 16x8, 2..5 stages, each with split_k 1
//   and the split_k_choices of the problem; minus what is not statically valid, minus CTA
//   tiles much larger than the problem (block_m > max(64, bit_ceil(M)), likewise N), so small
//   problems keep the 64-wide tiles. Ordered by name; deterministic.
std::vector<KernelConfig> simt_candidate_space(const ProblemKey& key, const StaticLimits& limits);

// The kernel for an fp32 problem nobody tuned, by the layout the kernel reads (a symmetric
// operand or a transposed copy is read as A T, B N). Rule, from sweeps on an H200 (4096^3 for
// NN, NT, TT; 2048x4096x8192 for TN), first match wins, each only when its tile fits in M x N and
// gives >= 264 CTAs (two per SM of an H100/H200):
//   NT:      128x128x16, 8 warps 4x2, 8x8 per thread, 3 stages  (88.8% of cuBLAS, best of 224)
//   TT:      128x64x16,  4 warps 4x1, 8x8 per thread, 3 stages  (95.4%)
//   NN, TN:  64x256x16,  8 warps 1x8, 8x8 per thread, 3 stages  (NN 95.3%, best of 224;
//            TN 93.2%, best 94.7%)
//   any:     64x128x16,  4 warps 1x4, 8x8 per thread, 3 stages  (NN 93..96%, TN 93%)
//   else     64x64x8,    4 warps 2x2, 4x8 per thread, 3 stages: small and skinny outputs.
// Each stays at <= 128 registers for every vector width of its layout, so its occupancy does
// not drop on an unlucky specialization. Its split_k is default_split_k(key, tile).
KernelConfig simt_default_config(const ProblemKey& key);

}  // namespace jitgemm
