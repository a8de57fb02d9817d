// mma_sync_family.hpp — the cp.async + mma.sync family (mma_tf32x3, mma_tf32;
// kernel_templates/tf32/mma_sync_gemm.cu); mma_sync_family.cpp is its home: static validity
// mirroring the template's static_asserts, the candidates, sample and default of a tf32x3 /
// tf32 problem, shared-memory size and register estimate. tuning_candidates / untuned_config
// (candidate_space.hpp) add this family where the wgmma kernels do not pay (tensor_cores_pay).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "codegen/kernel_family.hpp"

namespace jitgemm {

// The family's rules; invalid_reason checks, in order,
// the template's static_asserts (power-of-two tiles of 32..256 rows and columns, block_k a
// multiple of 16 up to 64, warp tiles of whole 16 x 8 products, power-of-two warp grids,
// accumulation blocks inside one slice, tf32x3 always blocked), the K split, threads, shared
// memory, the register estimate, and what
// compiles but spills (measured with NVRTC 13.0 for sm_90a over every candidate and
// specialization): blocked accumulation (tf32x3, tf32 with acc_block_k > 0) on warp tiles
// above 32 x 32.
const KernelFamilyRules& mma_sync_rules() noexcept;

// SMEM_TOTAL of the template: STAGES x (A slice + B slice) floats, a slice of BLOCK_X rows (or
// columns) by BLOCK_K reserving max(BLOCK_X x (BLOCK_K + 8), BLOCK_K x (BLOCK_X + 4)) floats:
// the K-major and MN-major layouts with their bank padding; the larger one, so that the size
// does not depend on the transposes.
size_t mma_shared_memory_bytes(const KernelConfig& config);

// Registers per thread, estimated for pruning: the running sum (warp tile / 32 floats) and,
// when blocked (tf32x3, or tf32 with acc_block_k > 0), a block accumulator as large; one k8
// step of fragments (tf32x3: big and small parts); 40 for addresses, indices and the loop;
// and one per 4-byte copy a thread issues per slice at vector width 1. Measured with NVRTC 13.0
// for sm_90a: tf32x3 64x64x32 4 warps 157..202 (estimate 168), tf32 128x128x32 8 warps of
// 64x32 unblocked 122..190 (160), tf32x3 4 warps with 32x64 warp tiles and 48 copies spilled
// (264). ptxas takes up to 255 when __launch_bounds__ allows, so counts near it are common.
int mma_estimated_registers(const KernelConfig& config);

// CTA tiles 64x64 (4 warps of 32x32), 128x64 and 64x128 (8 warps of 32x32), 128x128 (8 warps
// of 64x32 or 32x64, tf32 unblocked only); block_k 16 (3, 4 stages) and 32 (2, 3 stages); tf32x3
// blocks of 16 and 32 (those that divide block_k), tf32 unblocked or blocks of block_k; each
// with split_k 1 and the
// split_k_choices of the problem. Minus tiles much larger than the problem (block_m >
// max(64, bit_ceil(M)), likewise N) and what is not statically valid. Ordered by name.
std::vector<KernelConfig> mma_candidate_space(const ProblemKey& key, const StaticLimits& limits = {});

// Four tf32x3 / five tf32 configs covering the template's code paths (both defaults, block_k 16
// and 32, one and two blocks per slice, tf32 blocked and not, 32x32, 64x32 and 32x64 warp
// tiles, 4 and 8 warps, 2..4 stages), all with split_k 1 (the split is a launch parameter).
std::vector<KernelConfig> mma_representative_sample(const ProblemKey& key);

// The large tile when M, N >= 128 and its tiles fill the 132 SMs of an H100 / H200 once:
// tf32x3 128x64x32, 8 warps of 32x32, blocks of 32; tf32 128x128x32, 8 warps of 64x32,
// unblocked; 3 stages. Else 64x64x32, 4 warps, 3 stages (tf32x3 blocks of 32, tf32 unblocked). split_k = default_split_k(key, tile): the split that keeps the fp32
// contract keeps the tf32x3 one (short sums per slice, slices added in double).
KernelConfig mma_default_config(const ProblemKey& key);

}  // namespace jitgemm
