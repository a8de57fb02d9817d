// The cp.async + mma.sync family (tf32/mma_sync_gemm.cu, tf32x3 and tf32): static rules
// mirroring the template's static_asserts, candidate space, sample and default, name,
// prologue, JSON fields and launch geometry (one CTA per tile, split-K along gridDim.y).
#include "codegen/mma_sync_family.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <bit>

#include "codegen/family_checks.hpp"
#include "codegen/name_reader.hpp"
#include "codegen/split_k_policy.hpp"
#include "codegen/support_templates.hpp"
#include "jitgemm/error.hpp"

namespace jitgemm {
namespace {

constexpr int kRegisterAllowance = 40;  // addresses, indices, loop state (see mma_estimated_registers)
constexpr int64_t kDefaultMinCtas = kLargestHopperSms;  // the large default fills every SM of an H100 / H200 once
// A sum and a block accumulator on a warp tile above 32 x 32 (128 floats per lane) spilled 4..92
// bytes in some specialization of every such config (NVRTC 13.0, sm_90a, JITGEMM_FULL_SWEEP).
constexpr int kMaxBlockedWarpArea = 32 * 32;

bool is_x3(const KernelConfig& c) { return c.precision == Precision::TF32x3; }
bool blocked(const KernelConfig& c) { return is_x3(c) || c.mma_sync().acc_block_k > 0; }
bool pow2(int v) { return v > 0 && std::has_single_bit(static_cast<unsigned>(v)); }

// Floats one operand slice reserves (OperandTile::FLOATS of the template).
size_t slice_floats(int block_x, int block_k) {
  return static_cast<size_t>(std::max(block_x * (block_k + 8), block_k * (block_x + 4)));
}

KernelConfig mma(Precision precision, int bm, int bn, int bk, int wm, int wn, int stages, int acc_block_k) {
  KernelConfig c = make_config(KernelFamily::MmaSync, precision);
  c.block_m = bm, c.block_n = bn, c.block_k = bk;
  c.mma_sync() = MmaSyncParams{wm, wn, acc_block_k};
  c.stages = stages;
  return c;
}

// The template's static_asserts on shapes and accumulation blocks.
std::string shape_problem(const KernelConfig& c) {
  const MmaSyncParams& p = c.mma_sync();
  for (auto [v, name] : {std::pair{c.block_m, "block_m"}, std::pair{c.block_n, "block_n"}})
    if (!pow2(v) || v < 32 || v > 256) return fmt::format("{}={} is not a power of two in 32..256", name, v);
  if (c.block_k < 16 || c.block_k > 64 || c.block_k % 16 != 0)
    return fmt::format("block_k={} is not a multiple of 16 in 16..64 (the K-major bank padding)", c.block_k);
  if (!pow2(p.warps_m) || !pow2(p.warps_n))
    return fmt::format("warps {}x{} are not powers of two", p.warps_m, p.warps_n);
  if (c.block_m % (16 * p.warps_m) != 0 || c.block_n % (8 * p.warps_n) != 0)
    return fmt::format("warps {}x{} do not split block {}x{} into whole 16 x 8 products", p.warps_m, p.warps_n,
                       c.block_m, c.block_n);
  if (p.acc_block_k < 0 || p.acc_block_k % 8 != 0 || (p.acc_block_k > 0 && c.block_k % p.acc_block_k != 0))
    return fmt::format("acc_block_k={} is not 0 or a multiple of 8 that divides block_k={}", p.acc_block_k,
                       c.block_k);
  if (is_x3(c) && p.acc_block_k == 0) return "tf32x3 accumulates in blocks: acc_block_k must be > 0";
  if (c.stages < 2 || c.stages > 8) return fmt::format("stages={} is outside 2..8", c.stages);
  if (std::string problem = split_k_problem(c); !problem.empty()) return problem;
  if (c.raster_group < 1) return fmt::format("raster_group={} is below 1", c.raster_group);
  return {};
}


constexpr std::array<ConfigField, 3> kFields{{
    {"warps_m", ConfigField::Kind::Integer, 1, 16, {}, [](const KernelConfig& c) { return c.mma_sync().warps_m; },
     [](KernelConfig& c, int v) { c.mma_sync().warps_m = v; }},
    {"warps_n", ConfigField::Kind::Integer, 1, 16, {}, [](const KernelConfig& c) { return c.mma_sync().warps_n; },
     [](KernelConfig& c, int v) { c.mma_sync().warps_n = v; }},
    {"acc_block_k", ConfigField::Kind::Integer, 0, 4096, {},
     [](const KernelConfig& c) { return c.mma_sync().acc_block_k; },
     [](KernelConfig& c, int v) { c.mma_sync().acc_block_k = v; }, 8},
}};

Precision mma_precision(const ProblemKey& key) {
  if (key.precision == Precision::TF32x3 || key.precision == Precision::TF32) return key.precision;
  throw NotSupported(
      fmt::format("precision {} has no mma.sync kernel (tf32x3 and tf32 only)", to_string(key.precision)));
}

class MmaSyncRules final : public SplitKFamilyRules {
 public:
  KernelFamily family() const noexcept override { return KernelFamily::MmaSync; }
  std::string_view template_path() const noexcept override { return "tf32/mma_sync_gemm.cu"; }
  std::span<const std::string_view> support_template_paths() const noexcept override {
    static constexpr std::string_view kPaths[] = {kSplitOperandTemplate, kSplitKReduceTemplate};
    return kPaths;
  }
  bool computes(Precision p) const noexcept override { return p == Precision::TF32x3 || p == Precision::TF32; }

