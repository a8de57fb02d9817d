// The persistent TMA + wgmma family (tf32/wgmma_gemm.cu, tf32x3 and tf32): static rules
// mirroring the template's static_asserts, candidate space, sample and default, name,
// prologue, JSON fields and launch geometry (persistent CTAs, at most one per SM).
#include "codegen/wgmma_family.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <bit>
#include <climits>
#include <tuple>

#include "codegen/name_reader.hpp"
#include "codegen/split_k_policy.hpp"
#include "codegen/support_templates.hpp"
#include "jitgemm/error.hpp"

namespace jitgemm {
namespace {

constexpr int kSmemAlign = 1024;        // SMEM_ALIGN: the 128-byte swizzle atom
constexpr int kMaxStages = 8;           // deeper rings gain nothing at >= 64 K per stage group
constexpr int kMinKInFlight = 64;       // stages * block_k of every candidate
constexpr int kMaxSumBlocks = 64;
constexpr int64_t kStreamKWave = kLargestHopperSms;   // SMs of an H100/H200 SXM: CTAs per wave of a persistent kernel

bool is_x3(const KernelConfig& c) { return c.precision == Precision::TF32x3; }

// tf32x3 blocks of 64 only on problems where they keep the contract (wgmma_blocks_of_64_allowed):
// what the candidate space, the sample, the default and a record served elsewhere all obey.
bool blocks_keep_contract(const KernelConfig& c, const ProblemKey& key) {
  return !is_x3(c) || c.wgmma().acc_block_k != 64 || wgmma_blocks_of_64_allowed(key);
}
int planes(const KernelConfig& c) { return is_x3(c) ? 2 : 1; }

bool one_of(int v, std::initializer_list<int> allowed) {
  return std::find(allowed.begin(), allowed.end(), v) != allowed.end();
}

Precision wgmma_precision(const ProblemKey& key, std::string_view where) {
  if (key.precision == Precision::TF32x3 || key.precision == Precision::TF32) return key.precision;
  throw NotSupported(fmt::format("{}: precision {} has no wgmma kernel (tf32x3 and tf32 only)", where,
                                 to_string(key.precision)));
}

KernelConfig wgmma(Precision precision, int bn, int bk, int stages, int acc_block_k, int acc_buffers = 1,
                   int sum_blocks = 0) {
  KernelConfig c = make_config(KernelFamily::Wgmma, precision);
  WgmmaParams& w = c.wgmma();
  w.consumers = 2;
  c.block_m = 64 * w.consumers;
  c.block_n = bn, c.block_k = bk, c.stages = stages;
  w.acc_block_k = acc_block_k, w.acc_buffers = acc_buffers, w.sum_blocks = sum_blocks;
  return c;
}

// A read raw into registers, its big part rounded or truncated; swapped: the kernel's A is op(B)^T.
KernelConfig in_registers(KernelConfig c, bool round, bool swap) {
  c.wgmma().a = round ? WgmmaA::Registers : WgmmaA::RegistersTruncated;
  c.wgmma().swap_ab = swap;
  return c;
}

KernelConfig converting(KernelConfig c) {
  c.wgmma().b = WgmmaB::Converted;
  return c;
}

KernelConfig transforming(KernelConfig c) {
  c.wgmma().b = WgmmaB::Transformed;
  return c;
}

KernelConfig rounding(KernelConfig c) {
  c.wgmma().b = WgmmaB::Rounded;
  return c;
}

KernelConfig streaming(KernelConfig c) {
  c.wgmma().schedule = TileSchedule::StreamK;
  return c;
}

KernelConfig single_consumer(KernelConfig c) {
  c.wgmma().consumers = 1;
  c.block_m = 64;
  return c;
}

KernelConfig paired(KernelConfig c) {
  c.wgmma().cluster = 2;
  return c;
}

// The largest ring that fits `limits` (at most kMaxStages).
int max_stages(const KernelConfig& tile, const StaticLimits& limits) {
  KernelConfig c = tile;
  int stages = 1;
  for (c.stages = 2; c.stages <= kMaxStages && wgmma_shared_memory_bytes(c) <= limits.max_smem_bytes; ++c.stages)
    stages = c.stages;
  return stages;
}

// Rules that name() uniqueness needs: fields this family or this precision does not read.
std::string unused_fields_problem(const KernelConfig& c) {
  const WgmmaParams& w = c.wgmma();
  if (c.split_k < 1 || c.split_k > kMaxSplitK)
    return fmt::format("split_k={} is outside 1..{}", c.split_k, kMaxSplitK);
  if (!is_x3(c) && (w.acc_buffers != 1 || w.sum_blocks != 0))
    return fmt::format("acc_buffers={} sum_blocks={}: tf32 reads neither (1 and 0 here)", w.acc_buffers, w.sum_blocks);
  return {};
}

// The template's static_asserts on shapes and accumulation blocks, in its order.
std::string shape_problem(const KernelConfig& c) {
  const WgmmaParams& w = c.wgmma();
  if (!one_of(w.consumers, {1, 2})) return fmt::format("consumers={} is not 1 or 2", w.consumers);
  if (c.block_m != 64 * w.consumers)
    return fmt::format("block_m={} is not 64 x consumers ({})", c.block_m, 64 * w.consumers);
  if (!one_of(c.block_n, {64, 96, 128, 160, 192, 256}))
    return fmt::format("block_n={} is not a wgmma width (64, 96, 128, 160, 192, 256)", c.block_n);
  if (!one_of(c.block_k, {16, 32, 64, 128})) return fmt::format("block_k={} is not 16, 32, 64 or 128", c.block_k);
  if (is_x3(c)) {
    if (w.acc_block_k < 8 || w.acc_block_k % 8 != 0)
      return fmt::format("acc_block_k={} is not a multiple of the k8 step", w.acc_block_k);
    if (c.block_k % w.acc_block_k != 0 && w.acc_block_k % c.block_k != 0)
      return fmt::format("acc_block_k={} neither divides nor is a multiple of block_k={}", w.acc_block_k, c.block_k);
  } else if (w.acc_block_k < 0 || w.acc_block_k % c.block_k != 0) {
    return fmt::format("tf32 acc_block_k={} is not 0 or a multiple of block_k={}", w.acc_block_k, c.block_k);
  }
  if (!one_of(w.acc_buffers, {1, 2})) return fmt::format("acc_buffers={} is not 1 or 2", w.acc_buffers);
  if (w.sum_blocks < 0 || w.sum_blocks > kMaxSumBlocks)
    return fmt::format("sum_blocks={} is outside 0..{}", w.sum_blocks, kMaxSumBlocks);
  const int ring = (is_x3(c) ? w.acc_buffers : 2) * wgmma_group_stages(c);
  if (c.stages < 2 || c.stages < ring)
    return fmt::format("stages={} below the {} the consumers hold at once (and 2)", c.stages, std::max(ring, 2));
  if (c.raster_group < 1) return fmt::format("raster_group={} is below 1", c.raster_group);
  return {};
}

// The rules between the operand sources, the schedule and the cluster.
std::string operand_problem(const KernelConfig& c) {
  const WgmmaParams& w = c.wgmma();
  if (!w.a_in_registers() && w.swap_ab) return "swap_ab exchanges the operand read into registers: needs A in registers";
  if (w.b == WgmmaB::Converted && (!w.a_in_registers() || is_x3(c) || c.block_k > 64))
    return "B converted in the kernel needs tf32 with A in registers and block_k <= 64 (one 64-K chunk per stage)";
  if (w.b_read_raw() && (!w.a_in_registers() || w.cluster != 1))
    return fmt::format("B {} in shared memory needs A in registers and no CTA pair (cluster={})", to_string(w.b),
                       w.cluster);
  if (!one_of(w.cluster, {1, 2})) return fmt::format("cluster={} is not 1 or 2", w.cluster);
  if (w.cluster > 1 && (w.schedule == TileSchedule::StreamK || w.b == WgmmaB::Converted))
    return fmt::format("cluster={} walks whole tiles with B from a pre-pass (not with stream-K or B converted)",
                       w.cluster);
  if (c.split_k > 1 && (w.schedule == TileSchedule::StreamK || w.cluster != 1))
    return fmt::format("split_k={} walks a work list of K pieces: data-parallel, no CTA pairs (schedule {}, cluster={})",
                       c.split_k, w.schedule == TileSchedule::StreamK ? "stream_k" : "data_parallel", w.cluster);
  if (w.a_in_registers() && c.block_k % 32 != 0)
    return fmt::format("block_k={}: a raw A in registers is read as 128-byte rows of 32 floats", c.block_k);
  if ((c.block_m * c.block_k * 4) % kSmemAlign != 0 || ((c.block_m + c.block_n) * c.block_k * 4) % kSmemAlign != 0)
    return fmt::format("operand tiles {}x{} / {}x{} floats do not start on 1024-byte swizzle atoms", c.block_m,
                       c.block_k, c.block_n, c.block_k);
  return {};
}

// Budgets, limits, and what compiles but spills (measured with NVRTC 13.0 for sm_90a).
std::string budget_problem(const KernelConfig& c, const StaticLimits& limits) {
  const WgmmaParams& w = c.wgmma();
  const SetmaxnregBudget regs = wgmma_register_budget(c);
  const int budget = w.consumers > 1 ? regs.consumer : limits.max_registers_per_thread;
  if (wgmma_consumer_registers(c) > budget)
    return fmt::format("running sum and block accumulators need {} registers, over the consumer budget {}",
                       wgmma_consumer_registers(c), budget);
  if (w.consumers > 1 && regs.producer * 128 + regs.consumer * 128 * w.consumers > limits.registers_per_sm)
    return "setmaxnreg budgets exceed the register file";
  const int threads = 128 * (1 + w.consumers);
  if (threads > limits.max_threads) return fmt::format("{} threads exceed {}", threads, limits.max_threads);
  const size_t smem = wgmma_shared_memory_bytes(c);
  if (smem > limits.max_smem_bytes) return fmt::format("shared memory {} B exceeds {} B", smem, limits.max_smem_bytes);
  if (is_x3(c) && c.block_k == 32 && w.acc_block_k == 16 && w.acc_buffers == 2)
    return "block_k 32 with acc_block_k 16 and 2 accumulators spills";
  if (is_x3(c) && w.sum_blocks > 0 && c.block_n >= 128) return fmt::format("sum_blocks > 0 at block_n={} spills", c.block_n);
  if (is_x3(c) && w.sum_blocks > 0 && w.acc_buffers == 2) return "sum_blocks > 0 with 2 accumulators spills";
  if (w.b == WgmmaB::Converted && w.schedule == TileSchedule::StreamK && c.block_n == 192)
    return "B converted with stream-K at block_n=192 spills";
  if (w.b == WgmmaB::Converted && w.swap_ab && c.block_n <= 128 && w.acc_block_k > 0)
    return "B converted, swapped, at block_n<=128 with FP32 blocks spills (transposed source)";
  if (is_x3(c) && w.cluster > 1 && w.a_in_registers() && c.block_n >= 192)
    return fmt::format("cluster={} with A in registers at block_n={} spills", w.cluster, c.block_n);
  if (is_x3(c) && w.a_in_registers() && (w.acc_buffers == 2 || w.sum_blocks > 0))
    return "A in registers with 2 accumulators (and two fragment sets) or sum_blocks > 0 spills";
  if (!is_x3(c) && w.b == WgmmaB::Rounded && w.schedule == TileSchedule::StreamK && w.acc_block_k > 0)
    return "B rounded in place with stream-K and FP32 blocks spills";
  return {};
}

constexpr std::string_view kANames[] = {"planes", "registers", "registers_truncated"};
constexpr std::string_view kBNames[] = {"planes", "converted", "transformed", "rounded"};
constexpr std::string_view kScheduleNames[] = {"data_parallel", "stream_k"};

constexpr std::array<ConfigField, 9> kFields{{
    {"consumers", ConfigField::Kind::Integer, 1, 2, {}, [](const KernelConfig& c) { return c.wgmma().consumers; },
     [](KernelConfig& c, int v) { c.wgmma().consumers = v; }},
    {"acc_block_k", ConfigField::Kind::Integer, 0, 4096, {},
     [](const KernelConfig& c) { return c.wgmma().acc_block_k; },
     [](KernelConfig& c, int v) { c.wgmma().acc_block_k = v; }, 8},
    {"acc_buffers", ConfigField::Kind::Integer, 1, 2, {}, [](const KernelConfig& c) { return c.wgmma().acc_buffers; },
     [](KernelConfig& c, int v) { c.wgmma().acc_buffers = v; }},
    {"sum_blocks", ConfigField::Kind::Integer, 0, 64, {}, [](const KernelConfig& c) { return c.wgmma().sum_blocks; },
     [](KernelConfig& c, int v) { c.wgmma().sum_blocks = v; }},
    {"a", ConfigField::Kind::Name, 0, 2, kANames, [](const KernelConfig& c) { return static_cast<int>(c.wgmma().a); },
     [](KernelConfig& c, int v) { c.wgmma().a = static_cast<WgmmaA>(v); }},
    {"swap_ab", ConfigField::Kind::Boolean, 0, 1, {}, [](const KernelConfig& c) { return c.wgmma().swap_ab ? 1 : 0; },
     [](KernelConfig& c, int v) { c.wgmma().swap_ab = v != 0; }},
    {"b", ConfigField::Kind::Name, 0, 3, kBNames, [](const KernelConfig& c) { return static_cast<int>(c.wgmma().b); },
     [](KernelConfig& c, int v) { c.wgmma().b = static_cast<WgmmaB>(v); }},
    {"schedule", ConfigField::Kind::Name, 0, 1, kScheduleNames,
     [](const KernelConfig& c) { return static_cast<int>(c.wgmma().schedule); },
     [](KernelConfig& c, int v) { c.wgmma().schedule = static_cast<TileSchedule>(v); }},
    {"cluster", ConfigField::Kind::Integer, 1, 2, {}, [](const KernelConfig& c) { return c.wgmma().cluster; },
     [](KernelConfig& c, int v) { c.wgmma().cluster = v; }},
}};

std::string prologue_of(const KernelConfig& c, const KernelSpecialization& s, std::string_view kernel_name);

// K pieces (split_k > 1) always walk a work list and store whole partial sums: the split-K
// reduction applies the fill.
KernelSpecialization split_specialization(const KernelConfig& c, KernelSpecialization s) {
  if (c.split_k > 1) s.fill = Triangle::None, s.work_list = true;
  return s;
}

class WgmmaRules final : public KernelFamilyRules {
 public:
  KernelFamily family() const noexcept override { return KernelFamily::Wgmma; }
  std::string_view template_path() const noexcept override { return "tf32/wgmma_gemm.cu"; }
  std::span<const std::string_view> support_template_paths() const noexcept override {
    static constexpr std::string_view kPaths[] = {kSplitOperandTemplate, kSplitKReduceTemplate};
    return kPaths;
  }
  bool computes(Precision p) const noexcept override { return p == Precision::TF32x3 || p == Precision::TF32; }

