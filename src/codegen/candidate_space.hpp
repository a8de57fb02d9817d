// candidate_space.hpp — which kernels serve and are tuned for a problem, across families:
// the thin table over codegen/kernel_family.hpp that picks the families of a precision and
// shape. Each family's own rules live in its file (simt_family, mma_sync_family,
// wgmma_family).
//
//   for (const KernelConfig& c : tuning_candidates(key)) { ... render, compile, time ... }
//   KernelConfig untuned = untuned_config(key);
#pragma once

#include <vector>

#include "codegen/kernel_family.hpp"
#include "codegen/split_k_policy.hpp"
#include "problem/problem_key.hpp"

namespace jitgemm {

// The main family of a precision: SIMT for fp32, wgmma for tf32x3 and tf32.
const KernelFamilyRules& main_family(Precision precision) noexcept;

// The configs worth timing for a problem in its main family (simt_candidate_space,
// wgmma_candidate_space), ordered by name; deterministic.
std::vector<KernelConfig> candidate_space(const ProblemKey& key, const StaticLimits& limits = {});
// The main family's sample: configs that together exercise every code path of its template
// and include every default, for CI, where compiling the whole space is too slow. The
// transposes and vector widths are the key's specialization, not part of the sample.
std::vector<KernelConfig> representative_sample(const ProblemKey& key);
// The main family's kernel for a problem nobody tuned (simt_default_config,
// wgmma_default_config); always a member of candidate_space(key).
KernelConfig default_config(const ProblemKey& key);

// The wgmma tensor-core kernels pay, and their untuned configs keep the contracts, on products
// that fill the tiles: at least 128 x 128 outputs and K >= 128, up to any K whose pieces
// (wgmma_default_split_k) fit the split-K workspace (wgmma_takes_k). Smaller or skinny
// tf32x3 / tf32 products run an mma.sync kernel untuned (untuned_config), split-K as the fp32
// kernel, and the tuner adds the mma.sync candidates for them (tuning_candidates).
bool tensor_cores_pay(const ProblemKey& key);

// Everything the tuner compiles and times for a problem: candidate_space(key), plus, for a
// tf32x3 / tf32 problem where !tensor_cores_pay(key), the mma.sync family of its mode
// (mma_candidate_space), for tf32 also the tf32x3 one, and for both the fp32 SIMT space: on
// those shapes cuBLAS's TF32 mode computes in FP32, so the tf32 contract (4 x its error) asks
// for FP32 accuracy, and a tf32x3 output of a few elements can miss float32's error by the
// dropped small products; the tuner's verification decides.
std::vector<KernelConfig> tuning_candidates(const ProblemKey& key, const StaticLimits& limits = {});
// The CI-sized version (jitgemm-tune --sample): representative_sample(key), plus, where the
// mma.sync family is added above, mma_representative_sample of those precisions with the
// default split-K (and the fp32 default for tf32).
std::vector<KernelConfig> tuning_sample(const ProblemKey& key);
// The kernel that serves an untuned problem (the serving policy's default rule):
// default_config(key), except, for tf32x3 / tf32 problems where !tensor_cores_pay(key), the
// tf32x3 mma.sync default (for tf32 too, see tuning_candidates), and for tf32 outputs of at
// most 2^16 elements there the fp32 default (cuBLAS's TF32 error on them is ~3e-8, below the
// tf32x3 kernel's). Always a member of tuning_candidates(key).
KernelConfig untuned_config(const ProblemKey& key);

}  // namespace jitgemm
