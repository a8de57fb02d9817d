// The SIMT fp32 family (fp32/simt_gemm.cu): FP32 FMA on CUDA cores. Its static rules mirror
// the template's static_asserts; its candidate space, sample and default heuristic; its name,
// prologue, JSON fields and launch geometry.
#include "codegen/simt_family.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>

#include "codegen/family_checks.hpp"
#include "codegen/name_reader.hpp"
#include "codegen/split_k_policy.hpp"
#include "codegen/support_templates.hpp"
#include "problem/operand_structure.hpp"

namespace jitgemm {
namespace {

// Row stride (floats) of a K-outer shared tile: the row plus a pad to 4 (mod 32); the same
// formula as smem_stride() in kernel_templates/fp32/simt_gemm.cu.
int smem_stride(int block_x) { return block_x + (36 - block_x % 32) % 32; }

constexpr int kMaxFinishedSlices = 8;  // FINISH_MAX_SLICES of common/split_k_finish.cuh
constexpr int kRegisterAllowance = 40;        // addresses, indices, loop state (see estimated_registers)
constexpr int64_t kDefaultMinCtas = 2 * kLargestHopperSms;  // two CTAs on each SM of an H100 SXM / H200

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

KernelConfig simt(int bm, int bn, int bk, int wm, int wn, int tm, int tn, int stages, bool early_barrier = false) {
  KernelConfig c = make_config(KernelFamily::Simt, Precision::FP32);
  c.block_m = bm, c.block_n = bn, c.block_k = bk;
  c.simt() = SimtParams{wm, wn, tm, tn, early_barrier};
  c.stages = stages;
  return c;
}

// The template's static_asserts, in its order.
std::string shape_problem(const KernelConfig& c) {
  const SimtParams& s = c.simt();
  if (c.block_m < 4 || c.block_n < 4 || c.block_k < 8 || s.warps_m < 1 || s.warps_n < 1 || s.thread_m < 4 ||
      s.thread_n < 4 || c.stages < 2 || c.raster_group < 1)
    return "a size is below its minimum (block 4, block_k 8, warps 1, thread tile 4, stages 2, group 1)";
  if (std::string p = split_k_problem(c); !p.empty()) return p;
  if (c.block_k % 8 != 0) return fmt::format("block_k={} is not a multiple of 8", c.block_k);
  if (c.block_m % 4 != 0 || c.block_n % 4 != 0)
    return fmt::format("block {}x{} is not made of float4 columns", c.block_m, c.block_n);
  if (s.thread_m % 4 != 0 || s.thread_n % 4 != 0)
    return fmt::format("thread tile {}x{} is not made of float4 fragments", s.thread_m, s.thread_n);
  if (s.warps_m * s.warps_n * 32 > 1024) return fmt::format("{} threads exceed 1024", s.warps_m * s.warps_n * 32);
  if (c.block_m % s.warps_m != 0 || c.block_n % s.warps_n != 0)
    return fmt::format("warps {}x{} do not tile block {}x{}", s.warps_m, s.warps_n, c.block_m, c.block_n);
  const int warp_m = c.block_m / s.warps_m, warp_n = c.block_n / s.warps_n;
  if (warp_m % s.thread_m != 0 || warp_n % s.thread_n != 0 || (warp_m / s.thread_m) * (warp_n / s.thread_n) != 32)
    return fmt::format("thread tile {}x{} does not give 32 lanes on warp tile {}x{}", s.thread_m, s.thread_n, warp_m,
                       warp_n);
  return {};
}

constexpr std::array<ConfigField, 5> kFields{{
    {"warps_m", ConfigField::Kind::Integer, 1, 16, {}, [](const KernelConfig& c) { return c.simt().warps_m; },
     [](KernelConfig& c, int v) { c.simt().warps_m = v; }},
    {"warps_n", ConfigField::Kind::Integer, 1, 16, {}, [](const KernelConfig& c) { return c.simt().warps_n; },
     [](KernelConfig& c, int v) { c.simt().warps_n = v; }},
    {"thread_m", ConfigField::Kind::Integer, 1, 16, {}, [](const KernelConfig& c) { return c.simt().thread_m; },
     [](KernelConfig& c, int v) { c.simt().thread_m = v; }},
    {"thread_n", ConfigField::Kind::Integer, 1, 16, {}, [](const KernelConfig& c) { return c.simt().thread_n; },
     [](KernelConfig& c, int v) { c.simt().thread_n = v; }},
    // Added with the choice (records before it have the barrier at the last row).
    {"early_barrier", ConfigField::Kind::Boolean, 0, 1, {},
     [](const KernelConfig& c) { return c.simt().early_barrier ? 1 : 0; },
     [](KernelConfig& c, int v) { c.simt().early_barrier = v != 0; }, 1, 0},
}};

class SimtRules final : public SplitKFamilyRules {
 public:
  KernelFamily family() const noexcept override { return KernelFamily::Simt; }
  std::string_view template_path() const noexcept override { return "fp32/simt_gemm.cu"; }
  std::span<const std::string_view> support_template_paths() const noexcept override {
    static constexpr std::string_view kPaths[] = {kSplitOperandTemplate, kSplitKReduceTemplate, kEdgeStripsTemplate};
    return kPaths;
  }
  bool computes(Precision p) const noexcept override { return p == Precision::FP32; }