  std::string name_suffix(const KernelConfig& c) const override {
    const WgmmaParams& w = c.wgmma();
    return fmt::format("_c{}_s{}_a{}_b{}_m{}_g{}{}{}{}{}{}{}{}", w.consumers, c.stages, w.acc_block_k, w.acc_buffers,
                       w.sum_blocks, c.raster_group,
                       w.a == WgmmaA::Registers ? "_rs" : w.a == WgmmaA::RegistersTruncated ? "_rst" : "",
                       w.swap_ab ? "_swap" : "", w.b == WgmmaB::Converted ? "_cvt" : "",
                       w.b == WgmmaB::Transformed ? "_tw" : w.b == WgmmaB::Rounded ? "_rb" : "", w.schedule == TileSchedule::StreamK ? "_sk" : "",
                       w.cluster != 1 ? fmt::format("_x{}", w.cluster) : "",
                       c.split_k != 1 ? fmt::format("_k{}", c.split_k) : "");
  }
  bool parse_name_suffix(std::string_view& rest, KernelConfig& c) const override {
    using namespace name_reader;
    WgmmaParams& w = c.wgmma();
    if (!(take_field(rest, "_c", w.consumers) && take_field(rest, "_s", c.stages) &&
          take_field(rest, "_a", w.acc_block_k, 0) && take_field(rest, "_b", w.acc_buffers) &&
          take_field(rest, "_m", w.sum_blocks, 0) && take_field(rest, "_g", c.raster_group)))
      return false;
    if (take(rest, "_rst")) w.a = WgmmaA::RegistersTruncated;
    else if (take(rest, "_rs")) w.a = WgmmaA::Registers;
    if (take(rest, "_swap")) w.swap_ab = true;
    if (take(rest, "_cvt")) w.b = WgmmaB::Converted;
    else if (take(rest, "_tw")) w.b = WgmmaB::Transformed;
    else if (take(rest, "_rb")) w.b = WgmmaB::Rounded;
    if (take(rest, "_sk")) w.schedule = TileSchedule::StreamK;
    if (take(rest, "_x") && !take_int(rest, w.cluster)) return false;
    if (take(rest, "_k")) return take_int(rest, c.split_k);
    return true;
  }
  std::string_view name_form() const noexcept override {
    return "wgmma_<precision>_<bm>x<bn>x<bk>_c<consumers>_s<stages>_a<acc_block_k>_b<acc_buffers>_m<sum_blocks>_g<group>"
           "[_rs|_rst][_swap][_cvt|_tw|_rb][_sk][_x<cluster>][_k<split>], e.g. wgmma_tf32x3_128x128x32_c2_s3_a32_b1_m0_g8";
  }

