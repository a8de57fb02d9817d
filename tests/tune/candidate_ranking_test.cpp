// The budgeted search's ranking (priors, the kept default, the model's order, pruning) and the
// performance model's sense on shapes whose answer is known.
#include "tune/candidate_ranking.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>

#include "codegen/candidate_space.hpp"
#include "codegen/kernel_family.hpp"
#include "codegen/wgmma_family.hpp"
#include "tune/performance_model.hpp"

namespace jitgemm {
namespace {

ProblemKey key_of(int64_t m, int64_t n, int64_t k, Precision precision) {
  ProblemKey key;
  key.m = m, key.n = n, key.k = k, key.precision = precision;
  return key;
}

std::vector<std::string> names_in_order(const std::vector<KernelConfig>& configs, const CandidateRanking& r) {
  std::vector<std::string> out;
  for (const CandidateRank& c : r.order) out.push_back(configs[c.index].name());
  return out;
}

const DeviceModel kH200 = DeviceModel::hopper(132);

TEST(CandidateRanking, TheOrderIsDeterministicWhateverTheInputOrder) {
  const ProblemKey key = key_of(4096, 4096, 4096, Precision::TF32x3);
  std::vector<KernelConfig> configs = tuning_candidates(key);
  const CandidateRanking first = rank_candidates(key, configs, kH200, {});
  EXPECT_EQ(names_in_order(configs, first), names_in_order(configs, rank_candidates(key, configs, kH200, {})));
  std::vector<KernelConfig> shuffled = configs;
  std::shuffle(shuffled.begin(), shuffled.end(), std::mt19937_64(5));
  EXPECT_EQ(names_in_order(configs, first), names_in_order(shuffled, rank_candidates(key, shuffled, kH200, {})));
  ASSERT_EQ(first.order.size(), configs.size());
  for (size_t i = 1; i < first.order.size(); ++i)
    if (first.order[i].pruned == first.order[i - 1].pruned)
      EXPECT_LE(first.order[i - 1].estimate_us, first.order[i].estimate_us) << i;
}

TEST(CandidateRanking, PriorsComeFirstInTheirOrderThenTheKeptDefault) {
  const ProblemKey key = key_of(2048, 4096, 8192, Precision::TF32x3);
  const std::vector<KernelConfig> configs = tuning_candidates(key);
  const CandidateRanking plain = rank_candidates(key, configs, kH200, {});
  // Two of the model's last unpruned candidates as priors, the default kept.
  std::vector<KernelConfig> tail;
  for (auto it = plain.order.rbegin(); it != plain.order.rend() && tail.size() < 2; ++it)
    if (!it->pruned) tail.push_back(configs[it->index]);
  ASSERT_EQ(tail.size(), 2u);
  const KernelConfig dflt = untuned_config(key);
  const CandidateRanking r = rank_candidates(key, configs, kH200, {2.0, {tail[1], tail[0]}, {dflt}});
  ASSERT_GE(r.order.size(), 3u);
  EXPECT_EQ(configs[r.order[0].index], tail[1]);
  EXPECT_EQ(configs[r.order[1].index], tail[0]);
  EXPECT_TRUE(r.order[0].prior && r.order[1].prior);
  // Then the priors' other forms (their K-split siblings), then the kept default.
  size_t after_priors = 0;
  while (after_priors < r.order.size() && r.order[after_priors].prior) ++after_priors;
  ASSERT_LT(after_priors, r.order.size());
  EXPECT_EQ(configs[r.order[after_priors].index], dflt);
  EXPECT_TRUE(r.order[after_priors].kept);
  for (size_t i = after_priors; i < r.order.size(); ++i) EXPECT_FALSE(r.order[i].prior) << i;
  // Assured (timed whatever the budget guesses): the priors, each one's form made right for this
  // problem (at most one), and the default; nothing after the default.
  EXPECT_TRUE(r.order[0].assured && r.order[1].assured && r.order[after_priors].assured);
  size_t assured = 0;
  for (size_t i = 0; i < r.order.size(); ++i) {
    assured += r.order[i].assured;
    if (r.order[i].assured) EXPECT_TRUE(r.order[i].prior || r.order[i].kept) << i;
    if (i > after_priors) EXPECT_FALSE(r.order[i].assured) << i << " " << configs[r.order[i].index].name();
  }
  EXPECT_LE(assured, 2u * 2 + 1);
}

TEST(CandidateRanking, APriorTunedForAnotherShapeMatchesItsAdaptedConfig) {
  // A SIMT record's tiles with the split K of another shape: the same kernel here.
  const ProblemKey key = key_of(1000, 1000, 1000, Precision::FP32);
  const std::vector<KernelConfig> configs = tuning_candidates(key);
  KernelConfig prior = configs.back();
  prior.split_k = 256;  // what a record of a far longer K might hold
  ASSERT_EQ(std::find(configs.begin(), configs.end(), prior), configs.end());
  const CandidateRanking r = rank_candidates(key, configs, kH200, {2.0, {prior}, {}});
  ASSERT_TRUE(r.order.front().prior);
  KernelConfig first = configs[r.order.front().index];
  EXPECT_TRUE(r.order.front().assured);  // the prior made right for this problem
  first.split_k = prior.split_k;
  EXPECT_EQ(first, prior);
}

TEST(CandidateRanking, ASimtPriorsBarrierTwinIsTimedRightAfterThePriors) {
  // The fp32 largeK record's tile, its barrier at the last row: the tuner next times the same
  // tile with the barrier a row early (and K-split siblings), before the model's order.
  const ProblemKey key = key_of(256, 256, 524288, Precision::FP32);
  const std::vector<KernelConfig> configs = tuning_candidates(key);
  KernelConfig prior = KernelConfig::parse("simt_fp32_128x256x8_w2x4_t8x16_s4_k66_g8");
  ASSERT_NE(std::find(configs.begin(), configs.end(), prior), configs.end());
  KernelConfig twin = prior;
  twin.simt().early_barrier = true;
  ASSERT_NE(std::find(configs.begin(), configs.end(), twin), configs.end());
  const CandidateRanking r = rank_candidates(key, configs, kH200, {2.0, {prior}, {}});
  EXPECT_EQ(configs[r.order[0].index], prior);
  size_t twin_at = r.order.size();
  for (size_t i = 0; i < r.order.size(); ++i)
    if (configs[r.order[i].index] == twin) twin_at = i;
  ASSERT_LT(twin_at, r.order.size());
  for (size_t i = 0; i <= twin_at; ++i) EXPECT_TRUE(r.order[i].prior) << configs[r.order[i].index].name();
  EXPECT_FALSE(r.order[twin_at].assured);  // a sibling: timed while the budget lasts
}

TEST(CandidateRanking, PruningNeverDropsTheDefaultOrAPrior) {
  for (Precision precision : {Precision::FP32, Precision::TF32x3, Precision::TF32}) {
    const ProblemKey key = key_of(256, 256, 524288, precision);
    const std::vector<KernelConfig> configs = tuning_candidates(key);
    const KernelConfig dflt = untuned_config(key);
    const CandidateRanking plain = rank_candidates(key, configs, kH200, {});
    const KernelConfig slowest = configs[plain.order.back().index];
    // A ratio that prunes all but each family's best, the kept and the priors.
    const CandidateRanking r = rank_candidates(key, configs, kH200, {1.000001, {slowest}, {dflt}});
    EXPECT_GT(r.pruned, configs.size() / 2) << to_string(precision);
    for (const CandidateRank& c : r.order) {
      if (configs[c.index] == dflt || configs[c.index] == slowest) EXPECT_FALSE(c.pruned) << configs[c.index].name();
      if (c.pruned) EXPECT_GT(c.ratio, 1.000001);
    }
    for (size_t i = 0; i + 1 < r.order.size(); ++i)
      EXPECT_LE(r.order[i].pruned, r.order[i + 1].pruned) << "the pruned come last";
    EXPECT_EQ(rank_candidates(key, configs, kH200, {0, {}, {}}).pruned, 0u) << "ratio 0 prunes nothing";
  }
}

TEST(PerformanceModel, PrefersWhatH200MeasurementsPrefer) {
  // tf32, 4096^3: the 128x256 tile over 128x128 (fewer operand reads per product).
  const ProblemKey square = key_of(4096, 4096, 4096, Precision::TF32);
  const auto us = [&](const char* name, const ProblemKey& key) {
    return estimate_time(KernelConfig::parse(name), key, kH200).total_us;
  };
  EXPECT_LT(us("wgmma_tf32_128x256x32_c2_s4_a0_b1_m0_g8_rs", square),
            us("wgmma_tf32_128x128x32_c2_s4_a0_b1_m0_g8_rs", square));
  // tf32x3, 256 x 256 x 524288: operands read in place beat the pre-pass over 1 GB of planes.
  const ProblemKey large_k = key_of(256, 256, 524288, Precision::TF32x3);
  EXPECT_LT(us("wgmma_tf32x3_128x128x32_c2_s3_a32_b1_m0_g8_rst_tw_k132", large_k),
            us("wgmma_tf32x3_128x128x32_c2_s3_a32_b1_m0_g8_k132", large_k));
  // CTA pairs pay a barrier per stage: slower where nothing is memory-bound.
  const ProblemKey x3 = key_of(4096, 4096, 4096, Precision::TF32x3);
  EXPECT_LT(us("wgmma_tf32x3_128x128x32_c2_s3_a32_b1_m0_g8", x3),
            us("wgmma_tf32x3_128x128x32_c2_s3_a32_b1_m0_g8_x2", x3));
  // More K takes longer; a triangular product less than its dense one.
  const KernelConfig simt = KernelConfig::parse("simt_fp32_128x128x16_w2x4_t8x8_s3_k1_g8");
  EXPECT_LT(estimate_time(simt, key_of(2048, 2048, 1024, Precision::FP32), kH200).total_us,
            estimate_time(simt, key_of(2048, 2048, 2048, Precision::FP32), kH200).total_us);
  ProblemKey lower = key_of(4096, 4096, 4096, Precision::FP32);
  lower.structure_a = lower.structure_b = Structure::Lower;
  lower.fill = Fill::Lower;
  EXPECT_LT(estimate_time(simt, lower, kH200).total_us,
            0.5 * estimate_time(simt, key_of(4096, 4096, 4096, Precision::FP32), kH200).total_us);
}

// tf32x3 pre-passes write one plane of an aligned K-major general operand (its big plane is read
// in place) and two of any other: the model charges what they write.
TEST(PerformanceModel, APrePassThatWritesOnlyTheSmallPlaneCostsLess) {
  const KernelConfig planes = KernelConfig::parse("wgmma_tf32x3_128x128x32_c2_s3_a32_b1_m0_g8");
  const ProblemKey aligned = key_of(4096, 4096, 4096, Precision::TF32x3);  // NN: A in place
  ProblemKey unaligned = aligned;
  unaligned.vec_a = 1;
  ASSERT_TRUE(wgmma_big_planes_in_place(planes, aligned).a);
  ASSERT_FALSE(wgmma_big_planes_in_place(planes, unaligned).a);
  const TimeEstimate in_place = estimate_time(planes, aligned, kH200), written = estimate_time(planes, unaligned, kH200);
  EXPECT_EQ(in_place.kernel_us, written.kernel_us);  // the main kernel reads the same bytes
  // One plane of 4096^2 floats (64 MB) fewer to write.
  EXPECT_NEAR(written.extra_us - in_place.extra_us, 4.0 * 4096 * 4096 / (kH200.dram_gbps * 1e3), 1.0);
  // tf32 (one plane, nothing to spare) and A in registers: no difference.
  const KernelConfig tf32 = KernelConfig::parse("wgmma_tf32_128x256x32_c2_s4_a0_b1_m0_g8");
  EXPECT_FALSE(wgmma_big_planes_in_place(tf32, key_of(4096, 4096, 4096, Precision::TF32)).a);
  EXPECT_FALSE(wgmma_big_planes_in_place(KernelConfig::parse("wgmma_tf32x3_128x128x32_c2_s3_a32_b1_m0_g8_rs"), aligned).a);
}

TEST(PerformanceModel, SimtEdgeStripsCostTheTilesPartOnly) {
  // 1537^3 fp32: the tiles cover 1536 x 1536 (simt_edge_strips), whatever their width, so a
  // config is estimated as on the interior, not with a tile column and row of one live element.
  const ProblemKey edged = key_of(1537, 1537, 1537, Precision::FP32), interior = key_of(1536, 1536, 1537, Precision::FP32);
  for (const char* name : {"simt_fp32_64x128x8_w2x2_t8x8_s4_k4_g8", "simt_fp32_128x256x16_w2x4_t8x16_s4_k1_g8_eb"}) {
    const KernelConfig c = KernelConfig::parse(name);
    EXPECT_EQ(estimate_time(c, edged, kH200).total_us, estimate_time(c, interior, kH200).total_us) << name;
  }
  // Without strips (40 past 960) the partial tiles are the kernel's, and cost.
  const KernelConfig c = KernelConfig::parse("simt_fp32_128x256x16_w2x4_t8x16_s4_k1_g8_eb");
  EXPECT_GT(estimate_time(c, key_of(1000, 1000, 1537, Precision::FP32), kH200).total_us,
            estimate_time(c, key_of(960, 960, 1537, Precision::FP32), kH200).total_us);
}

TEST(PerformanceModel, EveryCandidateOfTheReferenceShapesHasAFiniteEstimate) {
  for (Precision precision : {Precision::FP32, Precision::TF32x3, Precision::TF32})
    for (const ProblemKey& key : {key_of(256, 256, 524288, precision), key_of(2048, 4096, 8192, precision),
                                  key_of(3, 5, 7, precision), key_of(1, 1000, 1, precision)})
      for (const KernelConfig& c : tuning_candidates(key)) {
        const TimeEstimate e = estimate_time(c, key, kH200);
        EXPECT_TRUE(e.total_us > 0 && e.total_us < 1e9) << c.name() << " on " << key.canonical();
      }
  EXPECT_GE(estimate_time(KernelConfig{}, key_of(0, 5, 5, Precision::FP32), kH200).total_us, 1e9);
}

}  // namespace
}  // namespace jitgemm
