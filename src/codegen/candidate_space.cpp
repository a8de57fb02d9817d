// The fp32 SIMT candidate space, its static pruning, the default heuristic and launch geometry.
#include "codegen/candidate_space.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <climits>

#include "codegen/mma_sync_candidates.hpp"
#include "codegen/wgmma_candidates.hpp"
#include "jitgemm/error.hpp"

namespace jitgemm {
namespace {

// Row stride (floats) of a K-outer shared tile: the row plus a pad to 4 (mod 32); the same
// formula as smem_stride() in kernel_templates/fp32/simt_gemm.cu.
int smem_stride(int block_x) { return block_x + (36 - block_x % 32) % 32; }

constexpr int kMaxSplitK = 256;
// K per slice the default split aims at: 32 for small outputs (whose single sums show every
// rounding; the workspace is tiny), 128 otherwise.
constexpr int64_t kSmallOutput = int64_t{1} << 16;
int64_t workspace_ld(int64_t n) { return (n + 3) / 4 * 4; }
int64_t split_k_chunk(const ProblemKey& key) { return key.m * key.n <= kSmallOutput ? 32 : 128; }
constexpr int64_t kMaxSplitWorkspace = int64_t{1} << 27;  // floats of partial products (512 MiB)
constexpr int kRegisterAllowance = 40;  // addresses, indices, loop state (see estimated_registers)
constexpr int64_t kDefaultMinCtas = 2 * 132;  // two CTAs on each SM of an H100 SXM / H200

// The lane arrangements a warp may use (lanes along M x along N). 4x8 and 8x4 keep every
// float4 fragment read of a warp within 128 distinct bytes: one shared-memory wavefront.
constexpr int kLaneShapes[][2] = {{4, 8}, {8, 4}};

// Pipeline depths worth trying per block_k: at least 16 k in flight, at most about 96.
constexpr int kMinStages(int bk) { return bk == 8 ? 3 : 2; }
constexpr int kMaxStages(int bk) { return bk == 8 ? 5 : bk == 16 ? 4 : 3; }

bool allowed_thread_tile(int tm, int tn) {
  constexpr int kThreadTiles[][2] = {{4, 4}, {4, 8}, {8, 4}, {8, 8}, {8, 16}, {16, 8}};
  for (const auto& t : kThreadTiles)
    if (t[0] == tm && t[1] == tn) return true;
  return false;
}

int64_t tile_limit(int64_t extent) {
  // Tiles up to the next power of two of the extent, but 64 always stays available.
  return std::max<int64_t>(64, static_cast<int64_t>(std::bit_ceil(static_cast<uint64_t>(std::max<int64_t>(extent, 1)))));
}

KernelConfig simt(int bm, int bn, int bk, int wm, int wn, int tm, int tn, int stages) {
  KernelConfig c;
  c.family = KernelFamily::SimtFp32;
  c.block_m = bm, c.block_n = bn, c.block_k = bk;
  c.warps_m = wm, c.warps_n = wn;
  c.thread_m = tm, c.thread_n = tn;
  c.stages = stages;
  c.split_k = 1;
  c.raster_group = 8;
  return c;
}

}  // namespace

bool tensor_cores_pay(const ProblemKey& key) {
  return key.m >= 128 && key.n >= 128 && key.k >= 128 && key.k <= 8192;
}

int default_split_k(const ProblemKey& key, const KernelConfig& tile) {
  const int64_t chunk = split_k_chunk(key);
  int split = static_cast<int>(std::min<int64_t>(
      kMaxSplitK, static_cast<int64_t>(std::bit_ceil(static_cast<uint64_t>((key.k + chunk - 1) / chunk)))));
  while (split > 1 && (split * key.m * workspace_ld(key.n) > kMaxSplitWorkspace || (key.k + split - 1) / split < tile.block_k))
    split /= 2;
  return split;
}

std::vector<int> split_k_choices(const ProblemKey& key, const KernelConfig& tile) {
  const int d = default_split_k(key, tile);
  std::vector<int> splits;
  for (int s : {d / 2, d, 2 * d}) {
    if (s < 2 || s > kMaxSplitK || s * key.m * workspace_ld(key.n) > kMaxSplitWorkspace || (key.k + s - 1) / s < tile.block_k)
      continue;
    splits.push_back(s);
  }
  return splits;
}

size_t shared_memory_bytes(const KernelConfig& c) {
  if (is_wgmma(c.family)) return wgmma_shared_memory_bytes(c);
  if (is_mma_sync(c.family)) return mma_shared_memory_bytes(c);
  const size_t floats_per_stage = static_cast<size_t>(c.block_k) * (smem_stride(c.block_m) + smem_stride(c.block_n));
  return static_cast<size_t>(c.stages) * floats_per_stage * sizeof(float);
}

int estimated_registers(const KernelConfig& c) {
  if (is_wgmma(c.family)) return wgmma_consumer_registers(c);
  if (is_mma_sync(c.family)) return mma_estimated_registers(c);
  return c.thread_m * c.thread_n + 2 * (c.thread_m + c.thread_n) + kRegisterAllowance;
}

bool statically_valid(const KernelConfig& c, const StaticLimits& limits, std::string* why) {
  auto reject = [&](std::string reason) {
    if (why != nullptr) *why = std::move(reason);
    return false;
  };
  if (is_wgmma(c.family)) return wgmma_statically_valid(c, limits, why);
  if (is_mma_sync(c.family)) return mma_statically_valid(c, limits, why);
  if (c.family != KernelFamily::SimtFp32) return reject(fmt::format("unknown family {}", to_string(c.family)));
  const KernelConfig defaults;
  if (c.acc_block_k != defaults.acc_block_k || !wgmma_only_fields_at_defaults(c))
    return reject(fmt::format("consumers/acc_block_k/acc_buffers/sum_blocks ({}/{}/{}/{}), the register-A fields, "
                              "stream_k and cluster are wgmma fields and must keep their defaults ({}/{}/{}/{}, 0, 1, 0, 0, 1)",
                              c.consumers, c.acc_block_k, c.acc_buffers, c.sum_blocks, defaults.consumers,
                              defaults.acc_block_k, defaults.acc_buffers, defaults.sum_blocks));
  if (c.block_m < 4 || c.block_n < 4 || c.block_k < 8 || c.warps_m < 1 || c.warps_n < 1 || c.thread_m < 4 ||
      c.thread_n < 4 || c.stages < 2 || c.raster_group < 1)
    return reject("a size is below its minimum (block 4, block_k 8, warps 1, thread tile 4, stages 2, group 1)");
  if (c.split_k < 1 || c.split_k > kMaxSplitK || !std::has_single_bit(static_cast<unsigned>(c.split_k)))
    return reject(fmt::format("split_k={} is not a power of two in 1..{}", c.split_k, kMaxSplitK));
  if (c.block_k % 8 != 0) return reject(fmt::format("block_k={} is not a multiple of 8", c.block_k));
  if (c.block_m % 4 != 0 || c.block_n % 4 != 0)
    return reject(fmt::format("block {}x{} is not made of float4 columns", c.block_m, c.block_n));
  if (c.thread_m % 4 != 0 || c.thread_n % 4 != 0)
    return reject(fmt::format("thread tile {}x{} is not made of float4 fragments", c.thread_m, c.thread_n));
  if (c.threads() > limits.max_threads)
    return reject(fmt::format("{} threads exceed {}", c.threads(), limits.max_threads));
  if (c.block_m % c.warps_m != 0 || c.block_n % c.warps_n != 0)
    return reject(fmt::format("warps {}x{} do not tile block {}x{}", c.warps_m, c.warps_n, c.block_m, c.block_n));
  const int warp_m = c.block_m / c.warps_m, warp_n = c.block_n / c.warps_n;
  if (warp_m % c.thread_m != 0 || warp_n % c.thread_n != 0 || (warp_m / c.thread_m) * (warp_n / c.thread_n) != 32)
    return reject(fmt::format("thread tile {}x{} does not give 32 lanes on warp tile {}x{}", c.thread_m, c.thread_n,
                              warp_m, warp_n));
  const size_t smem = shared_memory_bytes(c);
  if (smem > limits.max_smem_bytes)
    return reject(fmt::format("shared memory {} B exceeds {} B", smem, limits.max_smem_bytes));
  const int regs = estimated_registers(c);
  if (regs > limits.max_registers_per_thread)
    return reject(fmt::format("about {} registers per thread exceed {}", regs, limits.max_registers_per_thread));
  if (static_cast<int64_t>(regs) * c.threads() > limits.registers_per_sm)
    return reject(fmt::format("about {} registers x {} threads exceed the SM's {}", regs, c.threads(),
                              limits.registers_per_sm));
  return true;
}

std::vector<KernelConfig> candidate_space(const ProblemKey& key, const StaticLimits& limits) {
  if (key.precision != Precision::FP32) return wgmma_candidate_space(key, limits);
  const int64_t max_bm = tile_limit(key.m), max_bn = tile_limit(key.n);
  std::vector<KernelConfig> out;
  for (int bm : {64, 128, 256}) {
    if (bm > max_bm) continue;
    for (int bn : {64, 128, 256}) {
      if (bn > max_bn) continue;
      for (int warps : {4, 8}) {
        for (int wm = 1; wm <= warps; wm *= 2) {
          const int wn = warps / wm;
          if (bm % wm != 0 || bn % wn != 0) continue;
          const int warp_m = bm / wm, warp_n = bn / wn;
          if (warp_m > 2 * warp_n || warp_n > 2 * warp_m) continue;  // near-square warp tiles
          for (const auto& lanes : kLaneShapes) {
            if (warp_m % lanes[0] != 0 || warp_n % lanes[1] != 0) continue;
            const int tm = warp_m / lanes[0], tn = warp_n / lanes[1];
            if (!allowed_thread_tile(tm, tn)) continue;
            for (int bk : {8, 16, 32})
              for (int stages = kMinStages(bk); stages <= kMaxStages(bk); ++stages) {
                const KernelConfig c = simt(bm, bn, bk, wm, wn, tm, tn, stages);
                if (statically_valid(c, limits, nullptr)) append_with_splits(out, key, c);
              }
          }
        }
      }
    }
  }
  sort_by_name(out);
  return out;
}

void append_with_splits(std::vector<KernelConfig>& out, const ProblemKey& key, KernelConfig tile) {
  out.push_back(tile);
  for (int split : split_k_choices(key, tile)) {
    tile.split_k = split;
    out.push_back(tile);
  }
}

void sort_by_name(std::vector<KernelConfig>& configs) {
  std::sort(configs.begin(), configs.end(),
            [](const KernelConfig& a, const KernelConfig& b) { return a.name() < b.name(); });
}

std::vector<KernelConfig> representative_sample(const ProblemKey& key) {
  if (key.precision != Precision::FP32) return wgmma_representative_sample(key);
  return {
      simt(64, 64, 8, 2, 2, 4, 8, 3),      // the small default: one float4 fragment along M
      simt(64, 64, 8, 2, 4, 4, 4, 5),      // 4x4 threads; 256 threads for 128 float4 copies; 5 stages
      simt(64, 128, 16, 1, 4, 8, 8, 3),    // the mid-size default
      simt(64, 256, 16, 1, 8, 8, 8, 3),    // the NN / TN default
      simt(128, 128, 16, 4, 2, 8, 8, 3),   // the NT default
      simt(128, 64, 16, 4, 1, 8, 8, 3),    // the TT default
      simt(256, 64, 16, 4, 1, 8, 16, 3),   // 16-wide thread tiles; 256-float rows on 128 threads
      simt(128, 256, 32, 2, 4, 16, 8, 2),  // 16-high thread tiles, block_k 32, 2 stages, 100 KiB smem
  };
}

KernelConfig default_config(const ProblemKey& key) {
  if (key.precision != Precision::FP32) return wgmma_default_config(key);
  const auto fits = [&](const KernelConfig& c) {
    const int64_t ctas = ((key.m + c.block_m - 1) / c.block_m) * ((key.n + c.block_n - 1) / c.block_n);
    return key.m >= c.block_m && key.n >= c.block_n && ctas >= kDefaultMinCtas;
  };
  const bool b_transposed = key.trans_b == Op::T;
  const KernelConfig layout = b_transposed ? (key.trans_a == Op::N ? simt(128, 128, 16, 4, 2, 8, 8, 3)   // NT
                                                                   : simt(128, 64, 16, 4, 1, 8, 8, 3))   // TT
                                           : simt(64, 256, 16, 1, 8, 8, 8, 3);                           // NN, TN
  const KernelConfig mid = simt(64, 128, 16, 1, 4, 8, 8, 3);
  KernelConfig chosen = fits(layout) ? layout : fits(mid) ? mid : simt(64, 64, 8, 2, 2, 4, 8, 3);
  chosen.split_k = default_split_k(key, chosen);
  return chosen;
}

namespace {

// The precisions whose mma.sync kernels may serve `key` where the wgmma kernels do not pay.
// tf32 also takes the tf32x3 kernels, and the fp32 SIMT ones: on such shapes (short K, few rows
// or columns) cuBLAS's TF32 mode computes in FP32 (measured on an H200: errors of 1e-8 .. 5e-7
// where a TF32 product has 1e-5 .. 5e-4), so the tf32 contract, 4 x cuBLAS TF32's error, asks
// for FP32 accuracy there; the tuner keeps the fastest kernel that meets it.
std::vector<Precision> mma_precisions(const ProblemKey& key) {
  if (key.precision == Precision::FP32 || tensor_cores_pay(key)) return {};
  if (key.precision == Precision::TF32) return {Precision::TF32x3, Precision::TF32};
  return {key.precision};
}

ProblemKey with_precision(ProblemKey key, Precision precision) {
  key.precision = precision;
  return key;
}

// tf32 outputs of at most 2^16 elements where the tensor cores do not pay: cuBLAS's TF32 error
// there falls to ~3e-8, below what even the tf32x3 kernel's dropped small products allow (H200:
// 1.3e-7 .. 1.8e-7 against a bound of 1.0e-7 .. 1.2e-7 at M = 1), so the untuned kernel is fp32.
bool tf32_needs_fp32(const ProblemKey& key) {
  return key.precision == Precision::TF32 && !tensor_cores_pay(key) && key.m * key.n <= (int64_t{1} << 16);
}

}  // namespace

std::vector<KernelConfig> tuning_candidates(const ProblemKey& key, const StaticLimits& limits) {
  std::vector<KernelConfig> out = candidate_space(key, limits);
  for (Precision p : mma_precisions(key))
    for (const KernelConfig& c : mma_candidate_space(with_precision(key, p), limits)) out.push_back(c);
  if (key.precision == Precision::TF32 && !tensor_cores_pay(key))
    for (const KernelConfig& c : candidate_space(with_precision(key, Precision::FP32), limits)) out.push_back(c);
  return out;
}

std::vector<KernelConfig> tuning_sample(const ProblemKey& key) {
  std::vector<KernelConfig> out = representative_sample(key);
  for (Precision p : mma_precisions(key))
    for (KernelConfig c : mma_representative_sample(with_precision(key, p))) {
      c.split_k = default_split_k(key, c);  // the sample's tiles with the split that keeps the contract
      out.push_back(c);
    }
  if (key.precision == Precision::TF32 && !tensor_cores_pay(key))
    out.push_back(default_config(with_precision(key, Precision::FP32)));
  return out;
}

KernelConfig untuned_config(const ProblemKey& key) {
  if (tf32_needs_fp32(key)) return default_config(with_precision(key, Precision::FP32));
  const std::vector<Precision> mma = mma_precisions(key);
  if (mma.empty()) return default_config(key);
  return mma_default_config(with_precision(key, mma.front()));  // tf32: the tf32x3 kernel (see mma_precisions)
}

LaunchGeometry launch_geometry(const KernelConfig& config, int64_t m, int64_t n, int64_t k, int sm_count) {
  for (auto [value, name] : {std::pair{m, "M"}, std::pair{n, "N"}, std::pair{k, "K"}})
    if (value < 1 || value > INT_MAX)
      throw InvalidArgument(fmt::format("launch_geometry({}): {}={} is outside 1..{} (the kernel takes int sizes)",
                                        config.name(), name, value, INT_MAX));
  const int64_t ctas = ((m + config.block_m - 1) / config.block_m) * ((n + config.block_n - 1) / config.block_n);
  if (ctas > INT_MAX)
    throw InvalidArgument(fmt::format("launch_geometry({}): {}x{} needs {} CTAs, more than a 1-D grid holds ({})",
                                      config.name(), m, n, ctas, INT_MAX));
  LaunchGeometry g;
  g.block_x = static_cast<unsigned>(config.threads());
  g.smem_bytes = shared_memory_bytes(config);
  if (is_wgmma(config.family)) {
    if (sm_count < 1)
      throw InvalidArgument(fmt::format("launch_geometry({}): sm_count={} must be >= 1", config.name(), sm_count));
    // Persistent CTAs walk the tiles; with the stream-K tail they also share tiles along K, so
    // fewer tiles than SMs still fill the SMs (one K unit, GROUP_STAGES stages, per CTA at least).
    const int group_stages = wgmma_group_stages(config);
    const int64_t units = ((k + config.block_k - 1) / config.block_k + group_stages - 1) / group_stages;
    const int64_t work = config.stream_k != 0 ? ctas * units : ctas;
    g.grid_x = static_cast<unsigned>(std::min<int64_t>(work, sm_count));
    if (config.cluster > 1) {
      // CTA pairs walk pairs of tiles side by side: whole clusters, at most one CTA per SM.
      const int64_t tiles_n = (n + config.block_n - 1) / config.block_n;
      const int64_t pairs = ((m + config.block_m - 1) / config.block_m) * ((tiles_n + config.cluster - 1) / config.cluster);
      g.grid_x = static_cast<unsigned>(std::min<int64_t>(pairs, sm_count / config.cluster) * config.cluster);
      if (g.grid_x == 0)
        throw InvalidArgument(fmt::format("launch_geometry({}): sm_count={} holds no cluster of {}", config.name(),
                                          sm_count, config.cluster));
    }
    return g;
  }
  g.grid_x = static_cast<unsigned>(ctas);
  g.grid_y = static_cast<unsigned>(config.split_k);  // K slices (split_k_reduce.cu adds them)
  return g;
}

}  // namespace jitgemm