  std::string invalid_reason(const KernelConfig& c, const StaticLimits& limits) const override {
    if (!computes(c.precision)) return fmt::format("wgmma computes tf32x3 and tf32, not {}", to_string(c.precision));
    for (auto rule : {unused_fields_problem, shape_problem, operand_problem})
      if (std::string p = rule(c); !p.empty()) return p;
    return budget_problem(c, limits);
  }
  int threads(const KernelConfig& c) const override { return 128 * (1 + c.wgmma().consumers); }
  size_t shared_memory_bytes(const KernelConfig& c) const override { return wgmma_shared_memory_bytes(c); }
  int estimated_registers(const KernelConfig& c) const override { return wgmma_consumer_registers(c); }

  // The pre-pass takes care of transposes and vector widths: one main kernel serves every
  // specialization, except that a raw A in registers is read in its stored layout (K-major or
  // MN-major), and B converted in the kernel in its source layout and vector width.
  std::string kernel_name(const KernelConfig& c, const KernelSpecialization& key_spec) const override {
    const WgmmaParams& w = c.wgmma();
    const KernelSpecialization s = split_specialization(c, key_spec);
    std::string name = "jitgemm_" + c.name();
    const WgmmaOperandMasks masks = wgmma_operand_masks(c, s);
    if (w.a_in_registers()) name += masks.a_sym == 0 && raw_operand_mn_major(c, s.trans_a, s.trans_b) ? "_mn" : "_k";
    if (wgmma_b_planes_permuted(c, key_spec)) name += "p";  // "_kp": B' planes in the permuted K order
    if (w.b == WgmmaB::Converted)
      name += fmt::format("_b{}{}", converted_operand_transposed(c, s.trans_a, s.trans_b) ? "t" : "k",
                          w.swap_ab ? s.vec_a : s.vec_b);
    if (s.fill != Triangle::None) name += (w.swap_ab ? transposed(s.fill) : s.fill) == Triangle::Lower ? "_fl" : "_fu";
    if (s.work_list) name += "_wl";
    // Masked raw operands: "_ta" / "_tb", then l (k <= row kept) or u (k >= row), 1 for a unit diagonal.
    for (auto [operand, keep, unit] : {std::tuple{"_ta", masks.a_keep, masks.a_unit}, std::tuple{"_tb", masks.b_keep, masks.b_unit}})
      if (keep != 0) name += fmt::format("{}{}{}", operand, keep == 1 ? "l" : "u", unit ? "1" : "");
    // A symmetric A' read from its stored triangle: "_sa" + l or u (the triangle stored).
    if (masks.a_sym != 0) name += masks.a_sym == 1 ? "_sal" : "_sau";
    return name;
  }
  std::string prologue(const KernelConfig& c, const KernelSpecialization& s,
                       std::string_view kernel_name) const override {
    return prologue_of(c, s, kernel_name);
  }

  std::vector<KernelConfig> candidates(const ProblemKey& key, const StaticLimits& limits) const override {
    return wgmma_candidate_space(key, limits);
  }
  std::vector<KernelConfig> sample(const ProblemKey& key) const override { return wgmma_representative_sample(key); }
  KernelConfig default_config(const ProblemKey& key) const override { return wgmma_default_config(key); }
  bool runs_in_place(const KernelConfig& c, const ProblemKey& key) const override {
    return wgmma_runs_in_place(c, key);
  }
  // A record that reads an operand in place this problem's memory does not allow (alignment):
  // the same tiles fed by the pre-pass, when they are valid so.
  std::optional<KernelConfig> adapt(const KernelConfig& config, const ProblemKey& key) const override {
    KernelConfig tuned = config;
    // The K pieces this problem needs with these tiles (none, or other ones than the record's).
    tuned.split_k = wgmma_default_split_k(key, tuned);
    if (!wgmma_walks_work_list(tuned, key) || tuned.split_k > 1) {  // whole tiles or pieces, one CTA each
      tuned.wgmma().schedule = TileSchedule::DataParallel;
      tuned.wgmma().cluster = 1;
    }
    // A record with blocks of 64 served on a problem where they would miss the contract (a
    // smaller K or output than its own): blocks of 32, the same tiles.
    if (!blocks_keep_contract(tuned, key)) tuned.wgmma().acc_block_k = 32;
    if (wgmma_runs_in_place(tuned, key)) return tuned;
    KernelConfig planes = tuned;
    WgmmaParams& w = planes.wgmma();
    w.a = WgmmaA::Planes, w.swap_ab = false, w.b = WgmmaB::Planes;
    if (!invalid_reason(planes, StaticLimits{}).empty()) return std::nullopt;
    return planes;
  }

  std::span<const ConfigField> fields() const noexcept override { return kFields; }

