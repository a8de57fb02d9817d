// The launch plan's workspace layout: regions that do not overlap, start on 256-byte
// boundaries and fit the total; the regions a family and its options need, and no others;
// geometry from the device's SM count; plans refused with the reason.
#include "exec/launch_plan.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <optional>
#include <map>
#include <set>
#include <tuple>
#include <vector>

#include "codegen/candidate_space.hpp"
#include "codegen/wgmma_family.hpp"
#include "exec/work_list.hpp"
#include "jitgemm/error.hpp"

namespace jitgemm {
namespace {

ProblemKey key_of(Precision p, int64_t m, int64_t n, int64_t k, Op ta = Op::N, Op tb = Op::N) {
  ProblemKey key;
  key.precision = p;
  key.m = m, key.n = n, key.k = k;
  key.trans_a = ta, key.trans_b = tb;
  return key;
}

std::vector<WorkspaceRegion> regions(const WorkspaceLayout& w) {
  return {w.flags, w.convert_counters, w.a_planes, w.b_planes, w.stream_k_partials, w.split_k_partials,
          w.split_k_arrivals, w.copy_a, w.copy_b, w.work_list};
}

void expect_sound(const LaunchPlan& plan) {
  const auto all = regions(plan.workspace);
  for (size_t i = 0; i < all.size(); ++i) {
    if (all[i].bytes == 0) continue;
    EXPECT_EQ(all[i].offset % 256, 0u) << plan.config.name() << " region " << i;
    EXPECT_LE(all[i].end(), plan.workspace.total_bytes) << plan.config.name() << " region " << i;
    for (size_t j = i + 1; j < all.size(); ++j)
      if (all[j].bytes != 0)
        EXPECT_TRUE(all[i].end() <= all[j].offset || all[j].end() <= all[i].offset)
            << plan.config.name() << ": regions " << i << " and " << j << " overlap";
  }
  EXPECT_EQ(plan.workspace.total_bytes % 256, 0u);
}

TEST(LaunchPlan, EverySampleConfigHasASoundLayoutOnEveryLayoutAndStructure) {
  size_t plans = 0, permuted = 0;
  for (Precision p : {Precision::FP32, Precision::TF32x3, Precision::TF32})
    for (Op ta : {Op::N, Op::T})
      for (Op tb : {Op::N, Op::T})
        for (Structure s : {Structure::General, Structure::Symmetric, Structure::SymmetricUpper, Structure::Lower,
                            Structure::UpperUnit}) {
          ProblemKey key = key_of(p, 1000, 1000, 1000, ta, tb);
          key.structure_a = key.structure_b = s;
          key.fill = is_triangular(s) ? Fill::Lower : Fill::Full;
          std::vector<KernelConfig> configs = tuning_sample(key);
          configs.push_back(untuned_config(key));
          for (const KernelConfig& c : configs) {
            if (!rules_of(c).runs_in_place(c, key)) continue;
            if (const WgmmaParams* w = c.if_wgmma(); w && w->b == WgmmaB::Transformed) {
              const bool mn_major = w->swap_ab ? ta == Op::T : tb == Op::N;
              if (!mn_major) {
                EXPECT_THROW(make_launch_plan(c, key, {132, 0}), InvalidArgument) << c.name();
                continue;
              }
            }
            const LaunchPlan plan = make_launch_plan(c, key, {132, 0});
            expect_sound(plan);
            ++plans;
            // The pre-passes the launcher runs (and a record refresh compares): one per copied
            // operand and per plane-fed one, each a variant the template renders.
            const PlanSplitPasses passes = split_passes(plan);
            EXPECT_EQ(passes.copy_a.has_value(), plan.a.copied) << c.name();
            EXPECT_EQ(passes.copy_b.has_value(), plan.b.copied) << c.name();
            EXPECT_EQ(passes.split_a.has_value(), plan.prepass_a) << c.name();
            EXPECT_EQ(passes.split_b.has_value(), plan.prepass_b) << c.name();
            if (passes.split_b) EXPECT_EQ(passes.split_b->permute_k, plan.b_planes_permuted) << c.name();
            for (const std::optional<SplitPass>& pass : {passes.copy_a, passes.copy_b, passes.split_a, passes.split_b})
              if (pass) EXPECT_NO_THROW(pass->render(TemplateStore::active())) << c.name();
            // Permuted B' planes only from a transposing pre-pass of all planes of a
            // non-symmetric source (the only one that writes them so).
            if (plan.b_planes_permuted) {
              ++permuted;
              EXPECT_TRUE(plan.prepass_b && plan.kernel_b.rows_contiguous && !plan.b_big_in_place) << c.name();
              EXPECT_FALSE(is_symmetric(plan.kernel_b.structure)) << c.name();
            }
          }
        }
  EXPECT_GT(plans, 100u);
  EXPECT_GT(permuted, 0u);
}

// B' planes in the kernel's permuted K order: where a K-major A' in registers (unmasked, not
// symmetric) meets B' from a transposing pre-pass (B stored K x N; swapped, A stored K x M).
TEST(LaunchPlan, PermutedBPlanesWhereAKMajorInRegistersMeetsATransposingPrePass) {
  auto permuted = [](const char* config, ProblemKey key) {
    SCOPED_TRACE(config);
    const LaunchPlan plan = make_launch_plan(KernelConfig::parse(config), key, {132, 0});
    // Permuted planes are read to the end of their rows (the last block's K values < K may lie at
    // positions >= K); the others stop at K, TMA's zeros past it.
    EXPECT_EQ(plan.b_plane_map_k, plan.b_planes_permuted ? plan.plane_ld : key.k);
    return plan.b_planes_permuted;
  };
  const char* rst = "wgmma_tf32x3_128x128x32_c2_s4_a64_b1_m0_g8_rst";
  EXPECT_TRUE(permuted(rst, key_of(Precision::TF32x3, 4096, 4096, 4096, Op::N, Op::N)));
  EXPECT_TRUE(permuted(rst, key_of(Precision::TF32x3, 2000, 2600, 2100, Op::N, Op::N)));  // K % 32 = 20: map to 2112
  EXPECT_FALSE(permuted(rst, key_of(Precision::TF32x3, 4096, 4096, 4096, Op::N, Op::T)));  // B K-major: its rows pass
  EXPECT_FALSE(permuted(rst, key_of(Precision::TF32x3, 4096, 4096, 4096, Op::T, Op::N)));  // A' MN-major
  EXPECT_FALSE(permuted("wgmma_tf32x3_128x128x32_c2_s4_a64_b1_m0_g8", key_of(Precision::TF32x3, 4096, 4096, 4096)));
  EXPECT_FALSE(permuted("wgmma_tf32x3_128x128x32_c2_s3_a32_b1_m0_g8_rs_tw", key_of(Precision::TF32x3, 4096, 4096, 4096)));
  ProblemKey symmetric_b = key_of(Precision::TF32x3, 4096, 4096, 4096);
  symmetric_b.structure_b = Structure::Symmetric;
  EXPECT_FALSE(permuted(rst, symmetric_b));  // its pre-pass mirrors tiles
  ProblemKey lower = key_of(Precision::TF32x3, 4096, 4096, 4096);
  lower.structure_a = lower.structure_b = Structure::Lower;
  EXPECT_FALSE(permuted("wgmma_tf32x3_128x128x32_c2_s4_a64_b1_m0_g8_rs", lower));  // A' masked in the kernel
  ProblemKey lower_b = key_of(Precision::TF32x3, 4096, 4096, 4096);
  lower_b.structure_b = Structure::Lower;
  EXPECT_TRUE(permuted(rst, lower_b));  // the pre-pass masks B', permuted or not
  // tf32, swapped: A' = op(B)^T K-major from B stored N x K, B' = op(A) from A stored K x M.
  const char* swap = "wgmma_tf32_128x256x32_c2_s4_a0_b1_m0_g4_rs_swap";
  EXPECT_TRUE(permuted(swap, key_of(Precision::TF32, 2048, 4096, 8192, Op::T, Op::T)));
  EXPECT_FALSE(permuted(swap, key_of(Precision::TF32, 2048, 4096, 8192, Op::T, Op::N)));  // A' MN-major
  EXPECT_FALSE(permuted(swap, key_of(Precision::TF32, 2048, 4096, 8192, Op::N, Op::T)));  // A stored M x K
}

// tf32x3 pre-passes of general operands stored K-major with 16-byte aligned rows write the small
// plane alone (the kernel reads the big one in place); every other pre-pass writes both.
TEST(LaunchPlan, BigPlanesInPlaceOnlyForAlignedKMajorGeneralOperands) {
  const KernelConfig planes = KernelConfig::parse("wgmma_tf32x3_128x128x32_c2_s3_a32_b1_m0_g8");
  auto plan_of = [&](const ProblemKey& key, const KernelConfig& c) {
    SCOPED_TRACE(key.canonical());
    const LaunchPlan plan = make_launch_plan(c, key, {132, 0});
    const int a_planes = plan.a_big_in_place ? 1 : plan.planes, b_planes = plan.b_big_in_place ? 1 : plan.planes;
    if (plan.prepass_a) EXPECT_EQ(plan.workspace.a_planes.bytes, 4u * a_planes * plan.kernel_a.rows * plan.plane_ld);
    if (plan.prepass_b) EXPECT_EQ(plan.workspace.b_planes.bytes, 4u * b_planes * plan.kernel_b.rows * plan.plane_ld);
    return std::pair{plan.a_big_in_place, plan.b_big_in_place};
  };
  using InPlace = std::pair<bool, bool>;
  // K-major: A with trans_a = N, B with trans_b = T.
  EXPECT_EQ(plan_of(key_of(Precision::TF32x3, 512, 640, 768, Op::N, Op::N), planes), (InPlace{true, false}));
  EXPECT_EQ(plan_of(key_of(Precision::TF32x3, 512, 640, 768, Op::N, Op::T), planes), (InPlace{true, true}));
  EXPECT_EQ(plan_of(key_of(Precision::TF32x3, 512, 640, 768, Op::T, Op::T), planes), (InPlace{false, true}));
  EXPECT_EQ(plan_of(key_of(Precision::TF32x3, 512, 640, 768, Op::T, Op::N), planes), (InPlace{false, false}));
  // Unaligned rows (vector width 1): the pre-pass writes both planes.
  ProblemKey unaligned = key_of(Precision::TF32x3, 512, 640, 767, Op::N, Op::T);
  unaligned.vec_a = 1;
  EXPECT_EQ(plan_of(unaligned, planes), (InPlace{false, true}));
  // Structured operands: read through their triangle by the pre-pass, both planes written.
  ProblemKey structured = key_of(Precision::TF32x3, 768, 768, 768, Op::N, Op::T);
  structured.structure_a = Structure::Lower, structured.structure_b = Structure::Symmetric;
  EXPECT_EQ(plan_of(structured, planes), (InPlace{false, false}));
  // tf32 (one plane, already rounded) and operands in registers or read raw: no pre-pass to spare.
  EXPECT_EQ(plan_of(key_of(Precision::TF32, 512, 640, 768, Op::N, Op::T),
                    KernelConfig::parse("wgmma_tf32_128x256x32_c2_s4_a0_b1_m0_g8")),
            (InPlace{false, false}));
  EXPECT_EQ(plan_of(key_of(Precision::TF32x3, 512, 640, 768, Op::N, Op::T),
                    KernelConfig::parse("wgmma_tf32x3_128x128x32_c2_s3_a32_b1_m0_g8_rs")),
            (InPlace{false, true}));
  // Swapped, A' is op(B)^T: K-major when trans_b = T.
  EXPECT_EQ(plan_of(key_of(Precision::TF32x3, 512, 640, 768, Op::T, Op::T),
                    KernelConfig::parse("wgmma_tf32x3_128x128x32_c2_s3_a32_b1_m0_g8_rs_swap")),
            (InPlace{false, false}));
}

TEST(LaunchPlan, WgmmaRegionsFollowTheOperandSources) {
  const ProblemKey key = key_of(Precision::TF32x3, 2048, 4096, 1000);
  const int64_t ldp = 1024;  // K rounded up to 32
  LaunchPlan planes = make_launch_plan(KernelConfig::parse("wgmma_tf32x3_128x128x32_c2_s3_a32_b1_m0_g8"), key, {132, 0});
  EXPECT_EQ(planes.plane_ld, ldp);
  // A stored K-major with aligned rows: its big plane is A itself (a TFLOAT32 map), the
  // workspace holds the small one; B (N-major, transposed by the pre-pass): big and small.
  EXPECT_TRUE(planes.a_big_in_place);
  EXPECT_FALSE(planes.b_big_in_place);
  EXPECT_EQ(planes.workspace.a_planes.bytes, 4u * 1 * 2048 * ldp);
  EXPECT_EQ(planes.workspace.b_planes.bytes, 4u * 2 * 4096 * ldp);
  EXPECT_EQ(planes.workspace.convert_counters.bytes, 0u);
  EXPECT_EQ(planes.workspace.stream_k_partials.bytes, 0u);
  EXPECT_EQ(planes.flag_words, 1u);  // tf32x3 reads the pre-pass's non-finite flag
  EXPECT_TRUE(planes.prepass_a && planes.prepass_b);
  EXPECT_EQ(planes.main.grid_x, 132u);

  const LaunchPlan rs = make_launch_plan(KernelConfig::parse("wgmma_tf32x3_128x128x32_c2_s4_a32_b1_m0_g8_rs_swap"), key,
                                         {114, 0});
  EXPECT_FALSE(rs.prepass_a);
  EXPECT_EQ(rs.kernel_a.rows, 4096);  // swapped: the kernel's A is op(B)^T
  EXPECT_EQ(rs.workspace.a_planes.bytes, 0u);
  EXPECT_TRUE(rs.b_big_in_place);  // B' = op(A) = A, K-major: the small plane alone
  EXPECT_EQ(rs.workspace.b_planes.bytes, 4u * 1 * 2048 * ldp);
  EXPECT_EQ(rs.main.grid_x, 114u);  // the device's SMs

  const LaunchPlan cvt = make_launch_plan(KernelConfig::parse("wgmma_tf32_128x256x32_c2_s4_a0_b1_m0_g8_rs_cvt_sk"),
                                          key_of(Precision::TF32, 256, 512, 1000), {132, 0});
  EXPECT_FALSE(cvt.prepass_b);
  EXPECT_EQ(cvt.workspace.b_planes.bytes, 4u * 512 * ldp);  // the kernel writes its one plane here
  EXPECT_GT(cvt.workspace.convert_counters.bytes, 0u);
  EXPECT_EQ(cvt.workspace.stream_k_partials.bytes, 4u * 128 * 256 * 132);
  EXPECT_EQ(cvt.flag_words, 1 + cvt.main.grid_x * 2u);
  expect_sound(cvt);

  const LaunchPlan tw = make_launch_plan(KernelConfig::parse("wgmma_tf32_128x192x32_c2_s3_a0_b1_m0_g8_rs_tw"),
                                         key_of(Precision::TF32, 2048, 4096, 1000, Op::T, Op::N), {132, 0});
  EXPECT_EQ(tw.workspace.a_planes.bytes + tw.workspace.b_planes.bytes, 0u);
  EXPECT_EQ(tw.flag_words, 0u);
}

TEST(LaunchPlan, SplitKAndSymmetricCopies) {
  ProblemKey key = key_of(Precision::FP32, 1000, 1001, 4096);
  KernelConfig c = default_config(key);
  c.split_k = 4;
  LaunchPlan plan = make_launch_plan(c, key, {132, 0});
  EXPECT_EQ(plan.split_k_ld, 1004);
  EXPECT_EQ(plan.workspace.split_k_partials.bytes, 4u * 4 * 1000 * 1004);
  EXPECT_EQ(plan.main.grid_y, 4u);
  // 2..8 slices on at least one tile per SM: the SIMT kernel's tiles' last CTAs add them,
  // counting on one word per tile. Fewer tiles than SMs, or more slices: the reduction kernel.
  const KernelConfig small_tiles = KernelConfig::parse("simt_fp32_64x64x8_w2x2_t4x8_s3_k4_g8");
  const LaunchPlan finishing = make_launch_plan(small_tiles, key, {132, 0});
  EXPECT_EQ(finishing.main.grid_x, 16u * 16);
  EXPECT_TRUE(finishing.split_k_finish);
  EXPECT_EQ(finishing.workspace.split_k_arrivals.bytes, 4u * 16 * 16);
  expect_sound(finishing);
  EXPECT_FALSE(make_launch_plan(small_tiles, key, {257, 0}).split_k_finish);  // 256 tiles on 257 SMs
  for (int split : {1, 2, 8, 9, 16, 132}) {
    KernelConfig other = small_tiles;
    other.split_k = split;
    const LaunchPlan p = make_launch_plan(other, key, {132, 0});
    EXPECT_EQ(p.split_k_finish, split >= 2 && split <= 8) << split << " slices";
    EXPECT_EQ(p.workspace.split_k_arrivals.bytes, p.split_k_finish ? 4u * 256 : 0u) << split << " slices";
  }
  // The mma.sync family splits K the same way and leaves the adding to the reduction kernel.
  const KernelConfig mma = KernelConfig::parse("mma_tf32x3_64x64x32_w2x2_s3_a32_k4_g8");
  const ProblemKey mma_key = key_of(Precision::TF32x3, 100, 100, 4096);
  EXPECT_FALSE(make_launch_plan(mma, mma_key, {132, 0}).split_k_finish);
  key = key_of(Precision::FP32, 1000, 1000, 1000);
  key.structure_b = Structure::Symmetric;
  plan = make_launch_plan(default_config(key), key, {132, 0});
  EXPECT_TRUE(plan.b.copied);
  EXPECT_FALSE(plan.a.copied);
  EXPECT_EQ(plan.b.copy_ld, 1024);
  EXPECT_EQ(plan.workspace.copy_b.bytes, 4u * 1000 * 1024);
  expect_sound(plan);
  // The wgmma pre-pass expands a plane-fed symmetric operand itself: no copy.
  key.precision = Precision::TF32x3;
  plan = make_launch_plan(KernelConfig::parse("wgmma_tf32x3_128x128x32_c2_s3_a32_b1_m0_g8"), key, {132, 0});
  EXPECT_FALSE(plan.b.copied);
  EXPECT_EQ(plan.kernel_b.structure, Structure::Symmetric);
  EXPECT_EQ(plan.workspace.copy_b.bytes, 0u);
  // A symmetric A' in registers is read from its stored triangle, as rows of K whatever its op:
  // no copy (swapped, A' is op(B)^T).
  for (bool swap : {false, true}) {
    ProblemKey sym = key_of(Precision::TF32, 1024, 1024, 1024, Op::T, Op::N);
    (swap ? sym.structure_b : sym.structure_a) = Structure::Symmetric;
    SCOPED_TRACE(sym.canonical());
    plan = make_launch_plan(
        KernelConfig::parse(swap ? "wgmma_tf32_128x256x32_c2_s4_a0_b1_m0_g8_rs_swap" : "wgmma_tf32_128x256x32_c2_s4_a0_b1_m0_g8_rs"),
        sym, {132, 0});
    EXPECT_EQ(plan.a_sym, 1);
    EXPECT_FALSE(plan.a.copied || plan.b.copied);
    EXPECT_FALSE(plan.kernel_a.rows_contiguous);
    EXPECT_EQ(plan.workspace.copy_a.bytes + plan.workspace.copy_b.bytes, 0u);
    EXPECT_FALSE(plan.prepass_a);
    expect_sound(plan);
  }
  // So is one in blocks of 64 (two stages of 32, each from its side of the diagonal): tf32x3's
  // default for a symmetric A, no dense copy.
  ProblemKey both = key_of(Precision::TF32x3, 4096, 4096, 4096, Op::N, Op::N);
  both.structure_a = both.structure_b = Structure::Symmetric;
  plan = make_launch_plan(KernelConfig::parse("wgmma_tf32x3_128x128x32_c2_s4_a64_b1_m0_g8_rst"), both, {132, 0});
  EXPECT_EQ(plan.a_sym, 1);
  EXPECT_FALSE(plan.a.copied || plan.prepass_a);
  EXPECT_EQ(plan.workspace.copy_a.bytes, 0u);
  expect_sound(plan);
}

// A symmetric operand must be square, whoever makes the plan (the launcher's callers need not
// have validated a GemmProblem): the kernels read one triangle and mirror it.
TEST(LaunchPlan, RefusesANonSquareSymmetricOperand) {
  ProblemKey key = key_of(Precision::TF32x3, 2112, 2048, 2112, Op::T, Op::T);
  key.structure_b = Structure::SymmetricUpper;
  for (const char* name : {"wgmma_tf32x3_128x128x32_c2_s3_a32_b1_m0_g8", "simt_fp32_128x128x8_w2x4_t8x8_s3_k1_g8"}) {
    KernelConfig c = KernelConfig::parse(name);
    ProblemKey k = key;
    k.precision = c.precision;
    try {
      make_launch_plan(c, k, {132, 0});
      ADD_FAILURE() << name << ": planned";
    } catch (const InvalidArgument& e) {
      EXPECT_NE(std::string(e.what()).find("structure_b=symmetric_upper needs a square operand, but op(B) is K x N = 2112 x 2048"),
                std::string::npos)
          << e.what();
    }
  }
  key.n = 2112;  // square: planned
  EXPECT_NO_THROW(make_launch_plan(KernelConfig::parse("wgmma_tf32x3_128x128x32_c2_s3_a32_b1_m0_g8"), key, {132, 0}));
}

// Large fp32 products: the SIMT kernel reads an operand stored K-contiguous (A as N, B as T)
// from a transposed copy, M- or N-contiguous, and from 2048 on an unaligned operand (rows not
// 16-byte aligned) from a copy with aligned rows, transposed or not; the other families and
// small products read it where it lies.
TEST(LaunchPlan, SimtAlignedCopiesOfLargeOperands) {
  struct Case {
    Op ta, tb;
    int64_t m, n, k;
    int vec;                       // of A and B (and C)
    bool a, b;                     // copied
    bool a_transposed, b_transposed;
  };
  for (const Case& t : {Case{Op::N, Op::N, 4096, 4096, 1024, 4, true, false, true, false},
                        Case{Op::N, Op::T, 4096, 8192, 4096, 4, true, true, true, true},
                        Case{Op::T, Op::T, 4096, 100, 2048, 4, false, true, false, true},
                        Case{Op::T, Op::N, 8192, 8192, 8192, 4, false, false, false, false},
                        Case{Op::N, Op::T, 2048, 2048, 2048, 4, false, false, false, false},
                        Case{Op::N, Op::T, 4096, 4096, 1000, 4, false, false, false, false},
                        // unaligned: every operand from 2048 on, transposed where K is contiguous
                        Case{Op::N, Op::N, 2048, 2048, 2048, 1, true, true, true, false},
                        Case{Op::T, Op::N, 3001, 2999, 1025, 1, true, true, false, false},
                        Case{Op::T, Op::T, 3001, 2999, 1025, 1, true, true, false, true},
                        Case{Op::N, Op::N, 1537, 1537, 1537, 1, false, false, false, false},
                        Case{Op::N, Op::N, 3000, 3000, 1000, 1, false, false, false, false},
                        Case{Op::N, Op::N, 3001, 1000, 1537, 1, false, true, false, false}}) {
    ProblemKey key = key_of(Precision::FP32, t.m, t.n, t.k, t.ta, t.tb);
    key.vec_a = key.vec_b = key.vec_c = t.vec;
    SCOPED_TRACE(key.canonical());
    const LaunchPlan plan = make_launch_plan(default_config(key), key, {132, 0});
    EXPECT_EQ(plan.a.copied, t.a);
    EXPECT_EQ(plan.a.transposed_copy, t.a_transposed);
    EXPECT_EQ(plan.b.copied, t.b);
    EXPECT_EQ(plan.b.transposed_copy, t.b_transposed);
    // A's copy is K x M, B's K x N, rows of a multiple of 32 floats.
    EXPECT_EQ(plan.workspace.copy_a.bytes, t.a ? 4u * t.k * ((t.m + 31) / 32 * 32) : 0u);
    EXPECT_EQ(plan.workspace.copy_b.bytes, t.b ? 4u * t.k * ((t.n + 31) / 32 * 32) : 0u);
    if (t.a) EXPECT_EQ(plan.a.copy_ld, (t.m + 31) / 32 * 32);
    if (t.b) EXPECT_EQ(plan.b.copy_ld, (t.n + 31) / 32 * 32);
    expect_sound(plan);
    const KernelSpecialization spec = specialization_of(key);
    EXPECT_EQ(spec.a_aligned_copy, t.a);
    EXPECT_EQ(spec.b_aligned_copy, t.b);
  }
  // tf32x3 on wgmma: the pre-pass lays out what the kernel reads; no copy.
  const ProblemKey tensor = key_of(Precision::TF32x3, 4096, 4096, 4096, Op::N, Op::T);
  const LaunchPlan plan = make_launch_plan(default_config(tensor), tensor, {132, 0});
  EXPECT_FALSE(plan.a.transposed_copy || plan.b.transposed_copy);
}

// Edges 1..8 past a multiple of 64 go to fp32/edge_strips.cu: the SIMT kernel's grid, split-K
// slices and kernel name follow the part whole tiles cover; nothing else changes.
TEST(LaunchPlan, SimtEdgeStripsWhereAnEdgeIsOneToEightPastAMultipleOf64) {
  struct Case {
    int64_t m, n, k;
    int64_t m0, n0;  // what the tiles cover (m0 = m, n0 = n: no strips)
  };
  for (const Case& t : {Case{1537, 1537, 1537, 1536, 1536}, Case{1537, 1600, 700, 1536, 1600},
                        Case{1030, 2049, 64, 1024, 2048}, Case{4096, 1032, 8, 4096, 1024},
                        Case{1000, 1000, 1000, 1000, 1000},  // 40 past 960: whole tiles
                        Case{1033, 1033, 100, 1033, 1033},   // 9 past 1024: whole tiles
                        Case{4096, 4096, 4096, 4096, 4096},
                        Case{1025, 1000, 100, 1025, 1000},   // the tiles would cover under 2^20 elements
                        Case{65, 20000, 100, 64, 20000}}) {  // one row past the first 64
    for (Op ta : {Op::N, Op::T}) {
      ProblemKey key = key_of(Precision::FP32, t.m, t.n, t.k, ta, Op::N);
      SCOPED_TRACE(key.canonical());
      const EdgeStrips strips = simt_edge_strips(key);
      EXPECT_EQ(strips.m0, t.m0);
      EXPECT_EQ(strips.n0, t.n0);
      const bool any = t.m0 < t.m || t.n0 < t.n;
      EXPECT_EQ(specialization_of(key).edge_strips, any);
      for (const KernelConfig& c : tuning_sample(key)) {
        const LaunchPlan plan = make_launch_plan(c, key, {132, 0});
        EXPECT_EQ(plan.strips.m0, t.m0) << c.name();
        EXPECT_EQ(plan.strips.n0, t.n0) << c.name();
        // The layout the kernels read: as stored, or A's dense copy as K x M (4096^3 NN).
        const bool a_copied = specialization_of(key).a_aligned_copy;
        EXPECT_EQ(plan.simt_a_rows_contiguous, ta == Op::T || a_copied) << c.name();
        EXPECT_TRUE(plan.simt_b_rows_contiguous) << c.name();
        EXPECT_EQ(plan.main.grid_x * plan.main.grid_y, static_cast<unsigned>(c.output_tiles(t.m0, t.n0) * c.split_k))
            << c.name();
        EXPECT_EQ(rules_of(c).kernel_name(c, specialization_of(key)).ends_with("_es"), any) << c.name();
        expect_sound(plan);
      }
    }
  }
  // Not for the tensor-core modes, a fill or a triangular operand.
  ProblemKey key = key_of(Precision::FP32, 1537, 1537, 1537);
  EXPECT_TRUE(specialization_of(key).edge_strips);
  for (Precision p : {Precision::TF32x3, Precision::TF32}) {
    ProblemKey tensor = key_of(p, 1537, 1537, 1537);
    EXPECT_FALSE(specialization_of(tensor).edge_strips) << to_string(p);
    const LaunchPlan plan = make_launch_plan(default_config(tensor), tensor, {132, 0});
    EXPECT_EQ(plan.strips.m0, 1537);
    EXPECT_EQ(plan.strips.n0, 1537);
  }
  ProblemKey filled = key;
  filled.fill = Fill::Lower;
  EXPECT_FALSE(specialization_of(filled).edge_strips);
  ProblemKey triangular = key;
  triangular.structure_a = Structure::Lower;
  EXPECT_FALSE(specialization_of(triangular).edge_strips);
  ProblemKey symmetric = key;  // read from a dense copy: strips as for a general operand
  symmetric.structure_b = Structure::Symmetric;
  EXPECT_TRUE(specialization_of(symmetric).edge_strips);
}

TEST(LaunchPlan, TriangularOperandsAndFill) {
  // lowertri: A and B lower, C = tril(A B). SIMT reads both in place: dense copies first (in
  // the stored layout), and one work item per tile.
  ProblemKey key = key_of(Precision::FP32, 1000, 1000, 1000);
  key.structure_a = Structure::Lower, key.structure_b = Structure::LowerUnit, key.fill = Fill::Lower;
  LaunchPlan plan = make_launch_plan(default_config(key), key, {132, 0});
  EXPECT_TRUE(plan.a.copied && plan.b.copied);
  EXPECT_EQ(plan.a.copy_ld, 1024);
  EXPECT_EQ((plan.triangles == ProductTriangles{Triangle::Lower, Triangle::Lower, Triangle::Lower}), true);
  const int64_t tiles = int64_t{plan.main.grid_x};
  EXPECT_EQ(static_cast<int64_t>(plan.work.items.size()), tiles);
  EXPECT_TRUE(plan.work.cta_begin.empty());  // one tile per CTA
  EXPECT_EQ(plan.workspace.work_list.bytes, 16 * plan.work.items.size());
  EXPECT_TRUE(specialization_of(key).work_list);
  expect_sound(plan);
  // wgmma plane-fed: the pre-pass masks both; a persistent grid gets shares of the list.
  key.precision = Precision::TF32x3;
  plan = make_launch_plan(KernelConfig::parse("wgmma_tf32x3_128x128x32_c2_s3_a32_b1_m0_g8"), key, {132, 0});
  EXPECT_FALSE(plan.a.copied || plan.b.copied);
  EXPECT_EQ(plan.kernel_a.structure, Structure::Lower);
  EXPECT_EQ(plan.kernel_b.structure, Structure::LowerUnit);
  ASSERT_EQ(plan.work.cta_begin.size(), size_t{plan.main.grid_x} + 1);
  EXPECT_EQ(plan.work_words.size(), 4 * plan.work.items.size() + plan.work.cta_begin.size());
  expect_sound(plan);
  // Swapped (C^T = op(B)^T op(A)^T): the kernel's triangles are the transposed ones. The raw
  // operand in registers is B, triangular: the kernel masks it, no dense copy.
  KernelConfig swapped = KernelConfig::parse("wgmma_tf32x3_128x128x32_c2_s4_a32_b1_m0_g8_rs_swap");
  plan = make_launch_plan(swapped, key, {132, 0});
  EXPECT_EQ((plan.triangles == ProductTriangles{Triangle::Upper, Triangle::Upper, Triangle::Upper}), true);
  EXPECT_FALSE(plan.a.copied || plan.b.copied);
  EXPECT_EQ(plan.workspace.copy_a.bytes + plan.workspace.copy_b.bytes, 0u);
  EXPECT_TRUE(plan.prepass_b && !plan.prepass_a);  // B' = op(A) from the masking pre-pass
  // A symmetric A' in registers is read from its stored triangle (A_SYM); a symmetric B' read
  // raw is not masked but copied dense (mirrored) first.
  ProblemKey symmetric = key;
  symmetric.structure_b = Structure::SymmetricUpper;
  plan = make_launch_plan(swapped, symmetric, {132, 0});
  EXPECT_EQ(plan.a_sym, 2);
  EXPECT_FALSE(plan.a.copied || plan.b.copied);
  symmetric = key;
  symmetric.structure_a = Structure::SymmetricUpper;
  plan = make_launch_plan(KernelConfig::parse("wgmma_tf32x3_128x128x32_c2_s4_a32_b1_m0_g8_rs_swap_rb"), symmetric, {132, 0});
  EXPECT_EQ(plan.a_sym, 0);
  EXPECT_TRUE(plan.a.copied);
  EXPECT_FALSE(plan.b.copied);
  // No pre-pass at all: A' = op(B)^T in registers and B' = op(A) rounded in shared memory,
  // both masked by the kernel.
  plan = make_launch_plan(KernelConfig::parse("wgmma_tf32x3_128x128x32_c2_s4_a32_b1_m0_g8_rs_swap_rb"), key, {132, 0});
  EXPECT_FALSE(plan.a.copied || plan.b.copied || plan.prepass_a || plan.prepass_b);
  EXPECT_EQ(plan.workspace.a_planes.bytes + plan.workspace.b_planes.bytes + plan.workspace.copy_a.bytes +
                plan.workspace.copy_b.bytes,
            0u);
  // A stream-K tail or CTA pairs cannot walk a work list: refused, and served adapted.
  const KernelConfig sk = KernelConfig::parse("wgmma_tf32x3_128x128x32_c2_s3_a32_b1_m0_g8_sk");
  EXPECT_THROW(make_launch_plan(sk, key, {132, 0}), InvalidArgument);
  const std::optional<KernelConfig> adapted = rules_of(sk).adapt(sk, key);
  ASSERT_TRUE(adapted.has_value());
  EXPECT_EQ(adapted->wgmma().schedule, TileSchedule::DataParallel);
  for (const KernelConfig& c : tuning_candidates(key)) EXPECT_NO_THROW(make_launch_plan(c, key, {132, 0})) << c.name();
}

TEST(WorkList, EveryTileOnceWithItsKRange) {
  const ProductTriangles lowertri{Triangle::Lower, Triangle::Lower, Triangle::Lower};
  const WorkList list = build_work_list(lowertri, {4096, 4096, 4096}, {128, 128, 32}, 132);
  ASSERT_EQ(list.items.size(), 32u * 32u);
  std::set<std::pair<int, int>> seen;
  int64_t units = 0;
  for (const WorkItem& w : list.items) {
    EXPECT_TRUE(seen.insert({w.tile_m, w.tile_n}).second) << w.tile_m << "," << w.tile_n;
    if (w.tile_n > w.tile_m) {
      EXPECT_EQ(w.units, 0);  // above the diagonal: zeros, no arithmetic
    } else {
      // k in [J·128, (I+1)·128): (I - J + 1) 128-wide blocks of 4 units.
      EXPECT_EQ(w.first_unit, w.tile_n * 4);
      EXPECT_EQ(w.units, (w.tile_m - w.tile_n + 1) * 4);
    }
    units += w.units;
  }
  EXPECT_EQ(units, list.units);
  EXPECT_EQ(list.units, 4 * (32 * 33 * 34 / 6));  // sum over I >= J of (I - J + 1), times 4
  // Each CTA's share is contiguous; LPT balances lowertri at 128-tiles to within a few percent.
  ASSERT_EQ(list.cta_begin.size(), 133u);
  EXPECT_EQ(list.cta_begin.front(), 0);
  EXPECT_EQ(list.cta_begin.back(), 1024);
  EXPECT_TRUE(std::is_sorted(list.cta_begin.begin(), list.cta_begin.end()));
  std::printf("[ info ] lowertri 4096, 128x128 tiles, 132 CTAs: balance %.3f (busiest %lld units)\n", list.balance,
              static_cast<long long>(list.busiest_cta_units));
  EXPECT_GT(list.balance, 0.93);
  // One tile per CTA: longest first.
  const WorkList flat = build_work_list(lowertri, {1000, 1000, 1000}, {128, 128, 8}, 0);
  EXPECT_TRUE(flat.cta_begin.empty());
  EXPECT_TRUE(std::is_sorted(flat.items.begin(), flat.items.end(),
                             [](const WorkItem& x, const WorkItem& y) { return x.units > y.units; }));
}

TEST(WorkList, RangesFollowEachTriangle) {
  const WorkShape shape{300, 200, 500};
  const WorkTiling tiling{64, 64, 16};
  auto range = [&](ProductTriangles t, int i, int j) {
    const WorkItem w = tile_work(t, shape, tiling, i, j);
    return std::pair{w.first_unit * 16, (w.first_unit + w.units) * 16};
  };
  // op(A) lower: k < rows' end; upper: k >= rows' start; op(B) lower: k >= columns' start;
  // upper: k < columns' end (rounded out to units of 16).
  EXPECT_EQ(range({Triangle::Lower, Triangle::None, Triangle::None}, 1, 0), (std::pair{0, 128}));
  EXPECT_EQ(range({Triangle::Upper, Triangle::None, Triangle::None}, 1, 0), (std::pair{64, 512}));
  EXPECT_EQ(range({Triangle::None, Triangle::Lower, Triangle::None}, 0, 2), (std::pair{128, 512}));
  EXPECT_EQ(range({Triangle::None, Triangle::Upper, Triangle::None}, 0, 3), (std::pair{0, 208}));  // N ends at 200
  EXPECT_EQ(range({Triangle::Upper, Triangle::Upper, Triangle::None}, 3, 1), (std::pair{0, 0}));  // [192, 128): empty
  // Fills: a tile wholly in the zeroed strict triangle gets nothing; the diagonal tile all of K.
  EXPECT_EQ(range({Triangle::None, Triangle::None, Triangle::Lower}, 0, 1), (std::pair{0, 0}));
  EXPECT_EQ(range({Triangle::None, Triangle::None, Triangle::Lower}, 1, 1), (std::pair{0, 512}));
  EXPECT_EQ(range({Triangle::None, Triangle::None, Triangle::Upper}, 2, 0), (std::pair{0, 0}));
  // Every tile exactly once, for every combination, persistent or not.
  for (Triangle a : {Triangle::None, Triangle::Lower, Triangle::Upper})
    for (Triangle b : {Triangle::None, Triangle::Lower, Triangle::Upper})
      for (Triangle c : {Triangle::None, Triangle::Lower, Triangle::Upper})
        for (int ctas : {0, 7}) {
          const WorkList list = build_work_list({a, b, c}, shape, tiling, ctas);
          std::set<std::pair<int, int>> tiles;
          for (const WorkItem& w : list.items) tiles.insert({w.tile_m, w.tile_n});
          EXPECT_EQ(tiles.size(), 5u * 4u);
          EXPECT_EQ(list.items.size(), 5u * 4u);
        }
  EXPECT_THROW(build_work_list({}, shape, {0, 64, 16}, 1), InvalidArgument);
}

// The pre-pass leaves a triangular operand's planes unwritten farther than the plan's skip band
// (skip_band_a, skip_band_b) from the diagonal, on the zero side (tf32/split_operand.cu
// tile_unread): every K range of every work item of every candidate must stay inside, for both
// kernel operands, swapped or not, every triangle and op.
TEST(WorkList, ReadsStayInsideThePrePassSkipBand) {
  constexpr int64_t kTile = 64;  // the pre-pass's TILE_R = TILE_K
  // Whether pre-pass tile (r0, k0) is skipped: tile_unread of the template.
  auto unread = [](bool keep_below, int64_t r0, int64_t k0, int64_t band) {
    return keep_below ? k0 >= r0 + kTile - 1 + band : k0 + kTile - 1 <= r0 - band;
  };
  auto down = [](int64_t x) { return x / kTile * kTile; };
  int checked = 0;
  for (Precision p : {Precision::TF32x3, Precision::TF32})
    for (auto [sa, ta, sb, tb, fill] :
         {std::tuple{Structure::Lower, Op::N, Structure::Lower, Op::N, Fill::Lower},
          std::tuple{Structure::UpperUnit, Op::T, Structure::General, Op::N, Fill::Full},
          std::tuple{Structure::General, Op::N, Structure::LowerUnit, Op::T, Fill::Upper},
          std::tuple{Structure::Upper, Op::N, Structure::Upper, Op::T, Fill::Full}}) {
      ProblemKey key = key_of(p, 1500, 1500, 1500, ta, tb);
      key.structure_a = sa, key.structure_b = sb, key.fill = fill;
      for (const KernelConfig& c : tuning_candidates(key)) {
        if (c.family() != KernelFamily::Wgmma) continue;
        const LaunchPlan plan = make_launch_plan(c, key, {132, 0});
        const int64_t unit = int64_t{wgmma_group_stages(c)} * c.block_k;
        for (const WorkItem& w : plan.work.items) {
          if (w.units == 0) continue;
          const int64_t ka = int64_t{w.first_unit} * unit, kb = std::min(key.k, (int64_t{w.first_unit} + w.units) * unit);
          // A' rows of the item (keep k <= r when op(A') is lower) and B' rows (keep k <= n
          // when op(B') is upper: B'(n, k) = op(B')(k, n)).
          for (auto [prepass, t, keep_below_if, row0, rows, tile_rows, band] :
               {std::tuple{plan.prepass_a, plan.triangles.a, Triangle::Lower, int64_t{w.tile_m} * c.block_m,
                           plan.kernel_a.rows, c.block_m, int64_t{plan.skip_band_a}},
                std::tuple{plan.prepass_b, plan.triangles.b, Triangle::Upper, int64_t{w.tile_n} * c.block_n,
                           plan.kernel_b.rows, c.block_n, int64_t{plan.skip_band_b}}}) {
            if (!prepass || t == Triangle::None) continue;
            EXPECT_GT(band, 0) << c.name();
            const bool keep_below = t == keep_below_if;
            const int64_t row1 = std::min(rows, row0 + tile_rows);
            // The tile most at risk: the farthest corner of the item's rectangle on the zero side.
            const bool skipped = keep_below ? unread(true, down(row0), down(kb - 1), band)
                                            : unread(false, down(row1 - 1), down(ka), band);
            EXPECT_FALSE(skipped) << c.name() << " on " << key.canonical() << ": item (" << w.tile_m << ", "
                                  << w.tile_n << ") reads K [" << ka << ", " << kb << ") of rows [" << row0 << ", "
                                  << row1 << ") past the band " << band;
            ++checked;
          }
        }
      }
    }
  EXPECT_GT(checked, 1000);
}

TEST(WorkList, KPiecesCoverEachTileOnceWithOneSlotEach) {
  // largeK at 128x128 tiles: 4 tiles x 132 pieces of 16384 / 132 units over 132 CTAs.
  const WorkList list = build_work_list({}, {256, 256, 524288}, {128, 128, 32}, 132, 132);
  ASSERT_EQ(list.items.size(), 4u * 132u);
  ASSERT_EQ(list.slots.size(), list.items.size());
  std::map<std::pair<int, int>, std::vector<std::pair<int, int>>> ranges;  // tile -> (first unit, slot)
  std::map<std::pair<int, int>, std::set<int>> slots;
  for (size_t i = 0; i < list.items.size(); ++i) {
    const WorkItem& w = list.items[i];
    ranges[{w.tile_m, w.tile_n}].push_back({w.first_unit, w.units});
    const std::pair<int, int> tile{w.tile_m, w.tile_n};
    EXPECT_TRUE(slots[tile].insert(list.slots[i]).second) << "slot " << list.slots[i] << " twice";
    EXPECT_GE(w.units, 16384 / 132);
    EXPECT_LE(w.units, 16384 / 132 + 1);
  }
  ASSERT_EQ(ranges.size(), 4u);
  for (auto& [tile, pieces] : ranges) {
    std::sort(pieces.begin(), pieces.end());
    int next = 0;
    for (auto [first, units] : pieces) {
      EXPECT_EQ(first, next) << "pieces of a tile must tile its K range";
      next = first + units;
    }
    EXPECT_EQ(next, 16384);
    EXPECT_EQ(*slots[tile].rbegin(), 131);
  }
  // Four pieces per CTA, balanced to within one unit per piece.
  ASSERT_EQ(list.cta_begin.size(), 133u);
  for (int b = 0; b < 132; ++b) EXPECT_EQ(list.cta_begin[b + 1] - list.cta_begin[b], 4);
  EXPECT_GT(list.balance, 0.99);
  // Slots follow cta_begin in the uploaded words.
  const std::vector<int32_t> words = list.words();
  ASSERT_EQ(words.size(), 4 * list.items.size() + list.cta_begin.size() + list.slots.size());
  EXPECT_EQ(words.back(), list.slots.back());
  // Pieces of a triangular tile share its range; more pieces than units leave empty pieces
  // (their slots are still written, as zeros).
  const WorkList tri = build_work_list({Triangle::Lower, Triangle::None, Triangle::None}, {256, 64, 256},
                                       {128, 64, 32}, 8, 8);
  ASSERT_EQ(tri.items.size(), 16u);
  int64_t tile0 = 0, empty = 0;
  for (const WorkItem& w : tri.items) {
    if (w.tile_m == 0) tile0 += w.units;
    empty += w.units == 0;
  }
  EXPECT_EQ(tile0, 4);  // rows < 128 need k < 128: 4 units, over 8 pieces
  EXPECT_EQ(empty, 4);
  EXPECT_THROW(build_work_list({}, {256, 256, 1024}, {128, 128, 32}, 0, 2), InvalidArgument);  // pieces need CTAs
  EXPECT_THROW(build_work_list({}, {256, 256, 1024}, {128, 128, 32}, 8, 0), InvalidArgument);
}

TEST(LaunchPlan, HugeKPiecesGetPartialsAndAWorkListWithSlots) {
  GemmProblem g;
  g.m = 256, g.n = 256, g.k = 524288, g.precision = Precision::TF32x3;
  const ProblemKey key = make_problem_key(g);
  const KernelConfig c = default_config(key);
  ASSERT_EQ(c.split_k, 132) << c.name();
  const LaunchPlan plan = make_launch_plan(c, key, {132, 0});
  EXPECT_EQ(plan.main.grid_x, 132u);
  EXPECT_EQ(plan.split_k_ld, 256);
  EXPECT_EQ(plan.workspace.split_k_partials.bytes, size_t{4} * 132 * 256 * 256);
  EXPECT_EQ(plan.work.items.size(), 4u * 132u);
  EXPECT_EQ(plan.work.slots.size(), plan.work.items.size());
  EXPECT_EQ(plan.workspace.work_list.bytes, 4 * plan.work_words.size());
  EXPECT_FALSE(plan.prepass_a || plan.prepass_b);  // A in registers, B transformed: no pre-pass
  EXPECT_EQ(plan.workspace.a_planes.bytes + plan.workspace.b_planes.bytes, 0u);
  expect_sound(plan);
  // On a smaller part (114 SMs) the same pieces are dealt over fewer CTAs.
  const LaunchPlan small = make_launch_plan(c, key, {114, 0});
  EXPECT_EQ(small.main.grid_x, 114u);
  EXPECT_EQ(small.work.cta_begin.size(), 115u);
  EXPECT_EQ(small.work.items.size(), 4u * 132u);
  // A fill with pieces: the kernel stores whole partials, the reduction fills (no triangles needed).
  ProblemKey lower = key;
  lower.fill = Fill::Lower;
  const LaunchPlan filled = make_launch_plan(c, lower, {132, 0});
  EXPECT_EQ(filled.work.items.size(), 4u * 132u);
  for (const KernelConfig& candidate : tuning_candidates(key)) EXPECT_NO_THROW(make_launch_plan(candidate, key, {132, 0})) << candidate.name();
}

TEST(LaunchPlan, RefusesWhatCannotRunNamingWhy) {
  ProblemKey key = key_of(Precision::TF32x3, 1000, 1000, 1000);
  key.vec_a = 1;
  try {
    make_launch_plan(KernelConfig::parse("wgmma_tf32x3_128x128x32_c2_s4_a32_b1_m0_g8_rs"), key, {132, 0});
    FAIL();
  } catch (const InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find("16-byte aligned"), std::string::npos) << e.what();
  }
  EXPECT_THROW(make_launch_plan(default_config(key), key, {0, 0}), InvalidArgument);
  key.m = 0;
  EXPECT_THROW(make_launch_plan(default_config(key_of(Precision::TF32x3, 1000, 1000, 1000)), key, {132, 0}),
               InvalidArgument);
}

}  // namespace
}  // namespace jitgemm
