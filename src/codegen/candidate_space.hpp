// candidate_space.hpp — which KernelConfigs are worth compiling for a problem, what each
// needs from the device (shared memory, threads, registers), and how it is launched.
//
//   for (const KernelConfig& c : candidate_space(key)) { ... render, compile, time ... }
//   KernelConfig untuned = default_config(key);
//   LaunchGeometry g = launch_geometry(untuned, m, n, k);
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "codegen/kernel_config.hpp"
#include "problem/problem_key.hpp"

namespace jitgemm {

// What an sm_90 device (H100, H200) allows a kernel; the pruning rules read these.
struct StaticLimits {
  size_t max_smem_bytes = 227 * 1024;      // dynamic shared memory per CTA (opt-in maximum)
  int max_threads = 1024;                  // per CTA
  int max_registers_per_thread = 255;
  int registers_per_sm = 65536;
};

// Dynamic shared memory of one CTA. wgmma families: wgmma_shared_memory_bytes
// (wgmma_candidates.hpp); mma.sync families: mma_shared_memory_bytes (mma_sync_candidates.hpp).
// SIMT: STAGES x (As[BLOCK_K][BLOCK_M + pad] + Bs[BLOCK_K][BLOCK_N + pad])
// floats, the pad making each row stride 4 (mod 32) floats. The template checks it agrees.
size_t shared_memory_bytes(const KernelConfig& config);

// Registers per thread the config needs, estimated for pruning: accumulators (thread_m x
// thread_n), two sets of A/B fragments (the compiler loads the next k while computing this
// one), and 40 for addresses, indices and the loop. Measured with NVRTC 13.0 for sm_90a:
// 8x8 tiles use 123..162 (estimate 136), 8x16 199..250 (estimate 216). The kernel is compiled
// without a register cap (__launch_bounds__(THREADS) only): capping 8x8 tiles at 128 to force
// two 256-thread CTAs per SM spilled some configs and made most slower on an H200.
// wgmma families: the consumer registers of wgmma_consumer_registers; mma.sync families:
// mma_estimated_registers.
int estimated_registers(const KernelConfig& config);

// True when the template accepts the config and it fits the limits; otherwise `why` (if not
// null) says which rule it breaks, e.g. "shared memory 240 KiB exceeds 227 KiB". wgmma
// families: wgmma_statically_valid; mma.sync families: mma_statically_valid. A SIMT config
// must keep the wgmma fields at their defaults.
bool statically_valid(const KernelConfig& config, const StaticLimits& limits, std::string* why);

// The configs worth timing for a problem (fp32 SIMT family):
//   CTA tiles 64/128/256 x 64/128/256, block_k 8/16/32, 4 or 8 warps, each warp's 32 lanes
//   arranged 4x8 or 8x4 with thread tiles 4x4 .. 8x16 / 16x8, 2..5 stages;
//   minus what statically_valid rejects, minus CTA tiles much larger than the problem
//   (block_m > max(64, bit_ceil(M)), likewise N), so small problems keep the 64-wide tiles.
// Ordered by name; deterministic. tf32x3 and tf32 problems get the wgmma families
// (wgmma_candidate_space in wgmma_candidates.hpp; no split-K there).
std::vector<KernelConfig> candidate_space(const ProblemKey& key, const StaticLimits& limits = {});

// Eight configs that together exercise every code path of the template (thread tiles with
// one and with four fragments per side, loaders with fewer copies than threads and with rows
// longer than the CTA, 2 and 5 stages, block_k 8..32, 100 KiB of shared memory) and include
// every default_config, for CI, where compiling the whole space is too slow. The transposes and vector widths are the key's
// specialization, not part of the sample; the sample does not depend on the problem size.
// tf32x3 / tf32: wgmma_representative_sample (seven and four configs).
std::vector<KernelConfig> representative_sample(const ProblemKey& key);

// The kernel for a problem nobody tuned; always a member of candidate_space(key). Rule, from
// sweeps on an H200 (4096^3 for NN, NT, TT; 2048x4096x8192 for TN), first match wins, each
// only when its tile fits in M x N and gives >= 264 CTAs (two per SM of an H100/H200):
//   NT:      128x128x16, 8 warps 4x2, 8x8 per thread, 3 stages  (88.8% of cuBLAS, best of 224)
//   TT:      128x64x16,  4 warps 4x1, 8x8 per thread, 3 stages  (95.4%)
//   NN, TN:  64x256x16,  8 warps 1x8, 8x8 per thread, 3 stages  (NN 95.3%, best of 224;
//            TN 93.2%, best 94.7%)
//   any:     64x128x16,  4 warps 1x4, 8x8 per thread, 3 stages  (NN 93..96%, TN 93%)
//   else     64x64x8,    4 warps 2x2, 4x8 per thread, 3 stages: small and skinny outputs.
// Each stays at <= 128 registers for every vector width of its layout, so its occupancy does
// not drop on an unlucky specialization.
// Its split_k is default_split_k(key, tile).
// tf32x3: 128x128x32, 3 stages, blocks of 32, one accumulator (the fastest measured on an H200);
//   128x96 with sum_blocks 16 for K > 4096 (the contract), 128x96 for N <= 96.
// tf32: 128x256x32, 4 stages, no blocks; 128x128 for N <= 128; 128x128, 6 stages, blocks of
//   256 for K > 4096. See wgmma_default_config.
KernelConfig default_config(const ProblemKey& key);

// The wgmma tensor-core kernels pay, and their untuned configs keep the contracts, on products
// that fill the tiles: at least 128 x 128 outputs and 128 <= K <= 8192 (longer K needs the
// two-level sums that only a tuned record picks). Smaller, skinny or longer tf32x3 / tf32
// products run an mma.sync kernel untuned (untuned_config), split-K as the fp32 kernel, and
// the tuner adds the mma.sync candidates for them (tuning_candidates).
bool tensor_cores_pay(const ProblemKey& key);

// Everything the tuner compiles and times for a problem: candidate_space(key), plus, for a
// tf32x3 / tf32 problem where !tensor_cores_pay(key), the mma.sync family of its mode
// (mma_candidate_space in mma_sync_candidates.hpp), and for tf32 also the tf32x3 one and the
// fp32 SIMT space: on those shapes cuBLAS's TF32 mode computes in FP32, so the tf32 contract
// (4 x its error) asks for FP32 accuracy, which the tuner's verification decides.
std::vector<KernelConfig> tuning_candidates(const ProblemKey& key, const StaticLimits& limits = {});
// The CI-sized version (jitgemm-tune --sample): representative_sample(key), plus, where the
// mma.sync family is added above, mma_representative_sample of those precisions with the
// default split-K (and the fp32 default for tf32).
std::vector<KernelConfig> tuning_sample(const ProblemKey& key);
// The kernel that serves an untuned problem (the selector's default rule): default_config(key),
// except, for tf32x3 / tf32 problems where !tensor_cores_pay(key), the tf32x3 mma.sync default
// (mma_default_config in mma_sync_candidates.hpp; for tf32 too, see tuning_candidates), and for
// tf32 outputs of at most 2^16 elements there the fp32 default (cuBLAS's TF32 error on them is
// ~3e-8, below the tf32x3 kernel's). Always a member of tuning_candidates(key).
KernelConfig untuned_config(const ProblemKey& key);

// Split-K keeps the fp32 contract (reference-problems.md) where cuBLAS splits K: each slice
// sums a short run of K in FP32, the slices are added in double (split_k_reduce.cu). Rule:
// the power of two nearest above K / chunk, chunk = 32 for outputs of at most 2^16 elements
// and 128 otherwise, at most 256 slices, halved while the partial products would exceed 2^27
// floats (512 MiB) or a slice would hold less than one block_k. Measured on an H200 (fp32
// GPU tests): without it, outputs up to ~1500 x 4096 with K >= 1000 missed the contract of
// 2 x cuBLAS's error, and 1 x 7 x 127 missed 4u with one 127-long FP32 sum.
int default_split_k(const ProblemKey& key, const KernelConfig& tile);
// The split-K variants candidate_space adds for each tile: half, equal to and twice the
// default, within the same limits (none when the default is 1 and K is short).
std::vector<int> split_k_choices(const ProblemKey& key, const KernelConfig& tile);
// Appends `tile` (as it is) and then `tile` with each of split_k_choices(key, tile).
void append_with_splits(std::vector<KernelConfig>& out, const ProblemKey& key, KernelConfig tile);
// Sorts candidates by name(): the order every candidate space is returned in.
void sort_by_name(std::vector<KernelConfig>& configs);

// How a config is launched on an M x N x K problem: a 1-D grid of
// ceil(M/block_m) * ceil(N/block_n) CTAs (grid_y = split_k), threads() threads,
// shared_memory_bytes() (SIMT and mma.sync families). wgmma families: min(sm_count, tiles) persistent CTAs
// (stream_k: min(sm_count, tiles x K units); cluster 2: whole CTA pairs over pairs of tiles, at
// most sm_count CTAs, where the launcher passes the SMs its resident clusters cover), grid_y = 1.
// Throws InvalidArgument when M, N or K is outside 1..2^31-1 or the grid is too large.
struct LaunchGeometry {
  unsigned grid_x = 1, grid_y = 1, grid_z = 1;
  unsigned block_x = 1;
  size_t smem_bytes = 0;
};
LaunchGeometry launch_geometry(const KernelConfig& config, int64_t m, int64_t n, int64_t k, int sm_count = 132);

}  // namespace jitgemm