  // min(sm_count, tiles x split_k) persistent CTAs; with the stream-K tail min(sm_count, tiles x K
  // units); CTA pairs: whole clusters over pairs of tiles, at most sm_count CTAs.
  LaunchGeometry geometry(const KernelConfig& c, int64_t m, int64_t n, int64_t k, int sm_count) const override {
    const WgmmaParams& w = c.wgmma();
    if (sm_count < 1)
      throw InvalidArgument(fmt::format("launch_geometry({}): sm_count={} must be >= 1", c.name(), sm_count));
    LaunchGeometry g;
    g.block_x = static_cast<unsigned>(threads(c));
    g.smem_bytes = wgmma_shared_memory_bytes(c);
    const int64_t tiles_m = (m + c.block_m - 1) / c.block_m, tiles_n = (n + c.block_n - 1) / c.block_n;
    // Persistent CTAs walk the tiles; with the stream-K tail they also share tiles along K
    // (stream_k_tail: up to 16 pieces a tile), so fewer tiles than SMs take more CTAs (at most
    // one per K unit of GROUP_STAGES stages; CTAs left without a piece exit).
    const int group_stages = wgmma_group_stages(c);
    const int64_t units = ((k + c.block_k - 1) / c.block_k + group_stages - 1) / group_stages;
    const int64_t work = w.schedule == TileSchedule::StreamK ? tiles_m * tiles_n * units : tiles_m * tiles_n * c.split_k;
    g.grid_x = static_cast<unsigned>(std::min<int64_t>(work, sm_count));
    if (w.cluster > 1) {
      // CTA pairs walk pairs of tiles side by side: whole clusters, at most one CTA per SM.
      const int64_t pairs = tiles_m * ((tiles_n + w.cluster - 1) / w.cluster);
      g.grid_x = static_cast<unsigned>(std::min<int64_t>(pairs, sm_count / w.cluster) * w.cluster);
      if (g.grid_x == 0)
        throw InvalidArgument(
            fmt::format("launch_geometry({}): sm_count={} holds no cluster of {}", c.name(), sm_count, w.cluster));
    }
    return g;
  }
};

// The constants tf32/wgmma_gemm.cu reads (its #ifndef KERNEL_NAME block lists them).
std::string prologue_of(const KernelConfig& c, const KernelSpecialization& key_spec, std::string_view kernel_name) {
  const WgmmaParams& w = c.wgmma();
  const KernelSpecialization s = split_specialization(c, key_spec);
  const bool convert = w.b == WgmmaB::Converted;
  const WgmmaOperandMasks masks = wgmma_operand_masks(c, s);
  return fmt::format(
      "// Generated by jitgemm codegen: {config}. Constants only; the kernel is the template below.\n"
      "#define KERNEL_NAME {name}\n"
      "constexpr int TF32X3 = {x3};\n"
      "constexpr int BLOCK_M = {bm}, BLOCK_N = {bn}, BLOCK_K = {bk};\n"
      "constexpr int STAGES = {stages};\n"
      "constexpr int CONSUMERS = {consumers};\n"
      "constexpr int ACC_BLOCK_K = {acc};\n"
      "constexpr int ACC_BUFFERS = {buffers};\n"
      "constexpr int SUM_BLOCKS = {sum};\n"
      "constexpr int RASTER_GROUP = {group};\n"
      "constexpr int A_IN_REGISTERS = {rs}, A_ROUND = {round}, A_MN_MAJOR = {mn_major}, TRANSPOSE_C = {swap};\n"
      "constexpr int CONVERT_B = {convert}, CONVERT_TRANSPOSED = {convert_t}, CONVERT_VEC = {convert_vec};\n"
      "constexpr int TRANSFORM_B = {transform}, B_K_MAJOR = {b_k_major};\n"
      "constexpr int STREAM_K = {stream_k}, CLUSTER = {cluster};\n{cluster_attribute}"
      "{structure}"
      "constexpr int A_KEEP = {a_keep}, A_UNIT = {a_unit}, B_KEEP = {b_keep}, B_UNIT = {b_unit};\n"
      "constexpr int A_SYM = {a_sym};\n"
      "constexpr int SPLIT_K = {split}, PDL = {pdl};\n"
      "constexpr int PRODUCER_REGS = {producer}, CONSUMER_REGS = {consumer};\n"
      "constexpr int SMEM_BYTES = {smem};\n{permuted}",
      fmt::arg("config", c.name()), fmt::arg("name", kernel_name), fmt::arg("x3", is_x3(c) ? 1 : 0),
      fmt::arg("bm", c.block_m), fmt::arg("bn", c.block_n), fmt::arg("bk", c.block_k), fmt::arg("stages", c.stages),
      fmt::arg("consumers", w.consumers), fmt::arg("acc", w.acc_block_k), fmt::arg("buffers", w.acc_buffers),
      fmt::arg("sum", w.sum_blocks), fmt::arg("group", c.raster_group), fmt::arg("rs", w.a_in_registers() ? 1 : 0),
      fmt::arg("round", w.a == WgmmaA::RegistersTruncated ? 0 : 1),
      fmt::arg("mn_major", w.a_in_registers() && masks.a_sym == 0 && raw_operand_mn_major(c, s.trans_a, s.trans_b) ? 1 : 0),
      fmt::arg("swap", w.swap_ab ? 1 : 0), fmt::arg("convert", convert ? 1 : 0),
      fmt::arg("convert_t", convert && converted_operand_transposed(c, s.trans_a, s.trans_b) ? 1 : 0),
      fmt::arg("convert_vec", !convert ? 4 : w.swap_ab ? s.vec_a : s.vec_b),
      fmt::arg("transform", w.b_read_raw() ? 1 : 0), fmt::arg("b_k_major", w.b == WgmmaB::Rounded ? 1 : 0),
      fmt::arg("stream_k", w.schedule == TileSchedule::StreamK ? 1 : 0), fmt::arg("cluster", w.cluster),
      fmt::arg("cluster_attribute",
               w.cluster > 1 ? fmt::format("#define CLUSTER_ATTRIBUTE __cluster_dims__({}, 1, 1)\n", w.cluster) : ""),
      fmt::arg("structure", structure_constants(s, w.swap_ab)), fmt::arg("a_keep", masks.a_keep),
      fmt::arg("a_unit", masks.a_unit ? 1 : 0), fmt::arg("b_keep", masks.b_keep), fmt::arg("b_unit", masks.b_unit ? 1 : 0),
      fmt::arg("a_sym", masks.a_sym),
      fmt::arg("split", c.split_k), fmt::arg("pdl", wgmma_dependent_launch(c, s) ? 1 : 0),
      fmt::arg("producer", wgmma_register_budget(c).producer), fmt::arg("consumer", wgmma_register_budget(c).consumer),
      fmt::arg("smem", wgmma_shared_memory_bytes(c)),
      fmt::arg("permuted", wgmma_b_planes_permuted(c, key_spec) ? "#define B_PLANES_PERMUTED 1\n" : ""));
}

}  // namespace

WgmmaBigPlanes wgmma_big_planes_in_place(const KernelConfig& c, const ProblemKey& key) {
  if (c.family() != KernelFamily::Wgmma || c.precision != Precision::TF32x3) return {};
  const WgmmaParams& w = c.wgmma();
  // The caller's operands as the kernel reads them: op(A) K-major when A is stored M x K, op(B)^T
  // when B is stored N x K.
  const bool a = key.trans_a == Op::N && key.structure_a == Structure::General && key.vec_a == 4;
  const bool b = key.trans_b == Op::T && key.structure_b == Structure::General && key.vec_b == 4;
  return {!w.a_in_registers() && (w.swap_ab ? b : a), w.b == WgmmaB::Planes && (w.swap_ab ? a : b)};
}

bool wgmma_b_planes_permuted(const KernelConfig& c, const KernelSpecialization& key_spec) {
  if (c.family() != KernelFamily::Wgmma) return false;
  const WgmmaParams& w = c.wgmma();
  if (!w.a_in_registers() || w.b != WgmmaB::Planes) return false;
  const KernelSpecialization s = split_specialization(c, key_spec);
  const WgmmaOperandMasks masks = wgmma_operand_masks(c, s);
  if (masks.a_keep != 0 || masks.a_sym != 0 || raw_operand_mn_major(c, s.trans_a, s.trans_b)) return false;
  const bool b_symmetric = (w.swap_ab ? s.a_symmetric : s.b_symmetric) != Triangle::None;
  const int steps = is_x3(c) ? w.acc_block_k / 8 : c.block_k / 8;  // k8 steps a thread reads at once
  return converted_operand_transposed(c, s.trans_a, s.trans_b) && !b_symmetric && steps % 2 == 0;
}

bool wgmma_dependent_launch(const KernelConfig& c, const KernelSpecialization& s) {
  const WgmmaParams& w = c.wgmma();
  const bool prepass = !w.a_in_registers() || w.b == WgmmaB::Planes;
  return c.precision == Precision::TF32 && s.work_list && c.split_k == 1 && prepass &&
         w.schedule == TileSchedule::DataParallel && w.cluster == 1;
}

WgmmaOperandMasks wgmma_operand_masks(const KernelConfig& c, const KernelSpecialization& s) {
  const WgmmaParams& w = c.wgmma();
  // op(A) (M x K) keeps k <= row when lower; op(B) (K x N) read as rows of K, B'(n, k) =
  // op(B)(k, n), keeps k >= n when lower: its code is that of the transposed triangle.
  const int op_a_keep = triangle_code(s.a_triangle), op_b_keep = triangle_code(transposed(s.b_triangle));
  const bool a_unit = s.a_triangle != Triangle::None && s.a_unit;
  const bool b_unit = s.b_triangle != Triangle::None && s.b_unit;
  WgmmaOperandMasks m;
  // Swapped, the kernel's A' is op(B)^T and its B' is op(A).
  if (w.a_in_registers()) {
    m.a_keep = w.swap_ab ? op_b_keep : op_a_keep;
    m.a_unit = w.swap_ab ? b_unit : a_unit;
    // A symmetric operand is its own transpose: A' is its storage read as rows, whichever op.
    const Triangle sym = w.swap_ab ? s.b_symmetric : s.a_symmetric;
    // (Stages of 32 K: each stage's 32 x 32 sub-blocks lie on one side of the diagonal or on it;
    // a block of two stages takes each from its own side, tf32/a_fragments.cuh.)
    if (sym != Triangle::None && c.block_k == 32 && w.cluster == 1)
      m.a_sym = triangle_code(sym);
  }
  if (w.b_read_raw()) {
    m.b_keep = w.swap_ab ? op_a_keep : op_b_keep;
    m.b_unit = w.swap_ab ? a_unit : b_unit;
  }
  return m;
}

SetmaxnregBudget wgmma_register_budget(const KernelConfig& c) {
  if (c.wgmma().b_read_raw()) return {kWgmmaTransformProducerRegs, kWgmmaTransformConsumerRegs};
  return {kWgmmaProducerRegs, kWgmmaConsumerRegs};
}

int wgmma_group_stages(const KernelConfig& c) {
  const int acc = c.wgmma().acc_block_k;
  return is_x3(c) && acc > c.block_k ? acc / c.block_k : 1;
}

int stream_k_hand_over_units(int unit_k) { return (64 + unit_k - 1) / unit_k; }

StreamKTail stream_k_tail(int64_t tiles, int ctas, int64_t units, int unit_k) {
  constexpr int kMaxPieces = 16;  // MAX_PIECES of the template
  StreamKTail t{tiles, 0, 1};
  if (ctas <= 0 || units <= 0 || tiles % ctas == 0) return t;
  // The template's arithmetic, in 32-bit floats (correctly rounded division, no fused
  // operations on either side), so that both pick the same P.
  const int64_t tail = tiles % ctas;
  const float hand_over = static_cast<float>(stream_k_hand_over_units(unit_k));
  float best_time = static_cast<float>(units) * static_cast<float>((tail + ctas - 1) / ctas);
  for (int p = 2; p <= std::min<int64_t>(kMaxPieces, units); ++p) {
    const float time = static_cast<float>((tail * p + ctas - 1) / ctas) *
                       (static_cast<float>(units) / static_cast<float>(p) + hand_over);
    if (time < best_time) t.pieces = p, best_time = time;
  }
  if (t.pieces > 1) t.whole_tiles = tiles - tail, t.tail_tiles = tail;
  return t;
}

size_t wgmma_shared_memory_bytes(const KernelConfig& c) {
  const WgmmaParams& w = c.wgmma();
  const bool transform = w.b_read_raw();
  const bool raw_b_tile = w.b == WgmmaB::Transformed;  // rounded in place: TMA writes the big plane itself
  const size_t a_planes = w.a_in_registers() ? 1 : static_cast<size_t>(planes(c));  // RS: one raw A tile
  // transform_b: the raw B tile beside its planes.
  const size_t b_tiles = static_cast<size_t>(planes(c) + (raw_b_tile ? 1 : 0));
  const size_t stage = (a_planes * c.block_m + b_tiles * c.block_n) * c.block_k * sizeof(float);
  const size_t convert_tile = w.b == WgmmaB::Converted ? 64 * 68 * sizeof(float) + 16 : 0;  // CONVERT_SMEM_BYTES
  // full and empty barriers; transform_b adds ready barriers and a non-finite word (8 bytes each).
  const size_t barriers = (transform ? 32 : 16) * static_cast<size_t>(c.stages);
  return kSmemAlign + static_cast<size_t>(c.stages) * stage + barriers + convert_tile;
}

int wgmma_consumer_registers(const KernelConfig& c) {
  const WgmmaParams& w = c.wgmma();
  const int blocks = is_x3(c) ? w.acc_buffers + (w.sum_blocks > 0 ? 1 : 0) : (w.acc_block_k > 0 ? 1 : 0);
  // RS: the A fragments (A_FRAGMENT_REGS of the template).
  const int fragments = !w.a_in_registers() ? 0 : is_x3(c) ? 8 * (w.acc_block_k / 8) * w.acc_buffers : c.block_k;
  return (1 + blocks) * (c.block_n / 2) + fragments + 24;
}

std::vector<KernelConfig> wgmma_candidate_space(const ProblemKey& key, const StaticLimits& limits) {
  const Precision family = wgmma_precision(key, "candidate_space");
  const bool x3 = family == Precision::TF32x3;
  const bool long_k = key.k > kWgmmaLongK;
  const std::vector<int> widths = x3 ? std::vector<int>{96, 128, 192} : std::vector<int>{128, 192, 256};
  const int64_t max_bn = std::max<int64_t>(
      widths.front(), static_cast<int64_t>(std::bit_ceil(static_cast<uint64_t>(std::max<int64_t>(key.n, 1)))));
  std::vector<KernelConfig> out;
  auto add = [&](const KernelConfig& c) {
    if (statically_valid(c, limits, nullptr) && blocks_keep_contract(c, key)) out.push_back(c);
  };
  for (int bn : widths) {
    if (bn > max_bn) continue;
    if (x3) {
      for (int bk : {16, 32}) {
        const int top = max_stages(wgmma(family, bn, bk, 2, 32), limits);
        for (int stages = std::max(2, kMinKInFlight / bk); stages <= top; ++stages)
          for (int acc : {16, 32, 64})
            for (int buffers : {1, 2})
              for (int sum : {0, 16})
                if (sum == 0 || long_k) add(wgmma(family, bn, bk, stages, acc, buffers, sum));
      }
    } else {
      const int top = std::min(6, max_stages(wgmma(family, bn, 32, 2, 0), limits));
      for (int stages = 4; stages <= top; ++stages)
        for (int acc : {0, 256, 1024})
          if (acc == 0 || key.k > acc) add(wgmma(family, bn, 32, stages, acc));
    }
  }
  // A in registers (RS), for every plane-fed candidate with 32 K per stage: read in place
  // from whichever operand TMA can take there (16-byte aligned, ld % 4 == 0), unswapped (A)
  // or swapped (B); tf32x3 also with A's big part truncated instead of rounded. Each also with
  // as many stages as fit beside the one raw A tile (the plane-fed tile's depth leaves a quarter
  // of the shared memory unused: tf32x3 128 x 128 x 32 takes 4 stages so, the fastest measured
  // with blocks of 64).
  const size_t plane_fed = out.size();
  for (size_t i = 0; i < plane_fed; ++i) {
    if (out[i].block_k != 32) continue;
    for (bool swap : {false, true})
      for (bool round : {true, false}) {
        if (!round && (!x3 || swap)) continue;
        KernelConfig c = in_registers(out[i], round, swap);
        if (!wgmma_runs_in_place(c, key)) continue;
        add(c);
        c.stages = max_stages(c, limits);
        if (c.stages != out[i].stages && std::find(out.begin(), out.end(), c) == out.end()) add(c);
      }
  }
  // tf32 with A in registers: also with B's plane written by the kernel itself (no pre-pass).
  const size_t in_registers_end = out.size();
  for (size_t i = plane_fed; i < in_registers_end; ++i) {
    if (x3) break;
    add(converting(out[i]));
  }
  // Both operands MN-major (A.T @ B, or swapped A @ B): with A in registers, B also read raw and
  // rewritten K-major in shared memory by the transform warps (no pre-pass), as deep a ring as
  // fits beside the raw B tile.
  const size_t converting_end = out.size();
  for (size_t i = plane_fed; i < converting_end; ++i) {
    if (out[i].wgmma().b == WgmmaB::Converted) continue;
    KernelConfig c = transforming(out[i]);
    c.stages = std::min(c.stages, max_stages(c, limits));
    if (!wgmma_runs_in_place(c, key) || std::find(out.begin(), out.end(), c) != out.end()) continue;
    add(c);
  }
  // B stored K-major: with A in registers, B also read raw and rounded (or split) in place in
  // shared memory by the same warps (no pre-pass, no transpose), as deep a ring as fits.
  const size_t transforming_end = out.size();
  for (size_t i = plane_fed; i < transforming_end; ++i) {
    if (out[i].wgmma().b != WgmmaB::Planes) continue;
    KernelConfig c = rounding(out[i]);
    c.stages = max_stages(c, limits);
    if (!wgmma_runs_in_place(c, key) || std::find(out.begin(), out.end(), c) != out.end()) continue;
    add(c);
  }
  // Launch order: every candidate groups 8 tile rows; the widest tf32 tiles with A in
  // registers (the fastest measured) also try 4 and 16 (which panels of A and B the CTAs of one
  // wave share in L2).
  const size_t grouped = out.size();
  for (size_t i = 0; i < grouped; ++i) {
    if (x3 || !out[i].wgmma().a_in_registers() || out[i].block_n != 256) continue;
    for (int group : {4, 16}) {
      KernelConfig c = out[i];
      c.raster_group = group;
      add(c);
    }
  }
  // CTA pairs sharing A's tile (TMA multicast): every candidate with B from a pre-pass, on
  // problems of at least two tiles along N.
  const size_t unpaired = out.size();
  for (size_t i = 0; i < unpaired; ++i)
    if (out[i].wgmma().b == WgmmaB::Planes && key.n > out[i].block_n) add(paired(out[i]));
  // One consumer warpgroup (64-row tiles), for problems whose 128-row tiles fill less than two
  // waves of the largest Hopper parts: twice the tiles keep more SMs busy.
  const int64_t tiles_128 = (key.m + 127) / 128 * ((key.n + 127) / 128);
  if (tiles_128 < 2 * kStreamKWave) {
    const size_t two_consumers = out.size();
    for (size_t i = 0; i < two_consumers; ++i) {
      const WgmmaParams& w = out[i].wgmma();
      if (w.cluster == 1 && w.b != WgmmaB::Converted && out[i].raster_group == 8) add(single_consumer(out[i]));
    }
  }
  // Tile schedule: every candidate also with the stream-K tail, where its tiles leave the last
  // wave of the largest Hopper parts (132 SMs) partly empty.
  const size_t scheduled = out.size();
  for (size_t i = 0; i < scheduled; ++i) {
    if (out[i].output_tiles(key.m, key.n) % kStreamKWave != 0 && out[i].wgmma().cluster == 1) add(streaming(out[i]));
  }
  // K pieces, where a candidate's tiles need them (huge K, or too few tiles for half a wave):
  // its default split and twice that, and half (a quarter) of it where a piece then stays
  // within twice (four times) the piece length (fewer partial products to write and add;
  // largeK tf32 on 128 x 256 tiles: 66 pieces of 7944, one wave, 0.287 ms against 0.299 with
  // 132 in two; largeK tf32x3 on 128 x 128 tiles: 33 pieces, still one wave, 0.602 against
  // 0.604 with 66, error 1.08e-7 against 9.8e-8, tolerance 3.6e-7; H200). Stream-K
  // tails and CTA pairs stay only where K fits one piece (they split nothing). Up to
  // 2 x kWgmmaLongK the whole-K candidate stays too: one pass of one-level sums over K = 8192
  // kept the contract on an H200 (transA) and is faster than two pieces; the tuner's
  // verification decides.
  std::vector<KernelConfig> split;
  for (KernelConfig c : out) {
    const int pieces = wgmma_default_split_k(key, c);
    const bool one_piece = key.k <= wgmma_piece_k(c);
    if (pieces == 1 || (one_piece && (c.wgmma().schedule == TileSchedule::StreamK || c.wgmma().cluster != 1))) {
      split.push_back(c);
      continue;
    }
    if (key.k <= 2 * kWgmmaLongK) split.push_back(c);
    if (c.wgmma().schedule == TileSchedule::StreamK || c.wgmma().cluster != 1) continue;
    std::vector<int> splits = {pieces, 2 * pieces};
    for (int fewer : {2, 4})  // pieces / fewer, each within `fewer` times the piece length
      if (const int p = pieces / fewer; p >= 2 && (key.k + p - 1) / p <= fewer * wgmma_piece_k(c)) splits.push_back(p);
    for (int p : splits) {
      c.split_k = p;
      if (p >= 2 && p <= kMaxSplitK && split_workspace_fits(key, p) &&
          statically_valid(c, limits, nullptr))
        split.push_back(c);
    }
  }
  out = std::move(split);
  std::erase_if(out, [&](const KernelConfig& c) { return !wgmma_walks_work_list(c, key); });
  sort_by_name(out);
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

bool wgmma_walks_work_list(const KernelConfig& c, const ProblemKey& key) {
  if (!specialization_of(key).work_list) return true;
  const WgmmaParams& w = c.wgmma();
  return w.schedule == TileSchedule::DataParallel && w.cluster == 1;
}

std::vector<KernelConfig> wgmma_representative_sample(const ProblemKey& key) {
  const Precision f = wgmma_precision(key, "representative_sample");
  std::vector<KernelConfig> sample;
  if (f == Precision::TF32)
    sample = {
        wgmma(f, 256, 32, 4, 0),     // the default: one product, tensor cores accumulate all of K
        wgmma(f, 128, 32, 6, 0),     // the default for N <= 128
        wgmma(f, 128, 32, 6, 256),   // the long-K default: FP32-added blocks of 256
        wgmma(f, 192, 32, 5, 1024),  // blocks of 1024 (32 stages each), 5 stages, 201 KiB
        in_registers(wgmma(f, 256, 32, 4, 0), true, false),     // A in registers, the widest tile
        in_registers(wgmma(f, 128, 32, 6, 256), true, true),    // swapped, blocked
        converting(in_registers(wgmma(f, 256, 32, 4, 0), true, false)),  // B's plane written in the kernel
        converting(in_registers(wgmma(f, 128, 32, 5, 0), true, true)),   // the same, swapped, narrower
        streaming(in_registers(wgmma(f, 256, 32, 4, 0), true, false)),   // the stream-K tail
        streaming(wgmma(f, 128, 32, 6, 256)),                            // the same, plane-fed, blocked
        paired(in_registers(wgmma(f, 256, 32, 4, 0), true, false)),      // a CTA pair sharing A (multicast)
        paired(in_registers(wgmma(f, 128, 32, 6, 0), true, true)),       // the same, swapped
        single_consumer(in_registers(wgmma(f, 256, 32, 5, 0), true, false)),  // one consumer warpgroup, 64 x 256
        transforming(in_registers(wgmma(f, 192, 32, 3, 0), true, false)),     // B made K-major in shared memory
        transforming(in_registers(wgmma(f, 128, 32, 4, 256), true, true)),    // the same, swapped, blocked
        streaming(transforming(in_registers(wgmma(f, 256, 32, 2, 0), true, false))),  // the same, 2 stages, stream-K
        rounding(in_registers(wgmma(f, 256, 32, 4, 0), true, true)),  // K-major B rounded in place, swapped
    };
  else
    sample = {
        wgmma(f, 128, 32, 3, 32, 1),     // the default
        wgmma(f, 128, 32, 3, 32, 2),     // double-buffered blocks
        wgmma(f, 96, 32, 3, 32, 1, 16),  // the long-K default: two-level running sum
        wgmma(f, 96, 32, 3, 32, 1),      // the default for N <= 96
        wgmma(f, 192, 32, 2, 32, 1),     // the widest tile, 2 stages
        wgmma(f, 128, 16, 6, 32, 2),     // blocks spanning two stages (GROUP_STAGES = 2)
        wgmma(f, 96, 32, 4, 16, 1),      // two blocks per stage; 231 KiB, the most shared memory
        in_registers(wgmma(f, 128, 32, 4, 32, 1), true, false),   // A in registers
        in_registers(wgmma(f, 128, 32, 4, 32, 1), false, false),  // truncated big part
        in_registers(wgmma(f, 128, 32, 4, 64, 1), false, false),  // blocks of 64 over two stages (K >= 2048)
        in_registers(wgmma(f, 128, 32, 4, 64, 1), true, true),    // the same, swapped, rounded
        in_registers(wgmma(f, 96, 32, 4, 16, 1), true, true),     // swapped, two blocks per stage
        streaming(wgmma(f, 128, 16, 6, 32, 2)),                   // the stream-K tail, units of two stages
        streaming(in_registers(wgmma(f, 128, 32, 4, 32, 1), true, false)),  // the same, A in registers
        paired(wgmma(f, 128, 32, 3, 32, 1)),                                // a CTA pair sharing A (multicast)
        paired(in_registers(wgmma(f, 128, 32, 4, 32, 1), false, false)),    // the same, A in registers, truncated
        paired(wgmma(f, 96, 16, 6, 32, 2)),                   // the same, 16 K per stage (64-byte swizzle)
        single_consumer(wgmma(f, 128, 32, 4, 32, 1)),         // one consumer warpgroup, 64 x 128
        transforming(in_registers(wgmma(f, 128, 32, 3, 32, 1), true, false)),  // B split into planes in shared memory
        transforming(in_registers(wgmma(f, 96, 32, 3, 16, 1), true, true)),    // the same, swapped, two blocks per stage
        single_consumer(transforming(in_registers(wgmma(f, 128, 32, 3, 32, 1), false, false))),  // 64 x 128, truncated
        rounding(in_registers(wgmma(f, 128, 32, 4, 32, 1), true, true)),  // K-major B split in place, swapped
    };
  // K pieces (SPLIT_K > 1): plane-fed, and A in registers with B transformed, as huge K takes them.
  for (KernelConfig c : {wgmma(f, 128, 32, f == Precision::TF32 ? 6 : 3, f == Precision::TF32 ? 0 : 32),
                         transforming(in_registers(wgmma(f, 128, 32, 3, f == Precision::TF32 ? 0 : 32), true, false))}) {
    c.split_k = 4;
    sample.push_back(c);
  }
  sample.push_back(wgmma_default_config(key));  // with its pieces, where the key needs them
  std::erase_if(sample, [&](const KernelConfig& c) {
    return !wgmma_runs_in_place(c, key) || !blocks_keep_contract(c, key);
  });
  // A structured product walks a work list of whole tiles: no stream-K tail, no CTA pairs.
  for (KernelConfig& c : sample) {
    if (wgmma_walks_work_list(c, key)) continue;
    c.wgmma().schedule = TileSchedule::DataParallel;
    c.wgmma().cluster = 1;
  }
  std::vector<KernelConfig> unique;
  for (const KernelConfig& c : sample)
    if (std::find(unique.begin(), unique.end(), c) == unique.end()) unique.push_back(c);
  sample = std::move(unique);
  return sample;
}

bool wgmma_blocks_of_64_allowed(const ProblemKey& key) {
  return key.k >= kWgmmaBlocksOf64MinK && key.m * key.n >= kWgmmaBlocksOf64MinOutput;
}

bool wgmma_runs_in_place(const KernelConfig& c, const ProblemKey& key) {
  const WgmmaParams& w = c.wgmma();
  if (!w.a_in_registers()) return true;
  const bool a_ok = (w.swap_ab ? key.vec_b : key.vec_a) == 4;
  const bool b_vec = (w.swap_ab ? key.vec_a : key.vec_b) == 4;
  const bool b_ok = w.b == WgmmaB::Transformed ? b_vec && transformed_operand_mn_major(c, key.trans_a, key.trans_b)
                    : w.b == WgmmaB::Rounded   ? b_vec && !transformed_operand_mn_major(c, key.trans_a, key.trans_b)
                                               : true;
  return a_ok && b_ok;
}

long long wgmma_piece_k(const KernelConfig& tile) {
  const WgmmaParams& w = tile.wgmma();
  const bool long_sums = is_x3(tile) ? w.sum_blocks > 0 : w.acc_block_k > 0;
  return long_sums ? 4 * kWgmmaLongK : kWgmmaLongK;
}

int wgmma_default_split_k(const ProblemKey& key, const KernelConfig& tile) {
  auto ceil_div = [](int64_t a, int64_t b) { return (a + b - 1) / b; };
  const bool swap = tile.wgmma().swap_ab;
  const int64_t rows = swap ? key.n : key.m, cols = swap ? key.m : key.n;
  const int64_t tiles = std::max<int64_t>(1, tile.output_tiles(rows, cols));
  const int64_t fill = tiles * 2 > kStreamKWave ? 1 : kStreamKWave / tiles;  // pieces per tile for one wave
  const int64_t accurate = std::max<int64_t>(1, ceil_div(key.k, wgmma_piece_k(tile)));
  const int64_t worth = std::max<int64_t>(1, key.k / kWgmmaMinPieceK);
  int64_t split = std::max(accurate, std::min(fill * ceil_div(accurate, fill), worth));
  split = std::min<int64_t>(split, kMaxSplitK);
  while (split > 1 && !split_workspace_fits(key, split)) --split;
  return static_cast<int>(split);
}

bool wgmma_takes_k(const ProblemKey& key) {
  const int64_t pieces = (key.k + kWgmmaLongK - 1) / kWgmmaLongK;
  return key.k <= 2 * kWgmmaLongK ||
         (pieces <= kMaxSplitK && split_workspace_fits(key, pieces));
}

namespace {

// The untuned kernel of a split product: read in place wherever TMA can (no pre-pass over a
// huge operand), in this order: A in registers with B transformed or rounded in shared memory
// (tf32 rounded first, tf32x3 transformed first), unswapped then swapped; for tf32 B's plane
// converted in the kernel; A in registers with B planes; all planes. Then cut into the pieces
// the problem needs.
KernelConfig split_default(const ProblemKey& key, const KernelConfig& tile) {
  std::vector<KernelConfig> transformed, rounded;
  for (bool swap : {false, true}) {
    KernelConfig t = transforming(in_registers(tile, true, swap));
    t.stages = std::min(t.stages, max_stages(t, StaticLimits{}));
    transformed.push_back(t);
    KernelConfig r = rounding(in_registers(tile, true, swap));
    r.stages = max_stages(r, StaticLimits{});
    rounded.push_back(r);
  }
  // tf32 streams: B rounded in place (a deeper ring, no transpose) first; H200, largeK: 0.43 ms
  // against 0.62 ms transformed. tf32x3: transformed first (0.76 ms, rounded 0.8+).
  std::vector<KernelConfig> order = is_x3(tile) ? transformed : rounded;
  for (const KernelConfig& c : is_x3(tile) ? rounded : transformed) order.push_back(c);
  if (!is_x3(tile))
    for (bool swap : {false, true}) order.push_back(converting(in_registers(tile, true, swap)));
  for (bool swap : {false, true}) order.push_back(in_registers(tile, true, swap));
  order.push_back(tile);
  for (KernelConfig c : order) {
    if (!statically_valid(c, StaticLimits{}, nullptr) || !wgmma_runs_in_place(c, key)) continue;
    c.split_k = wgmma_default_split_k(key, c);
    return c;
  }
  return tile;  // unreachable: the plane-fed tile runs anything
}

// tf32 mode's tile with its operands read in place where the layout allows: a K-major operand
// as the kernel's B, straight into shared memory (unswapped: B stored N x K; swapped: A stored
// M x K), else one operand in registers, else the planes. The TMA copies round them (tf32 mode
// rounds nothing in the kernel), so in place costs no more than planes and saves the pre-pass:
// H200, 4096^3 NN, 0.334 ms swapped in place against 0.364 with B's pre-pass (session 35).
KernelConfig tf32_in_place(const ProblemKey& key, const KernelConfig& tile) {
  for (bool raw_b : {true, false})
    for (bool swap : {false, true}) {
      KernelConfig c = in_registers(tile, true, swap);
      if (raw_b) {
        c = rounding(c);
        c.stages = max_stages(c, StaticLimits{});
      }
      if (statically_valid(c, StaticLimits{}, nullptr) && wgmma_runs_in_place(c, key)) return c;
    }
  return tile;
}

// tf32x3 where blocks of 64 keep the contract (wgmma_blocks_of_64_allowed): op(A) stored K-major
// (or symmetric) and read in place in registers, its big part truncated, FP32-added blocks of 64
// spanning two stages of 32, four stages: no pre-pass for A, and wgmma reads only B from shared
// memory (H200, session 39, exhaustive tunes: symmetric 4096^3 0.977 ms against 1.029 for the
// 128 x 128 x 32 planes with blocks of 32; lowertri 0.245 against 0.259; 8192^3 7.48 ms against
// 8.1). Both operands of a general TN product are MN-major, whichever goes to registers (read
// MN-major, rounded, tf32/a_fragments.cuh), so the bigger one does and the pre-pass splits the
// smaller: swapped when M < N (H200, session 43, tuner medians: TN 2048 x 4096 x 4096 swapped
// 0.532 ms, unswapped 0.553, planes 0.555; 4096 x 2048 x 4096 unswapped 0.530, planes 0.557,
// swapped 0.558; transA, K 8192, 1.028 swapped against 1.084 for the planes). Anything else: the planes.
KernelConfig tf32x3_in_place(const ProblemKey& key, const KernelConfig& tile) {
  if (tile.block_n != 128) return tile;
  const KernelConfig blocks_of_64 = wgmma(Precision::TF32x3, 128, 32, 4, 64, 1);
  const bool a_k_major = key.trans_a == Op::N || is_symmetric(key.structure_a);
  const bool general_tn = key.trans_a == Op::T && key.trans_b == Op::N && key.structure_a == Structure::General &&
                          key.structure_b == Structure::General;
  if (!a_k_major && !general_tn) return tile;
  const KernelConfig c = a_k_major ? in_registers(blocks_of_64, false, false)
                                   : in_registers(blocks_of_64, true, key.m < key.n);
  if (blocks_keep_contract(c, key) && statically_valid(c, StaticLimits{}, nullptr) && wgmma_runs_in_place(c, key))
    return c;
  return tile;
}

}  // namespace

KernelConfig wgmma_default_config(const ProblemKey& key) {
  const Precision f = wgmma_precision(key, "default_config");
  const bool long_k = key.k > kWgmmaLongK;
  // 128x256 is the fastest measured for tf32, 128x128x32 with one accumulator for tf32x3 (A in
  // registers with blocks of 64 where it can be read in place, tf32x3_in_place; else the planes,
  // 3 stages, blocks of 32).
  const KernelConfig tile = f == Precision::TF32 ? (key.n > 128 ? wgmma(f, 256, 32, 4, 0) : wgmma(f, 128, 32, 6, 0))
                                                 : wgmma(f, key.n <= 96 ? 96 : 128, 32, 3, 32, 1);
  // Huge K, or too few tiles to fill half a wave: K pieces.
  const int64_t tiles = tile.output_tiles(key.m, key.n);
  if (key.k > 2 * kWgmmaLongK || (tiles * 2 <= kStreamKWave && wgmma_default_split_k(key, tile) > 1)) {
    const KernelConfig split = split_default(key, tile);
    if (split.split_k > 1 && (key.k + split.split_k - 1) / split.split_k <= wgmma_piece_k(split)) return split;
  }
  if (!long_k) return f == Precision::TF32 ? tf32_in_place(key, tile) : tf32x3_in_place(key, tile);
  // Long K in one piece: tf32 128x128 with FP32-added blocks of 256 (passed the H200
  // correctness runs where 128x256 failed at K = 4100); tf32x3 the two-level sum, which spills
  // at 128 columns: 128x96.
  if (f == Precision::TF32) return tf32_in_place(key, wgmma(f, 128, 32, 6, 256));
  return wgmma(f, 96, 32, 3, 32, 1, 16);
}

const KernelFamilyRules& wgmma_rules() noexcept {
  static const WgmmaRules rules;
  return rules;
}

}  // namespace jitgemm