  std::string name_suffix(const KernelConfig& c) const override {
    const SimtParams& s = c.simt();
    return fmt::format("_w{}x{}_t{}x{}_s{}_k{}_g{}{}", s.warps_m, s.warps_n, s.thread_m, s.thread_n, c.stages,
                       c.split_k, c.raster_group, s.early_barrier ? "_eb" : "");
  }
  bool parse_name_suffix(std::string_view& rest, KernelConfig& c) const override {
    using namespace name_reader;
    SimtParams& s = c.simt();
    if (!(take_field(rest, "_w", s.warps_m) && take_field(rest, "x", s.warps_n) && take_field(rest, "_t", s.thread_m) &&
          take_field(rest, "x", s.thread_n) && take_field(rest, "_s", c.stages) && take_field(rest, "_k", c.split_k) &&
          take_field(rest, "_g", c.raster_group)))
      return false;
    s.early_barrier = take(rest, "_eb");
    return true;
  }
  std::string_view name_form() const noexcept override {
    return "simt_fp32_<bm>x<bn>x<bk>_w<wm>x<wn>_t<tm>x<tn>_s<stages>_k<split>_g<group>[_eb], e.g. "
           "simt_fp32_128x128x8_w2x4_t8x8_s3_k1_g8";
  }

  std::string invalid_reason(const KernelConfig& c, const StaticLimits& limits) const override {
    if (!computes(c.precision)) return fmt::format("simt computes fp32 only, not {}", to_string(c.precision));
    if (std::string p = shape_problem(c); !p.empty()) return p;
    return resource_problem(*this, c, limits);
  }
  int threads(const KernelConfig& c) const override { return c.simt().warps_m * c.simt().warps_n * 32; }
  // STAGES x (As[BLOCK_K][BLOCK_M + pad] + Bs[BLOCK_K][BLOCK_N + pad]) floats, the pad making
  // each row stride 4 (mod 32) floats. The template checks it agrees.
  size_t shared_memory_bytes(const KernelConfig& c) const override {
    const size_t floats_per_stage = static_cast<size_t>(c.block_k) * (smem_stride(c.block_m) + smem_stride(c.block_n));
    return static_cast<size_t>(c.stages) * floats_per_stage * sizeof(float);
  }
  // Accumulators (thread_m x thread_n), two sets of A/B fragments (the next k row is read
  // while this one is computed, across the slice boundary too), and 40 for addresses, indices
  // and the loop. Tiles of at most 64 accumulators are held to 128 (the template's
  // MIN_CTAS_PER_SM: two 256-thread or four 128-thread CTAs per SM, which hide each other's
  // barriers; on an H200 that made the shipped fp32 configs 1-3% faster, NT 4096^3 5%, and
  // the re-tuned NT 9%). Measured with NVRTC 13.0 for sm_90a: 8x8 tiles 123..128 under the cap
  // (a few configs spill and are dropped), 8x16 199..255 (estimate 216).
  int estimated_registers(const KernelConfig& c) const override {
    const SimtParams& s = c.simt();
    const int estimate = s.thread_m * s.thread_n + 2 * (s.thread_m + s.thread_n) + kRegisterAllowance;
    return s.thread_m * s.thread_n <= 64 && threads(c) <= 512 ? std::min(estimate, 128) : estimate;
  }