  std::string name_suffix(const KernelConfig& c) const override {
    const MmaSyncParams& p = c.mma_sync();
    return fmt::format("_w{}x{}_s{}_a{}_k{}_g{}", p.warps_m, p.warps_n, c.stages, p.acc_block_k, c.split_k,
                       c.raster_group);
  }
  bool parse_name_suffix(std::string_view& rest, KernelConfig& c) const override {
    using namespace name_reader;
    MmaSyncParams& p = c.mma_sync();
    return take_field(rest, "_w", p.warps_m) && take_field(rest, "x", p.warps_n) && take_field(rest, "_s", c.stages) &&
           take_field(rest, "_a", p.acc_block_k, 0) && take_field(rest, "_k", c.split_k) &&
           take_field(rest, "_g", c.raster_group);
  }
  std::string_view name_form() const noexcept override {
    return "mma_<precision>_<bm>x<bn>x<bk>_w<wm>x<wn>_s<stages>_a<acc_block_k>_k<split>_g<group>, e.g. "
           "mma_tf32x3_128x128x32_w2x4_s3_a32_k1_g8";
  }

  std::string invalid_reason(const KernelConfig& c, const StaticLimits& limits) const override {
    if (!computes(c.precision)) return fmt::format("mma computes tf32x3 and tf32, not {}", to_string(c.precision));
    if (std::string p = shape_problem(c); !p.empty()) return p;
    if (std::string p = resource_problem(*this, c, limits); !p.empty()) return p;
    const MmaSyncParams& p = c.mma_sync();
    const int warp_area = (c.block_m / p.warps_m) * (c.block_n / p.warps_n);
    if (blocked(c) && warp_area > kMaxBlockedWarpArea)
      return fmt::format("blocked accumulation on {}x{} warp tiles spills (more than 32 x 32)", c.block_m / p.warps_m,
                         c.block_n / p.warps_n);
    return {};
  }
  int threads(const KernelConfig& c) const override { return c.mma_sync().warps_m * c.mma_sync().warps_n * 32; }
  size_t shared_memory_bytes(const KernelConfig& c) const override { return mma_shared_memory_bytes(c); }
  int estimated_registers(const KernelConfig& c) const override { return mma_estimated_registers(c); }

