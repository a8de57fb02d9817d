// adapt_record_config: a tuned config carried over to a nearby problem of the same kind
// (served_config.hpp's contract: split re-derived, in-place reads dropped where the memory
// does not allow them, the result valid and runnable, else nullopt).
#include "codegen/served_config.hpp"

#include <gtest/gtest.h>

#include <array>
#include <random>

#include "codegen/candidate_space.hpp"
#include "codegen/kernel_family.hpp"
#include "codegen/wgmma_family.hpp"

namespace jitgemm {
namespace {

ProblemKey key_of(int64_t m, int64_t n, int64_t k, Precision p = Precision::FP32) {
  ProblemKey key;
  key.m = m, key.n = n, key.k = k, key.precision = p;
  return key;
}

TEST(AdaptRecordConfig, SimtAndMmaKeepTheirTilesWithTheSplitOfTheProblem) {
  for (const char* name : {"simt_fp32_128x128x8_w2x4_t8x8_s3_k4_g8", "mma_tf32x3_64x64x32_w2x2_s3_a32_k8_g8"}) {
    const KernelConfig tuned = KernelConfig::parse(name);
    const Precision p = tuned.precision;
    for (const ProblemKey& key : {key_of(64, 64, 8192, p), key_of(4096, 4096, 256, p), key_of(1000, 37, 1537, p)}) {
      const std::optional<KernelConfig> adapted = adapt_record_config(tuned, key);
      ASSERT_TRUE(adapted.has_value()) << name << " " << key.canonical();
      KernelConfig expected = tuned;
      expected.split_k = default_split_k(key, tuned);
      EXPECT_EQ(*adapted, expected) << name << " " << key.canonical();
    }
  }
}

TEST(AdaptRecordConfig, WgmmaThatRunsInPlaceIsUnchanged) {
  const KernelConfig rs = KernelConfig::parse("wgmma_tf32x3_128x128x32_c2_s3_a32_b1_m0_g8_rs");
  const ProblemKey key = key_of(4000, 4000, 4000, Precision::TF32x3);
  ASSERT_TRUE(wgmma_runs_in_place(rs, key));
  EXPECT_EQ(adapt_record_config(rs, key), rs);
}

// A tf32x3 record with blocks of 64 (its ~2.5e-7 error is over the contract's floor where cuBLAS
// is more accurate) serves a problem outside wgmma_blocks_of_64_allowed with blocks of 32.
TEST(AdaptRecordConfig, BlocksOf64BecomeBlocksOf32WhereTheyWouldMissTheContract) {
  const KernelConfig rst = KernelConfig::parse("wgmma_tf32x3_128x128x32_c2_s4_a64_b1_m0_g8_rst");
  const ProblemKey large = key_of(4096, 4096, 2048, Precision::TF32x3);
  ASSERT_TRUE(wgmma_blocks_of_64_allowed(large));
  EXPECT_EQ(adapt_record_config(rst, large), rst);
  for (const ProblemKey& key : {key_of(1110, 512, 900, Precision::TF32x3), key_of(4096, 4096, 1024, Precision::TF32x3),
                                key_of(2048, 1024, 4096, Precision::TF32x3)}) {
    ASSERT_FALSE(wgmma_blocks_of_64_allowed(key)) << key.canonical();
    const std::optional<KernelConfig> adapted = adapt_record_config(rst, key);
    ASSERT_TRUE(adapted.has_value()) << key.canonical();
    KernelConfig expected = rst;
    expected.wgmma().acc_block_k = 32;
    EXPECT_EQ(*adapted, expected) << key.canonical();
  }
}

TEST(AdaptRecordConfig, ARawOperandTmaCannotReadIsReadThroughThePrepass) {
  const KernelConfig rs = KernelConfig::parse("wgmma_tf32x3_128x128x32_c2_s3_a32_b1_m0_g8_rs");
  ProblemKey odd = key_of(4000, 4000, 4000, Precision::TF32x3);
  odd.vec_a = 1;  // A's rows are not 16-byte aligned
  ASSERT_FALSE(wgmma_runs_in_place(rs, odd));
  const std::optional<KernelConfig> adapted = adapt_record_config(rs, odd);
  ASSERT_TRUE(adapted.has_value());
  KernelConfig planes = rs;
  planes.wgmma().a = WgmmaA::Planes;
  EXPECT_EQ(*adapted, planes);
  EXPECT_TRUE(wgmma_runs_in_place(*adapted, odd));

  // Swapped: B is the raw operand, so an unaligned A does not matter but an unaligned B does.
  KernelConfig swapped = rs;
  swapped.wgmma().swap_ab = true;
  EXPECT_EQ(adapt_record_config(swapped, odd), swapped);
  odd.vec_b = 1;
  EXPECT_EQ(adapt_record_config(swapped, odd), planes);
}

TEST(AdaptRecordConfig, NulloptWhenThePlanesNoLongerFit) {
  // tf32x3 128x128 at 4 stages fits shared memory with one raw A tile per stage, not with A's
  // two planes.
  const KernelConfig rs = KernelConfig::parse("wgmma_tf32x3_128x128x32_c2_s4_a32_b1_m0_g8_rs");
  ASSERT_TRUE(statically_valid(rs, StaticLimits{}, nullptr));
  ProblemKey odd = key_of(4000, 4000, 4000, Precision::TF32x3);
  EXPECT_EQ(adapt_record_config(rs, odd), rs);
  odd.vec_a = 1;
  EXPECT_EQ(adapt_record_config(rs, odd), std::nullopt);
}

TEST(AdaptRecordConfig, AResultIsAlwaysValidRunnableAndKeepsTheTiles) {
  std::mt19937 rng(7);
  auto size = [&] { return std::int64_t{1} << std::uniform_int_distribution<int>(3, 14)(rng); };
  int adapted = 0;
  for (int i = 0; i < 60; ++i) {
    const Precision p = std::array{Precision::FP32, Precision::TF32x3, Precision::TF32}[i % 3];
    const ProblemKey tuned_for = key_of(size(), size(), size(), p);
    ProblemKey asked = key_of(size() + i, size(), size() - 1, p);
    asked.vec_a = i % 4 == 0 ? 1 : 4;
    asked.vec_b = i % 5 == 0 ? 1 : 4;
    for (const KernelConfig& tuned : tuning_sample(tuned_for)) {
      const std::optional<KernelConfig> result = adapt_record_config(tuned, asked);
      if (!result) continue;
      ++adapted;
      EXPECT_TRUE(statically_valid(*result, StaticLimits{}, nullptr)) << tuned.name() << " " << asked.canonical();
      EXPECT_TRUE(rules_of(*result).runs_in_place(*result, asked)) << tuned.name() << " " << asked.canonical();
      EXPECT_EQ(result->family(), tuned.family());
      EXPECT_EQ(result->block_m, tuned.block_m);
      EXPECT_EQ(result->block_n, tuned.block_n);
      EXPECT_EQ(result->block_k, tuned.block_k);
    }
  }
  EXPECT_GT(adapted, 100);
}

}  // namespace
}  // namespace jitgemm
