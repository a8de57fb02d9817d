// The launch plan's workspace layout: regions that do not overlap, start on 256-byte
// boundaries and fit the total; the regions a family and its options need, and no others;
// geometry from the device's SM count; plans refused with the reason.
#include "exec/launch_plan.hpp"

#include <gtest/gtest.h>

#include <vector>

#include "codegen/candidate_space.hpp"
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
          w.expanded_a, w.expanded_b};
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
  size_t plans = 0;
  for (Precision p : {Precision::FP32, Precision::TF32x3, Precision::TF32})
    for (Op ta : {Op::N, Op::T})
      for (Op tb : {Op::N, Op::T})
        for (Structure s : {Structure::General, Structure::Symmetric}) {
          ProblemKey key = key_of(p, 1000, 1000, 1000, ta, tb);
          key.structure_a = key.structure_b = s;
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
          }
        }
  EXPECT_GT(plans, 100u);
}

TEST(LaunchPlan, WgmmaRegionsFollowTheOperandSources) {
  const ProblemKey key = key_of(Precision::TF32x3, 2048, 4096, 1000);
  const int64_t ldp = 1024;  // K rounded up to 32
  LaunchPlan planes = make_launch_plan(KernelConfig::parse("wgmma_tf32x3_128x128x32_c2_s3_a32_b1_m0_g8"), key, {132, 0});
  EXPECT_EQ(planes.plane_ld, ldp);
  EXPECT_EQ(planes.workspace.a_planes.bytes, 4u * 2 * 2048 * ldp);  // big and small
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
  EXPECT_EQ(rs.workspace.b_planes.bytes, 4u * 2 * 2048 * ldp);
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
  key = key_of(Precision::FP32, 1000, 1000, 1000);
  key.structure_b = Structure::Symmetric;
  plan = make_launch_plan(default_config(key), key, {132, 0});
  EXPECT_TRUE(plan.b.expanded);
  EXPECT_FALSE(plan.a.expanded);
  EXPECT_EQ(plan.b.expanded_ld, 1024);
  EXPECT_EQ(plan.workspace.expanded_b.bytes, 4u * 1000 * 1024);
  expect_sound(plan);
  // The wgmma pre-pass expands a plane-fed symmetric operand itself: no copy.
  key.precision = Precision::TF32x3;
  plan = make_launch_plan(KernelConfig::parse("wgmma_tf32x3_128x128x32_c2_s3_a32_b1_m0_g8"), key, {132, 0});
  EXPECT_FALSE(plan.b.expanded);
  EXPECT_TRUE(plan.kernel_b.symmetric);
  EXPECT_EQ(plan.workspace.expanded_b.bytes, 0u);
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
