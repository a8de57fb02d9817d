// wgmma_family.hpp — the persistent TMA + wgmma family (wgmma_tf32x3, wgmma_tf32;
// kernel_templates/tf32/wgmma_gemm.cu); wgmma_family.cpp is its home: static validity
// mirroring the template's static_asserts, the candidates of a tf32x3 / tf32 problem, their
// sample, default and shared-memory size, and which operand layouts a config reads in place.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "codegen/kernel_family.hpp"

namespace jitgemm {

// The family's rules; invalid_reason checks, in order,
// the rule that what the name cannot say keeps its default (split_k 1; tf32: one accumulator,
// no sum_blocks), the template's static_asserts (tile shapes, accumulation blocks, ring depth),
// the operand sources' rules, register and shared-memory budgets, and the configurations that
// compile but spill (measured with NVRTC 13.0 for sm_90a: tf32x3 with block_k 32, acc_block_k 16 and 2 buffers; tf32x3 with
// sum_blocks > 0 at block_n >= 128 or with 2 buffers: about 1 KB of spills at 128x96; tf32x3
// with A in registers and 2 buffers or sum_blocks > 0).
const KernelFamilyRules& wgmma_rules() noexcept;

// For a config with A in registers: whether the operand it reads raw (op(A), or op(B)^T when
// swap_ab) is stored MN-major, i.e. with its M (or N) index contiguous: A stored K x M
// (trans_a = T), or, swapped, B stored K x N (trans_b = N).
inline bool raw_operand_mn_major(const KernelConfig& c, Op trans_a, Op trans_b) {
  return c.wgmma().swap_ab ? trans_b == Op::N : trans_a == Op::T;
}
// For a config whose B is converted in the kernel or transformed in shared memory: whether the
// caller's matrix its B comes from (op(B)^T, or op(A) when swap_ab) is stored with the rows
// index contiguous (K x rows): B stored K x N (trans_b = N), or, swapped, A stored K x M
// (trans_a = T). The transform warps need it so (MN-major).
inline bool converted_operand_transposed(const KernelConfig& c, Op trans_a, Op trans_b) {
  return c.wgmma().swap_ab ? trans_a == Op::T : trans_b == Op::N;
}
inline bool transformed_operand_mn_major(const KernelConfig& c, Op trans_a, Op trans_b) {
  return converted_operand_transposed(c, trans_a, trans_b);
}

// The triangular operands a config reads raw and masks in the kernel (A_KEEP, A_UNIT, B_KEEP,
// B_UNIT of tf32/wgmma_gemm.cu; tf32/operand_triangle.cuh): the kernel's A' when it is in
// registers, its B' when transformed or rounded in shared memory. keep: 0 none, 1 the
// elements k <= row of A'(m, k) or B'(n, k), 2 those with k >= row. A raw operand the kernel
// does not mask (B converted, or symmetric unless a_sym) is copied dense first
// (exec/launch_plan.hpp). a_sym: the kernel's A' in registers is symmetric and read from its
// stored triangle (A_SYM: 1 lower, 2 upper stored; K-major, 32 K per stage, no CTA pair).
struct WgmmaOperandMasks {
  int a_keep = 0, b_keep = 0;
  bool a_unit = false, b_unit = false;
  int a_sym = 0;
  friend bool operator==(const WgmmaOperandMasks&, const WgmmaOperandMasks&) = default;
};
WgmmaOperandMasks wgmma_operand_masks(const KernelConfig& c, const KernelSpecialization& s);

// Whether the kernel of `c` for `s` is launched as a programmatic dependent of its pre-pass
// (PDL = 1 in tf32/wgmma_gemm.cu, cuLaunchKernelEx with programmatic stream serialization):
// tf32 work lists whose pre-pass writes a plane right before the main kernel (lowertri: the
// launch and prologue overlap the pre-pass's last CTAs; H200, one build, two rounds with
// JITGEMM_DEPENDENT_LAUNCH=1/0: 0.121 -> 0.117 ms, the other structured tf32 rows unchanged). Not
// tf32x3 nor dense products, which measured slower with it (the main CTAs hold SMs the
// pre-pass's last waves need).
bool wgmma_dependent_launch(const KernelConfig& c, const KernelSpecialization& s);

// tf32x3: which of the kernel's pre-pass-fed operands (A' unless in registers, B' when from
// planes) is its own big plane: a general operand stored K-major (A' = op(A) with trans_a = N,
// or swapped op(B)^T with trans_b = T; B' likewise) with 16-byte aligned rows. The main kernel
// reads it through a TFLOAT32 tensor map (the copy rounds to nearest even) and the pre-pass
// writes its small plane alone (LaunchPlan::a_big_in_place, tf32/split_operand.cu SMALL_ONLY).
struct WgmmaBigPlanes {
  bool a = false, b = false;
};
WgmmaBigPlanes wgmma_big_planes_in_place(const KernelConfig& c, const ProblemKey& key);

// Whether B' comes from planes the pre-pass writes in the kernel's permuted K order
// (K_PERMUTED of tf32/wgmma_gemm.cu, PERMUTE_K of tf32/split_operand.cu): A' raw K-major in
// registers, unmasked and not symmetric, and B' from the pre-pass of a rows-contiguous,
// non-symmetric source (B stored K x N, or swapped A stored K x M; its transposing pass writes
// any order at no cost). A thread then reads its A fragments of two k8 steps in one 16-byte load
// per row instead of four 4-byte ones. The kernel and its pre-pass both render from this.
bool wgmma_b_planes_permuted(const KernelConfig& c, const KernelSpecialization& s);

// setmaxnreg budgets the renderer writes into the prologue (PRODUCER_REGS, CONSUMER_REGS):
// the producer warpgroup gives registers up, the consumers take 232 each (40 * 128 + 232 *
// 256 <= 65536). At entry __launch_bounds__(384, 1) caps every thread at 168.
constexpr int kWgmmaProducerRegs = 40;
constexpr int kWgmmaConsumerRegs = 232;
// With B transformed (WgmmaB::Transformed) the producer warpgroup's warps 1..3 transpose and round B: 56 each, and
// 224 for the consumers (56 * 128 + 224 * 256 <= 64512, what 384 threads hold at 168).
constexpr int kWgmmaTransformProducerRegs = 56;
constexpr int kWgmmaTransformConsumerRegs = 224;
struct SetmaxnregBudget {
  int producer, consumer;
};
SetmaxnregBudget wgmma_register_budget(const KernelConfig& config);
// K above which a problem counts as long: tf32x3 then needs the two-level running sum
// (SUM_BLOCKS) and tf32 FP32-added blocks to keep their contracts (H200 runs of the GPU
// engineer: K = 4100 and 16384 failed without them).
constexpr long long kWgmmaLongK = 4096;

// tf32x3 blocks of 64 values of K (acc_block_k = 64, spanning two stages of 32): half the
// consumers' FP32 adds and waits of blocks of 32, but a relative error of about 2.5e-7
// whatever the product (blocks of 32: 1.9e-7), over the contract's floor of 4 unit roundoffs
// (2.4e-7) where cuBLAS's own error is below it: H200, GPU tests of session 39, 257 x 1537 x 300
// (2.6e-7, cuBLAS 9.8e-8) and 1110 x 512 x 900 (2.4e-7, cuBLAS 7.3e-8) failed. Only where K and
// the output are large enough that cuBLAS's error, and so the contract, stay well above it
// (WgmmaBlocksOf64.MeetTheContractWhereAllowed); the tuner still verifies each candidate.
constexpr long long kWgmmaBlocksOf64MinK = 2048;
constexpr long long kWgmmaBlocksOf64MinOutput = 2048 * 2048;
bool wgmma_blocks_of_64_allowed(const ProblemKey& key);

// K pieces (split_k > 1, tf32/wgmma_gemm.cu): huge K, or a few tiles, is cut into pieces
// along K that persistent CTAs take like tiles; their partial sums go to a workspace that the
// split-K reduction adds in piece order (the same bits every run). One piece spans at most
// wgmma_piece_k(tile) of K, what its sums keep the contract over: kWgmmaLongK with one-level
// sums, 4x that with the tf32x3 two-level sum or tf32 FP32-added blocks (H200: K = 16384 passed
// with them). Pieces shorter than kWgmmaMinPieceK do not pay for their epilogue.
constexpr long long kWgmmaMinPieceK = 512;
long long wgmma_piece_k(const KernelConfig& tile);
// The pieces per tile of `tile` on `key`: as many as the contract needs (K / piece K), raised
// to a multiple of those that fill one wave of the largest Hopper parts when the tiles fill less
// than half of one, but no shorter than kWgmmaMinPieceK; at most kMaxSplitK and the split-K
// workspace bound. 1: no split.
int wgmma_default_split_k(const ProblemKey& key, const KernelConfig& tile);
// Whether wgmma kernels can take `key`'s K at all: short enough for one piece with two-level
// sums, or pieces whose partial sums fit the split-K workspace.
bool wgmma_takes_k(const ProblemKey& key);

// SMEM_TOTAL of the template: 1024 (alignment slack for the 128-byte swizzle atom) +
// STAGES * (the stage's operand tiles) + 16 * STAGES (full/empty mbarriers; 32 with B
// transformed), + the converter's staging tile (B converted).
size_t wgmma_shared_memory_bytes(const KernelConfig& config);

// GROUP_STAGES of the template: the K stages one tf32x3 accumulation block spans (1 when a
// block fits one stage, and for tf32). It is also the stream-K tail's unit of K.
int wgmma_group_stages(const KernelConfig& config);

// The stream-K tail of a kernel with schedule = stream_k (tf32/tile_schedule.cuh,
// make_schedule and tail_pieces; keep the two alike): the tiles of the last, partial wave of
// `tiles` over `ctas` persistent CTAs (all of them when there are fewer than `ctas`) are cut
// into `pieces` K pieces each, the P in 1 .. 16 (at most one per K unit, `units` a tile) for
// which the busiest CTA, ceil(tail P / ctas) pieces of units / P units plus a hand-over each
// (stream_k_hand_over_units), finishes first. pieces = 1: no tail, all tiles whole.
struct StreamKTail {
  int64_t whole_tiles = 0;  // dealt round-robin first, whole
  int64_t tail_tiles = 0;   // then cut, their pieces dealt round-robin piece-major
  int pieces = 1;
};
StreamKTail stream_k_tail(int64_t tiles, int ctas, int64_t units, int unit_k);
// What handing a piece's partial sum on costs, in K units of unit_k: PIECE_COST_UNITS of the
// template, about two 32-wide stages.
int stream_k_hand_over_units(int unit_k);

// Consumer registers per thread the template's budget check counts: the running sum, the
// block accumulators (tf32x3: acc_buffers, + 1 with sum_blocks; tf32: 1 when blocked) of
// block_n / 2 floats each, plus 24.
int wgmma_consumer_registers(const KernelConfig& config);

// tf32x3: 128 x {96, 128, 192} tiles (2 consumers), block_k 16/32, stages with >= 64 K in
// flight up to what fits (at most 8), acc_block_k 16/32 (64 missed the contract on an H200),
// 1 or 2 accumulators, sum_blocks 0 (and 16 when K > kWgmmaLongK).
// tf32: 128 x {128, 192, 256} x 32, stages 4..6, acc_block_k 0 (and 256, 1024 when K exceeds them).
// Both drop block_n above max(smallest width, bit_ceil(N)); minus what is not statically valid.
// Every one with block_k 32 also comes with A in registers (RS), unswapped when TMA can read
// A in place (key.vec_a == 4) and swapped when it can read B (key.vec_b == 4); tf32x3 also
// unswapped with A's big part truncated (WgmmaA::RegistersTruncated), tf32 also with B's plane
// written by the kernel (WgmmaB::Converted), and where B is stored MN-major with B made K-major
// in shared memory by the transform warps (WgmmaB::Transformed, as many stages as fit). Raster
// groups of 8 tile rows, and for tf32 with A in registers at 128 x 256 also 4 and 16. CTA pairs
// for B from planes, one consumer where 128-row tiles fill less than two waves, and the
// stream-K tail where the tiles leave the last wave partly empty.
std::vector<KernelConfig> wgmma_candidate_space(const ProblemKey& key, const StaticLimits& limits);
// Every default and every code path of the template (one and two accumulators, the two-level
// sum, blocks spanning two stages, two blocks per stage, tf32 blocked and not, 96..256 columns,
// the most shared memory, A in registers rounded and truncated, swapped, B converted in the
// kernel, B transformed in shared memory, the stream-K tail, CTA pairs, one consumer; rendered
// for op N/N that is a K-major A unswapped, MN-major swapped, and a transposed B source
// unswapped, a row one swapped), less those that cannot read this key's memory in place.
std::vector<KernelConfig> wgmma_representative_sample(const ProblemKey& key);
KernelConfig wgmma_default_config(const ProblemKey& key);

// Whether `config` can run problems of `key`: with A in registers, TMA reads the raw operand
// (A, or B when swapped) in place, which needs a 16-byte aligned base and a leading dimension
// that is a multiple of 4 floats (vector width 4 in the key); with B transformed the same for
// the other operand, which must also be stored MN-major. Plane-fed configs run anything.
bool wgmma_runs_in_place(const KernelConfig& config, const ProblemKey& key);

// Whether `config` can walk the work list of a structured product of `key` (triangular
// operands, a fill): whole tiles, one CTA each, so no stream-K tail and no CTA pairs. True
// for every config on a key without a work list.
bool wgmma_walks_work_list(const KernelConfig& config, const ProblemKey& key);

}  // namespace jitgemm