  // Configs of 2..8 slices compile the split-K finish in (SPLIT_K_FINISH, "_fin"): one kernel
  // serves each of those splits, another every other split.
  std::string kernel_name(const KernelConfig& c, const KernelSpecialization& s) const override {
    return SplitKFamilyRules::kernel_name(c, simt_view(s)) + (simt_can_finish_split_k(c) ? "_fin" : "") +
           (s.edge_strips ? "_es" : "");
  }
  std::string prologue(const KernelConfig& config, const KernelSpecialization& key_spec,
                       std::string_view kernel_name) const override {
    const KernelConfig c = compiled_config(config);
    const KernelSpecialization s = simt_view(key_spec);
    const SimtParams& p = c.simt();
    return fmt::format(
        "// Generated by jitgemm codegen: {config} for {spec}. Constants only; the kernel is the template below.\n"
        "#define KERNEL_NAME {name}\n"
        "constexpr int BLOCK_M = {bm}, BLOCK_N = {bn}, BLOCK_K = {bk};\n"
        "constexpr int WARPS_M = {wm}, WARPS_N = {wn};\n"
        "constexpr int THREAD_M = {tm}, THREAD_N = {tn};\n"
        "constexpr int STAGES = {stages}, SPLIT_K = {split}, RASTER_GROUP = {group};\n"
        "constexpr int TRANS_A = {ta}, TRANS_B = {tb};\n"
        "constexpr int VEC_A = {va}, VEC_B = {vb}, VEC_C = {vc};\n"
        "{structure}"
        "constexpr int SPLIT_K_FINISH = {finish};\n"
        "constexpr int EARLY_BARRIER = {early};\n"
        "constexpr int EDGE_STRIPS = {strips};\n"
        "constexpr int SMEM_BYTES = {smem};\n",
        fmt::arg("config", c.name()), fmt::arg("spec", s.suffix()), fmt::arg("name", kernel_name),
        fmt::arg("bm", c.block_m), fmt::arg("bn", c.block_n), fmt::arg("bk", c.block_k), fmt::arg("wm", p.warps_m),
        fmt::arg("wn", p.warps_n), fmt::arg("tm", p.thread_m), fmt::arg("tn", p.thread_n),
        fmt::arg("stages", c.stages), fmt::arg("split", c.split_k), fmt::arg("group", c.raster_group),
        fmt::arg("ta", s.trans_a == Op::T ? 1 : 0), fmt::arg("tb", s.trans_b == Op::T ? 1 : 0),
        fmt::arg("va", s.vec_a), fmt::arg("vb", s.vec_b), fmt::arg("vc", s.vec_c),
        fmt::arg("structure", structure_constants(s)), fmt::arg("finish", simt_can_finish_split_k(config) ? 1 : 0),
        fmt::arg("early", p.early_barrier ? 1 : 0), fmt::arg("strips", s.edge_strips ? 1 : 0),
        fmt::arg("smem", shared_memory_bytes(c)));
  }

  std::vector<KernelConfig> candidates(const ProblemKey& key, const StaticLimits& limits) const override {
    return simt_candidate_space(key, limits);
  }
  std::vector<KernelConfig> sample(const ProblemKey&) const override {
    return {
        simt(64, 64, 8, 2, 2, 4, 8, 3),      // the small default: one float4 fragment along M
        simt(64, 64, 8, 2, 4, 4, 4, 5),      // 4x4 threads; 256 threads for 128 float4 copies; 5 stages
        simt(64, 128, 16, 1, 4, 8, 8, 3),    // the mid-size default
        simt(64, 256, 16, 1, 8, 8, 8, 3),    // the NN / TN default
        simt(128, 128, 16, 4, 2, 8, 8, 3),   // the NT default
        simt(128, 64, 16, 4, 1, 8, 8, 3),    // the TT default
        simt(128, 256, 8, 2, 4, 8, 16, 4, true),  // 16-wide thread tiles, the slice barrier a row
                                                  // early: the long-K default
        simt(128, 256, 32, 2, 4, 16, 8, 2),  // 16-high thread tiles, block_k 32, 2 stages, 100 KiB smem
    };
  }
  KernelConfig default_config(const ProblemKey& key) const override { return simt_default_config(key); }
  // The barrier placement moves a config by a few percent either way (the template's K loop),
  // so a prior's twin is worth its timing.
  KernelConfig sibling_form(KernelConfig c) const override {
    c = SplitKFamilyRules::sibling_form(c);
    c.simt().early_barrier = false;
    return c;
  }