  // The constants tf32/mma_sync_gemm.cu reads (its #ifndef KERNEL_NAME block lists them).
  std::string prologue(const KernelConfig& config, const KernelSpecialization& s,
                       std::string_view kernel_name) const override {
    const KernelConfig c = compiled_config(config);
    const MmaSyncParams& p = c.mma_sync();
    return fmt::format(
        "// Generated by jitgemm codegen: {config} for {spec}. Constants only; the kernel is the template below.\n"
        "#define KERNEL_NAME {name}\n"
        "constexpr int TF32X3 = {x3};\n"
        "constexpr int BLOCK_M = {bm}, BLOCK_N = {bn}, BLOCK_K = {bk};\n"
        "constexpr int WARPS_M = {wm}, WARPS_N = {wn};\n"
        "constexpr int STAGES = {stages}, SPLIT_K = {split}, RASTER_GROUP = {group};\n"
        "constexpr int ACC_BLOCK_K = {acc};\n"
        "constexpr int TRANS_A = {ta}, TRANS_B = {tb};\n"
        "constexpr int VEC_A = {va}, VEC_B = {vb}, VEC_C = {vc};\n"
        "{structure}"
        "constexpr int SMEM_BYTES = {smem};\n",
        fmt::arg("config", c.name()), fmt::arg("spec", s.suffix()), fmt::arg("name", kernel_name),
        fmt::arg("x3", is_x3(c) ? 1 : 0), fmt::arg("bm", c.block_m), fmt::arg("bn", c.block_n),
        fmt::arg("bk", c.block_k), fmt::arg("wm", p.warps_m), fmt::arg("wn", p.warps_n), fmt::arg("stages", c.stages),
        fmt::arg("split", c.split_k), fmt::arg("group", c.raster_group), fmt::arg("acc", p.acc_block_k),
        fmt::arg("ta", s.trans_a == Op::T ? 1 : 0), fmt::arg("tb", s.trans_b == Op::T ? 1 : 0),
        fmt::arg("va", s.vec_a), fmt::arg("vb", s.vec_b), fmt::arg("vc", s.vec_c),
        fmt::arg("structure", structure_constants(s)),
        fmt::arg("smem", mma_shared_memory_bytes(c)));
  }

  std::vector<KernelConfig> candidates(const ProblemKey& key, const StaticLimits& limits) const override {
    return mma_candidate_space(key, limits);
  }
  std::vector<KernelConfig> sample(const ProblemKey& key) const override { return mma_representative_sample(key); }
  KernelConfig default_config(const ProblemKey& key) const override { return mma_default_config(key); }

  std::span<const ConfigField> fields() const noexcept override { return kFields; }
};

}  // namespace

size_t mma_shared_memory_bytes(const KernelConfig& c) {
  const size_t floats = slice_floats(c.block_m, c.block_k) + slice_floats(c.block_n, c.block_k);
  return static_cast<size_t>(c.stages) * floats * sizeof(float);
}

int mma_estimated_registers(const KernelConfig& c) {
  const MmaSyncParams& p = c.mma_sync();
  const int threads = std::max(p.warps_m * p.warps_n * 32, 1);
  const int warp_m = c.block_m / std::max(p.warps_m, 1), warp_n = c.block_n / std::max(p.warps_n, 1);
  const int sum = warp_m * warp_n / 32;
  const int accumulators = blocked(c) ? 2 * sum : sum;
  const int fragments = (warp_m / 16 * 4 + warp_n / 8 * 2) * (is_x3(c) ? 2 : 1);
  const int scalar_copies = (c.block_m + c.block_n) * c.block_k / threads;
  return accumulators + fragments + kRegisterAllowance + scalar_copies;
}

std::vector<KernelConfig> mma_candidate_space(const ProblemKey& key, const StaticLimits& limits) {
  const Precision precision = mma_precision(key);
  const bool x3 = precision == Precision::TF32x3;
  // CTA tile and warp grid: 32x32 warp tiles, except 128x128 (64x32 or 32x64 on 8 warps: tf32
  // unblocked only, the static rules drop the rest).
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
          const KernelConfig c = mma(precision, l[0], l[1], bk, l[2], l[3], stages, acc);
          if (statically_valid(c, limits, nullptr)) append_with_splits(out, key, c);
        }
      }
  }
  sort_by_name(out);
  return out;
}

std::vector<KernelConfig> mma_representative_sample(const ProblemKey& key) {
  const Precision f = mma_precision(key);
  if (f == Precision::TF32)
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
  const Precision f = mma_precision(key);
  const bool x3 = f == Precision::TF32x3;
  // tf32x3 holds a block accumulator next to the sum: 32x32 warp tiles, 128 x 64 CTA tiles.
  const KernelConfig large = x3 ? mma(f, 128, 64, 32, 4, 2, 3, 32) : mma(f, 128, 128, 32, 2, 4, 3, 0);
  const int64_t large_tiles = large.output_tiles(key.m, key.n);
  const KernelConfig tile = key.m >= 128 && key.n >= 128 && large_tiles >= kDefaultMinCtas
                                ? large
                                : mma(f, 64, 64, 32, 2, 2, 3, x3 ? 32 : 0);
  return with_default_split_k(tile, key);
}

const KernelFamilyRules& mma_sync_rules() noexcept {
  static const MmaSyncRules rules;
  return rules;
}

}  // namespace jitgemm
