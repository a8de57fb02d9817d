// split_k_policy.hpp — the K split of the families that slice K along gridDim.y (SIMT and
// mma.sync) and the helpers their candidate spaces share.
//
// Split-K keeps the fp32 contract (reference-problems.md) where cuBLAS splits K: each slice
// sums a short run of K in FP32, the slices are added in double (split_k_reduce.cu). Rule:
// the power of two nearest above K / chunk, chunk = 32 for outputs of at most 2^16 elements
// and 128 otherwise, at most 256 slices, halved while the partial products would exceed 2^27
// floats (512 MiB) or a slice would hold less than one block_k. Measured on an H200 (fp32
// GPU tests): without it, outputs up to ~1500 x 4096 with K >= 1000 missed the contract of
// 2 x cuBLAS's error, and 1 x 7 x 127 missed 4u with one 127-long FP32 sum. Then, where that
// split launches from 1 to 8 waves of kLargestHopperSms CTAs, the split that fills the whole
// wave above it (below it where that does not fit), so that every SM gets as many slices.
#pragma once

#include <cstdint>
#include <vector>

#include "codegen/kernel_config.hpp"
#include "problem/problem_key.hpp"

namespace jitgemm {

inline constexpr int kMaxSplitK = 256;
// The most floats of partial products a split-K plan may hold (512 MiB).
inline constexpr int64_t kMaxSplitWorkspaceFloats = int64_t{1} << 27;

// Row length (floats) of a split-K workspace slice: N rounded up to 4 floats, so that every
// row and slice stays 16-byte aligned for a kernel compiled with 16-byte stores of C.
constexpr int64_t split_k_workspace_ld(int64_t n) { return (n + 3) / 4 * 4; }

// Whether `split` slices of partial products of key's M x N output stay within
// kMaxSplitWorkspaceFloats (the bound every family's K split and wgmma's K pieces share).
constexpr bool split_workspace_fits(const ProblemKey& key, int64_t split) {
  return split * key.m * split_k_workspace_ld(key.n) <= kMaxSplitWorkspaceFloats;
}

int default_split_k(const ProblemKey& key, const KernelConfig& tile);
// `tile` with split_k = default_split_k(key, tile): how every family default and adapted
// record of these families gets its split.
KernelConfig with_default_split_k(KernelConfig tile, const ProblemKey& key);
// The split-K variants the candidate spaces add for each tile: half, equal to and twice the
// rule's power of two, 2 and 4 where that is 8 or more, and beside each of the first three
// that makes at most 8 waves of kLargestHopperSms CTAs with the tiles, the splits that fill
// the whole waves just below and above it; ascending, within the same limits (none when the
// default is 1 and K is short).
std::vector<int> split_k_choices(const ProblemKey& key, const KernelConfig& tile);
// Appends `tile` (as it is) and then `tile` with each of split_k_choices(key, tile).
void append_with_splits(std::vector<KernelConfig>& out, const ProblemKey& key, KernelConfig tile);
// Sorts candidates by name(): the order every candidate space is returned in.
void sort_by_name(std::vector<KernelConfig>& configs);
// Tiles up to the next power of two of the extent (but 64 always stays available): the
// largest CTA tile a candidate space tries along M or N.
int64_t tile_limit(int64_t extent);

}  // namespace jitgemm