  std::span<const ConfigField> fields() const noexcept override { return kFields; }
};

}  // namespace

// The specialization the kernel is compiled for. A symmetric operand reaches it as a dense copy
// (exec/launch_plan.cpp: 16-byte aligned, its leading dimension a multiple of 4), which is its
// own transpose: the kernel reads it the way its loader copies in 16-byte units, M- or
// N-contiguous (A as if stored K x M, B as stored K x N), whatever op and alignment the caller
// gave; a general operand of a large product may reach it as a transposed copy, read the same
// way (simt_operand_copies). On the H200, 4096^3 with both operands symmetric (A read as
// stored, NN, until then) went 2.868 -> 2.761 ms on the same record and 2.734 re-tuned. (A
// kernel that read the stored triangle in place, one map on either side of the diagonal, was
// slower still: the SIMT kernel is issue-bound and B's transposing 4-byte copies cost 7%.)
KernelSpecialization simt_view(KernelSpecialization s) {
  if (s.a_symmetric != Triangle::None || s.a_aligned_copy) s.trans_a = Op::T, s.vec_a = 4;
  if (s.b_symmetric != Triangle::None || s.b_aligned_copy) s.trans_b = Op::N, s.vec_b = 4;
  return s;
}

bool simt_can_finish_split_k(const KernelConfig& config) noexcept {
  return config.family() == KernelFamily::Simt && config.split_k >= 2 && config.split_k <= kMaxFinishedSlices;
}

bool simt_finishes_split_k(const KernelConfig& config, int64_t tiles, int sm_count) noexcept {
  return simt_can_finish_split_k(config) && tiles >= sm_count;
}

std::vector<KernelConfig> simt_candidate_space(const ProblemKey& key, const StaticLimits& limits) {
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
              for (int stages = kMinStages(bk); stages <= kMaxStages(bk); ++stages)
                for (bool early_barrier : {false, true}) {
                  const KernelConfig c = simt(bm, bn, bk, wm, wn, tm, tn, stages, early_barrier);
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

// The untuned default: the largest of three tiles that gives kDefaultMinCtas CTAs by its tiles
// alone; where none does (a small output), the largest whose tiles times its K split do (a
// small output with a long K: largeK, 1000^3); else 64x64. On the H200 (re-tuned histories of
// this template) that took largeK from 64x64 k256 (1.90 ms) to 64x256 k256 (1.44-1.47 ms) and
// 1000^3 from 0.074 to 0.066 ms, and left 1537^3 and 512^3 as they were. A small output with
// a long K and B read K x N takes the largeK record's tile first (below: largeK 2 tiles x 66
// slices, one wave of one CTA per SM).
KernelConfig simt_default_config(const ProblemKey& key) {
  const auto tiles = [&](const KernelConfig& c) { return c.output_tiles(key.m, key.n); };
  const auto covers = [&](const KernelConfig& c) { return key.m >= c.block_m && key.n >= c.block_n; };
  const KernelSpecialization view = simt_view(specialization_of(key));  // the layout the kernel reads
  const bool b_transposed = view.trans_b == Op::T;
  const KernelConfig layout = b_transposed ? (view.trans_a == Op::N ? simt(128, 128, 16, 4, 2, 8, 8, 3)   // NT
                                                                   : simt(128, 64, 16, 4, 1, 8, 8, 3))   // TT
                                           : simt(64, 256, 16, 1, 8, 8, 8, 3);                           // NN, TN
  const KernelConfig mid = simt(64, 128, 16, 1, 4, 8, 8, 3);
  for (const KernelConfig& c : {layout, mid})
    if (covers(c) && tiles(c) >= kDefaultMinCtas) return with_default_split_k(c, key);
  // A small output with a long K, B read K x N: the largeK record's tile (one 256-thread CTA per
  // SM at 8 x 16 per thread, the slice barrier a row early), split so that its CTAs make one
  // wave, each over kLongKRange to kLongKMaxRange of K. On the H100, largeK: 66 slices 1.297 ms
  // (cuBLAS 1.302), the whole-wave rule's 198 slices (3 waves) about 1.38. Only for outputs of
  // at most kLongKMaxOutput values (one or two tiles), where its long float32 sums were checked
  // against the contract (largeK, and 256 x 256 at K = 2^16 .. 2^20: HugeK); on the H200
  // 1000 x 1537 x 4096 TN (56 tiles, 2 slices of 2048) came out at 4.26e-7 against cuBLAS's
  // 1.92e-7, over the contract's 2x (GemmCorrectness); the rule below keeps its slices short.
  constexpr int64_t kLongKRange = 1024, kLongKMaxRange = 16384, kLongKMaxOutput = 256 * 256;
  if (KernelConfig long_k = simt(128, 256, 8, 2, 4, 8, 16, 4, true);
      !b_transposed && covers(long_k) && key.m * key.n <= kLongKMaxOutput) {
    const int64_t one_wave = kLargestHopperSms / tiles(long_k);
    const int64_t range = (key.k + one_wave - 1) / one_wave;  // K of the longest slice
    if (one_wave >= 2 && one_wave <= kMaxSplitK && key.k / one_wave >= kLongKRange && range <= kLongKMaxRange &&
        split_workspace_fits(key, one_wave)) {
      long_k.split_k = static_cast<int>(one_wave);
      return long_k;
    }
  }
  for (const KernelConfig& c : {layout, mid})
    if (const KernelConfig split = with_default_split_k(c, key); covers(c) && tiles(c) * split.split_k >= kDefaultMinCtas)
      return split;
  return with_default_split_k(simt(64, 64, 8, 2, 2, 4, 8, 3), key);
}

// The kernel reads an operand stored with K contiguous (A as N, B as T) through its transposing
// loader, one 4-byte copy per element; from a transposed copy it takes 16-byte copies. On the
// H200, 4096^3 fp32 as tuned: TN 2.677 ms, NN 2.788, TT 2.801, NT 2.934; a copy of a 4096^2
// operand costs about 30 us (8 bytes an element at ~4 TB/s), 47.6 / N of an FMA-bound product
// for A (N its columns), 47.6 / M for B: under 1.2% from 4096 on, where the copy pays. K of
// 1024 and more keeps the product FMA-bound. An operand whose rows are not 16-byte aligned goes
// through 4-byte copies whatever its layout, each with its own address and bounds check: on the
// H100, the same configs, 1537^3 NN unaligned 0.230 ms, with padded leading dimensions 0.211, and
// A read as K x M 0.203; 3001 x 2999 x 1025 TN unaligned 0.462, padded 0.410 (cuBLAS 0.434). With
// the copies (transposed or not, 16-byte aligned rows; C stays unaligned) the bench rows measured
// 3001 TN 0.461 -> 0.443 ms, but 1537^3 0.230 -> 0.234 (two copies of 19 MB, 5% of the product,
// for less than the padded run's gain): so from 2048 on. Structured operands have their own copies.
SimtCopies simt_operand_copies(const ProblemKey& key) noexcept {
  constexpr int64_t kMinOtherSide = 4096, kMinOtherSideUnaligned = 2048, kMinK = 1024;
  if (key.precision != Precision::FP32 || key.k < kMinK) return {};
  auto copied = [](bool k_contiguous, int vec, int64_t other_side) {
    return (k_contiguous && other_side >= kMinOtherSide) || (vec != 4 && other_side >= kMinOtherSideUnaligned);
  };
  return {key.structure_a == Structure::General && copied(key.trans_a == Op::N, key.vec_a, key.n),
          key.structure_b == Structure::General && copied(key.trans_b == Op::T, key.vec_b, key.m)};
}

EdgeStrips simt_edge_strips(const ProblemKey& key) noexcept {
  // kMaxStripElements: at least 16 a CTA, well within a grid's 2^31 - 1 CTAs.
  constexpr int64_t kStripUnit = 64, kMaxStrip = 8, kMinTileElements = int64_t{1} << 20,
                    kMaxStripElements = int64_t{1} << 32;
  const EdgeStrips none{key.m, key.n};
  if (key.precision != Precision::FP32 || product_triangles(key).any()) return none;
  auto covered = [](int64_t extent) {
    const int64_t past = extent % kStripUnit;
    return extent > kStripUnit && past >= 1 && past <= kMaxStrip ? extent - past : extent;
  };
  const EdgeStrips strips{covered(key.m), covered(key.n)};
  const int64_t strip_elements = key.m * key.n - strips.m0 * strips.n0;
  if (!strips.any(key.m, key.n) || strips.m0 * strips.n0 < kMinTileElements || strip_elements > kMaxStripElements)
    return none;
  return strips;
}

const KernelFamilyRules& simt_rules() noexcept {
  static const SimtRules rules;
  return rules;
}

}  // namespace jitgemm
