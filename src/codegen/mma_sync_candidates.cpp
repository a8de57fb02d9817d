// The mma.sync (tf32x3, tf32) candidate space, its static pruning, sample and default.
#include "codegen/mma_sync_candidates.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <bit>

#include "jitgemm/error.hpp"

namespace jitgemm {
namespace {

constexpr int kRegisterAllowance = 40;  // addresses, indices, loop state (see mma_estimated_registers)
constexpr int kMaxSplitK = 256;
constexpr int64_t kDefaultMinCtas = 132;  // the large default fills every SM of an H100 / H200 once
// A sum and a block accumulator on a warp tile above 32 x 32 (128 floats per lane) spilled 4..92
// bytes in some specialization of every such config (NVRTC 13.0, sm_90a, JITGEMM_FULL_SWEEP).
constexpr int kMaxBlockedWarpArea = 32 * 32;

bool is_x3(const KernelConfig& c) { return c.family == KernelFamily::MmaTf32x3; }
bool blocked(const KernelConfig& c) { return is_x3(c) || c.acc_block_k > 0; }
bool pow2(int v) { return v > 0 && std::has_single_bit(static_cast<unsigned>(v)); }

// Floats one operand slice reserves (OperandTile::FLOATS of the template).
size_t slice_floats(int block_x, int block_k) {
  return static_cast<size_t>(std::max(block_x * (block_k + 8), block_k * (block_x + 4)));
}

int64_t tile_limit(int64_t extent) {
  // Tiles up to the next power of two of the extent, but 64 always stays available.
  return std::max<int64_t>(64, static_cast<int64_t>(std::bit_ceil(static_cast<uint64_t>(std::max<int64_t>(extent, 1)))));
}

KernelConfig mma(KernelFamily family, int bm, int bn, int bk, int wm, int wn, int stages, int acc_block_k) {
  KernelConfig c;  // SIMT- and wgmma-only fields keep their defaults
  c.family = family;
  c.block_m = bm, c.block_n = bn, c.block_k = bk;
  c.warps_m = wm, c.warps_n = wn;
  c.stages = stages;
  c.acc_block_k = acc_block_k;
  c.split_k = 1;
  c.raster_group = 8;
  return c;
}

// Rules that name() uniqueness needs: fields the family does not read keep their defaults.
std::string unused_fields_problem(const KernelConfig& c) {
  const KernelConfig d;
  if (c.thread_m != d.thread_m || c.thread_n != d.thread_n)
    return fmt::format("thread tile {}x{} is a SIMT field and must keep its default {}x{}", c.thread_m, c.thread_n,
                       d.thread_m, d.thread_n);
  if (!wgmma_only_fields_at_defaults(c))
    return fmt::format("consumers/acc_buffers/sum_blocks ({}/{}/{}), the register-A fields, stream_k and cluster are "
                       "wgmma fields and must keep their defaults ({}/{}/{}, 0, 1, 0, 0, 1)",
                       c.consumers, c.acc_buffers, c.sum_blocks, d.consumers, d.acc_buffers, d.sum_blocks);
  return {};
}

// The template's static_asserts on shapes and accumulation blocks.
std::string shape_problem(const KernelConfig& c) {
  for (auto [v, name] : {std::pair{c.block_m, "block_m"}, std::pair{c.block_n, "block_n"}})
    if (!pow2(v) || v < 32 || v > 256) return fmt::format("{}={} is not a power of two in 32..256", name, v);
  if (c.block_k < 16 || c.block_k > 64 || c.block_k % 16 != 0)
    return fmt::format("block_k={} is not a multiple of 16 in 16..64 (the K-major bank padding)", c.block_k);
  if (!pow2(c.warps_m) || !pow2(c.warps_n))
    return fmt::format("warps {}x{} are not powers of two", c.warps_m, c.warps_n);
  if (c.block_m % (16 * c.warps_m) != 0 || c.block_n % (8 * c.warps_n) != 0)
    return fmt::format("warps {}x{} do not split block {}x{} into whole 16 x 8 products", c.warps_m, c.warps_n,
                       c.block_m, c.block_n);
  if (c.acc_block_k < 0 || c.acc_block_k % 8 != 0 || (c.acc_block_k > 0 && c.block_k % c.acc_block_k != 0))
    return fmt::format("acc_block_k={} is not 0 or a multiple of 8 that divides block_k={}", c.acc_block_k,
                       c.block_k);
  if (is_x3(c) && c.acc_block_k == 0) return "tf32x3 accumulates in blocks: acc_block_k must be > 0";
  if (c.stages < 2 || c.stages > 8) return fmt::format("stages={} is outside 2..8", c.stages);
  if (c.split_k < 1 || c.split_k > kMaxSplitK || !pow2(c.split_k))
    return fmt::format("split_k={} is not a power of two in 1..{}", c.split_k, kMaxSplitK);
  if (c.raster_group < 1) return fmt::format("raster_group={} is below 1", c.raster_group);
  return {};
}

}  // namespace

KernelFamily mma_family_for(Precision precision) {
  if (precision == Precision::TF32x3) return KernelFamily::MmaTf32x3;
  if (precision == Precision::TF32) return KernelFamily::MmaTf32;
  throw NotSupported(
      fmt::format("precision {} has no mma.sync family (tf32x3 and tf32 only)", to_string(precision)));
}

size_t mma_shared_memory_bytes(const KernelConfig& c) {
  const size_t floats = slice_floats(c.block_m, c.block_k) + slice_floats(c.block_n, c.block_k);
  return static_cast<size_t>(c.stages) * floats * sizeof(float);
}

int mma_estimated_registers(const KernelConfig& c) {
  const int threads = std::max(c.threads(), 1);
  const int warp_m = c.block_m / std::max(c.warps_m, 1), warp_n = c.block_n / std::max(c.warps_n, 1);
  const int sum = warp_m * warp_n / 32;
  const int accumulators = blocked(c) ? 2 * sum : sum;
  const int fragments = (warp_m / 16 * 4 + warp_n / 8 * 2) * (is_x3(c) ? 2 : 1);
  const int scalar_copies = (c.block_m + c.block_n) * c.block_k / threads;
  return accumulators + fragments + kRegisterAllowance + scalar_copies;
}

bool mma_statically_valid(const KernelConfig& c, const StaticLimits& limits, std::string* why) {
  auto reject = [&](std::string reason) {
    if (why != nullptr) *why = std::move(reason);
    return false;
  };
  if (!is_mma_sync(c.family)) return reject(fmt::format("family {} is not an mma.sync family", to_string(c.family)));
  if (std::string p = unused_fields_problem(c); !p.empty()) return reject(std::move(p));
  if (std::string p = shape_problem(c); !p.empty()) return reject(std::move(p));
  if (c.threads() > limits.max_threads)
    return reject(fmt::format("{} threads exceed {}", c.threads(), limits.max_threads));
  const size_t smem = mma_shared_memory_bytes(c);
  if (smem > limits.max_smem_bytes)
    return reject(fmt::format("shared memory {} B exceeds {} B", smem, limits.max_smem_bytes));
  const int regs = mma_estimated_registers(c);
  if (regs > limits.max_registers_per_thread)
    return reject(fmt::format("about {} registers per thread exceed {}", regs, limits.max_registers_per_thread));
  if (static_cast<int64_t>(regs) * c.threads() > limits.registers_per_sm)
    return reject(fmt::format("about {} registers x {} threads exceed the SM's {}", regs, c.threads(),
                              limits.registers_per_sm));
  const int warp_area = (c.block_m / c.warps_m) * (c.block_n / c.warps_n);
  if (blocked(c) && warp_area > kMaxBlockedWarpArea)
    return reject(fmt::format("blocked accumulation on {}x{} warp tiles spills (more than 32 x 32)",
                              c.block_m / c.warps_m, c.block_n / c.warps_n));
  return true;
}

std::vector<KernelConfig> mma_candidate_space(const ProblemKey& key, const StaticLimits& limits) {
  const KernelFamily family = mma_family_for(key.precision);
  const bool x3 = family == KernelFamily::MmaTf32x3;
  // CTA tile and warp grid: 32x32 warp tiles, except 128x128 (64x32 or 32x64 on 8 warps: tf32
  // unblocked only, mma_statically_valid drops the rest).
  constexpr int kLayouts[][4] = {{64, 64, 2, 2}, {128, 64, 4, 2}, {64, 128, 2, 4}, {128, 128, 2, 4}, {128, 128, 4, 2}};
  const int64_t max_bm = tile_limit(key.m), max_bn = tile_limit(key.n);
  std::vector<KernelConfig> out;
  for (const auto& l : kLayouts) {
    if (l[0] > max_bm || l[1] > max_bn) continue;
    for (int bk : {16, 32})
      for (int stages : {bk == 16 ? 3 : 2, bk == 16 ? 4 : 3}) {
        std::vector<int> blocks = x3 ? std::vector<int>{16, 32} : std::vector<int>{0, bk};
        for (int acc : blocks) {
          if (acc > bk) continue;
          const KernelConfig c = mma(family, l[0], l[1], bk, l[2], l[3], stages, acc);
          if (mma_statically_valid(c, limits, nullptr)) append_with_splits(out, key, c);
        }
      }
  }
  sort_by_name(out);
  return out;
}

std::vector<KernelConfig> mma_representative_sample(const ProblemKey& key) {
  const KernelFamily f = mma_family_for(key.precision);
  if (f == KernelFamily::MmaTf32)
    return {
        mma(f, 64, 64, 32, 2, 2, 3, 0),    // the small default: 4 warps, unblocked
        mma(f, 128, 128, 32, 2, 4, 3, 0),  // the large default: 64x32 warp tiles
        mma(f, 128, 128, 16, 4, 2, 4, 0),  // 32x64 warp tiles, block_k 16, 4 stages
        mma(f, 128, 64, 32, 4, 2, 2, 32),  // FP32-added blocks of one slice, 2 stages
        mma(f, 64, 128, 16, 2, 4, 3, 16),  // blocked at block_k 16
    };
  return {
      mma(f, 64, 64, 32, 2, 2, 3, 32),   // the small default
      mma(f, 128, 64, 32, 4, 2, 3, 32),  // the large default
      mma(f, 64, 128, 16, 2, 4, 4, 16),  // block_k 16: one block per slice, 4 stages
      mma(f, 64, 128, 32, 2, 4, 2, 16),  // two blocks per slice, 2 stages
  };
}

KernelConfig mma_default_config(const ProblemKey& key) {
  const KernelFamily f = mma_family_for(key.precision);
  const bool x3 = f == KernelFamily::MmaTf32x3;
  // tf32x3 holds a block accumulator next to the sum: 32x32 warp tiles, 128 x 64 CTA tiles.
  const KernelConfig large = x3 ? mma(f, 128, 64, 32, 4, 2, 3, 32) : mma(f, 128, 128, 32, 2, 4, 3, 0);
  const int64_t large_tiles = ((key.m + large.block_m - 1) / large.block_m) * ((key.n + large.block_n - 1) / large.block_n);
  KernelConfig c = key.m >= 128 && key.n >= 128 && large_tiles >= kDefaultMinCtas ? large
                                                                                   : mma(f, 64, 64, 32, 2, 2, 3, x3 ? 32 : 0);
  c.split_k = default_split_k(key, c);
  return c;
}

}  // namespace jitgemm
