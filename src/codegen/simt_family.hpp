// simt_family.hpp — the SIMT fp32 family (fp32/simt_gemm.cu); simt_family.cpp is its home.
#pragma once

#include <vector>

#include "codegen/kernel_family.hpp"

namespace jitgemm {

const KernelFamilyRules& simt_rules() noexcept;

// Which general operands of an fp32 problem the SIMT kernel reads from a dense copy in the
// layout its loader takes in 16-byte units (A as K x M, B as K x N: the stored matrix transposed
// when K is its contiguous index, else a copy with aligned rows); simt_family.cpp has the rule
// and its measurements; specialization_of records them.
struct SimtCopies {
  bool a = false, b = false;
};
SimtCopies simt_operand_copies(const ProblemKey& key) noexcept;

// The specialization the SIMT kernel is compiled for and reads its operands in: a symmetric
// operand or a general one given a dense copy in the layout its loader prefers (simt_family.cpp).
KernelSpecialization simt_view(KernelSpecialization s);

// Split-K finished by the SIMT kernel itself (the tile's last CTA adds the slices,
// common/split_k_finish.cuh) instead of fp32/split_k_reduce.cu, the same bits either way.
// Compiled into the kernels of configs with 2..8 slices (SPLIT_K_FINISH, kernel names end in
// "_fin"): the finishing CTA reads at most 7 other partial tiles, just written and in L2; more
// slices (largeK: 132) leave the adding to the reduction kernel, which spreads it over every SM,
// and their kernels carry no finishing code. Used where the output has at least one tile per SM
// (`tiles` >= `sm_count`), so that finishing CTAs are spread over the SMs too. On the H200
// (device-run.sh ab, main against the change): 1537^3 (4 slices, 325 tiles; the reduction
// kernel took 40 of its 307 us under Nsight Compute, while its main kernel ran as long as
// cuBLAS's whole product) 0.235 -> 0.229 ms; 512^3 (4 slices on 32 tiles) 0.018 -> 0.022, hence
// the tile rule.
bool simt_can_finish_split_k(const KernelConfig& config) noexcept;
bool simt_finishes_split_k(const KernelConfig& config, int64_t tiles, int sm_count) noexcept;

// The edges of an fp32 output that whole tiles would mostly waste: where M (N) lies 1..8 past a
// multiple of 64 and above it, the SIMT kernel's tiles cover rows [0, m0) (columns [0, n0)),
// m0 = M rounded down to 64, and fp32/edge_strips.cu computes the thin rows (columns) past them,
// 16 or 32 outputs of one line a CTA, in the SMs the tiles' last wave leaves idle
// (exec/gemm_launch.cpp). For products of general operands or symmetric ones (dense copies) with
// no fill, whose tiles cover at least 2^20 elements (the tiles must outlast the strips). m0 = M
// and n0 = N: no strips. On the H200, 1537^3 fp32 on its record's config: the 1536 x 1536 tiles
// alone 0.2003 ms, the whole product 0.2250 with whole tiles over the edges, 0.2150 with the
// strips (a warp per element; re-tuned), cuBLAS 0.2052-0.2063 (tuner medians, session 44;
// README, "Profiles").
struct EdgeStrips {
  int64_t m0 = 0, n0 = 0;
  bool any(int64_t m, int64_t n) const noexcept { return m0 < m || n0 < n; }
};
EdgeStrips simt_edge_strips(const ProblemKey& key) noexcept;

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
