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
  size_t smem_per_sm_bytes = 228 * 1024;   // shared memory per SM, 1 KiB of it reserved per CTA
  int max_threads_per_sm = 2048;
};

// Dynamic shared memory of one CTA: STAGES x (As[BLOCK_K][BLOCK_M + pad] + Bs[BLOCK_K][BLOCK_N + pad])
// floats, the pad making each row stride 4 (mod 32) floats. The template checks it agrees.
size_t shared_memory_bytes(const KernelConfig& config);

// Registers per thread the config needs, estimated: accumulators (thread_m x thread_n), two
// sets of A/B fragments (the compiler loads the next k while computing this one), and a
// fixed allowance for addresses, indices and the loop.
int estimated_registers(const KernelConfig& config);

// CTAs per SM the kernel is compiled for (the second __launch_bounds__ argument): as many as
// the estimated registers, shared memory and threads allow, at least 1. ptxas then keeps the
// kernel within registers_per_sm / (ctas * threads) registers.
int min_ctas_per_sm(const KernelConfig& config, const StaticLimits& limits = {});

// True when the template accepts the config and it fits the limits; otherwise `why` (if not
// null) says which rule it breaks, e.g. "shared memory 240 KiB exceeds 227 KiB".
bool statically_valid(const KernelConfig& config, const StaticLimits& limits, std::string* why);

// The configs worth timing for a problem (fp32 SIMT family):
//   CTA tiles 64/128/256 x 64/128/256, block_k 8/16/32, 4 or 8 warps, each warp's 32 lanes
//   arranged 4x8 or 8x4 with thread tiles 4x4 .. 8x16 / 16x8, 2..5 stages;
//   minus what statically_valid rejects, minus CTA tiles much larger than the problem
//   (block_m > max(64, bit_ceil(M)), likewise N), so small problems keep the 64-wide tiles.
// Ordered by name; deterministic. Throws NotSupported for a precision without a family.
std::vector<KernelConfig> candidate_space(const ProblemKey& key, const StaticLimits& limits = {});

// About six configs that together exercise every code path of the template (thread tiles
// with one and with several fragments, 16-wide thread tiles, loaders with fewer copies than
// threads, 2 and 5 stages, block_k 8..32, the largest shared-memory footprint) for CI, where
// compiling the whole space is too slow. The transposes and vector widths are the key's
// specialization, not part of the sample; the sample does not depend on the problem size.
std::vector<KernelConfig> representative_sample(const ProblemKey& key);

// The kernel for a problem nobody tuned. Rule: 128x128 CTA tiles (8 warps, 8x8 per thread,
// block_k 8, 3 stages) when they give at least one CTA per SM of an H100/H200
// (ceil(M/128) * ceil(N/128) >= 132); otherwise 64x64 tiles (4 warps, 4x8 per thread), which
// waste less on small and skinny outputs. Always a member of candidate_space(key).
KernelConfig default_config(const ProblemKey& key);

// How a config is launched on an M x N x K problem: a 1-D grid of
// ceil(M/block_m) * ceil(N/block_n) CTAs, threads() threads, shared_memory_bytes().
// Throws InvalidArgument when M, N or K is outside 1..2^31-1 or the grid is too large.
struct LaunchGeometry {
  unsigned grid_x = 1, grid_y = 1, grid_z = 1;
  unsigned block_x = 1;
  size_t smem_bytes = 0;
};
LaunchGeometry launch_geometry(const KernelConfig& config, int64_t m, int64_t n, int64_t k);

}  // namespace jitgemm
