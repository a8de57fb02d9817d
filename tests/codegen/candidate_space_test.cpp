// The candidate space, its static pruning, the sample, the default and launch geometry.
#include "codegen/candidate_space.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "codegen/source_render.hpp"
#include "jitgemm/error.hpp"
#include "candidate_keys.hpp"

namespace jitgemm {
namespace {

using testing::contains;

ProblemKey key_of(int64_t m, int64_t n, int64_t k, Op ta = Op::N, Op tb = Op::N, int vec = 4) {
  ProblemKey key;
  key.m = m, key.n = n, key.k = k;
  key.trans_a = ta, key.trans_b = tb;
  key.vec_a = key.vec_b = key.vec_c = vec;
  return key;
}

std::vector<ProblemKey> keys_to_check() {
  std::vector<ProblemKey> keys;
  const int64_t sizes[][3] = {{4096, 4096, 4096}, {1, 1, 1},       {7, 7, 7},         {127, 127, 127},
                              {1537, 1537, 1537}, {7, 4096, 4096}, {4096, 64, 4096}, {256, 256, 524288},
                              {2048, 4096, 8192}};
  for (const auto& s : sizes)
    for (Op ta : {Op::N, Op::T})
      for (Op tb : {Op::N, Op::T})
        for (int vec : {4, 1}) keys.push_back(key_of(s[0], s[1], s[2], ta, tb, vec));
  return keys;
}

TEST(CandidateSpace, EveryCandidateIsValidAndThereAreEnough) {
  for (const ProblemKey& key : keys_to_check()) {
    const auto space = candidate_space(key);
    EXPECT_GE(space.size(), 24u) << key.canonical();
    std::set<std::string> names;
    for (const KernelConfig& c : space) {
      std::string why;
      EXPECT_TRUE(statically_valid(c, StaticLimits{}, &why)) << c.name() << ": " << why;
      EXPECT_LE(estimated_registers(c), 255) << c.name();
      EXPECT_LE(shared_memory_bytes(c), StaticLimits{}.max_smem_bytes) << c.name();
      EXPECT_TRUE(names.insert(c.name()).second) << "duplicate " << c.name();
    }
    EXPECT_TRUE(contains(space, default_config(key))) << key.canonical() << ": " << default_config(key).name();
  }
}

TEST(CandidateSpace, TilesFollowTheProblemSize) {
  for (const KernelConfig& c : candidate_space(key_of(7, 7, 7))) {
    EXPECT_EQ(c.block_m, 64) << c.name();
    EXPECT_EQ(c.block_n, 64) << c.name();
  }
  for (const KernelConfig& c : candidate_space(key_of(127, 4096, 64))) EXPECT_LE(c.block_m, 128) << c.name();
  const auto big = candidate_space(key_of(4096, 4096, 4096));
  EXPECT_TRUE(std::any_of(big.begin(), big.end(), [](const KernelConfig& c) { return c.block_m == 256; }));
  EXPECT_TRUE(std::any_of(big.begin(), big.end(), [](const KernelConfig& c) { return c.block_n == 256; }));
  EXPECT_TRUE(std::any_of(big.begin(), big.end(), [](const KernelConfig& c) { return c.simt().thread_n == 16; }));
  EXPECT_TRUE(std::any_of(big.begin(), big.end(), [](const KernelConfig& c) { return c.stages == 5; }));
  EXPECT_TRUE(std::any_of(big.begin(), big.end(), [](const KernelConfig& c) { return c.block_k == 32; }));
}

TEST(CandidateSpace, SpaceIsDeterministicAndSorted) {
  const auto a = candidate_space(key_of(4096, 4096, 4096));
  EXPECT_EQ(a, candidate_space(key_of(4096, 4096, 4096)));
  EXPECT_TRUE(std::is_sorted(a.begin(), a.end(),
                             [](const KernelConfig& x, const KernelConfig& y) { return x.name() < y.name(); }));
}

TEST(CandidateSpace, SampleIsSmallValidAndPartOfTheLargeSpace) {
  const ProblemKey key = key_of(4096, 4096, 4096);
  const auto sample = representative_sample(key);
  const auto space = candidate_space(key);
  EXPECT_GE(sample.size(), 5u);
  EXPECT_LE(sample.size(), 8u);  // 8 specializations x 8 configs: about 45 s of NVRTC on one core
  std::set<int> stages, block_k, frags_m, frags_n;
  std::set<bool> early_barrier;
  for (const KernelConfig& c : sample) {
    EXPECT_TRUE(contains(space, c)) << c.name();
    stages.insert(c.stages), block_k.insert(c.block_k), early_barrier.insert(c.simt().early_barrier);
    frags_m.insert(c.simt().thread_m / 4), frags_n.insert(c.simt().thread_n / 4);
  }
  EXPECT_TRUE(stages.contains(2) && stages.contains(5));
  EXPECT_EQ(block_k, (std::set<int>{8, 16, 32}));
  EXPECT_TRUE(frags_m.contains(1) && frags_m.contains(4) && frags_n.contains(1) && frags_n.contains(4));
  EXPECT_EQ(early_barrier, (std::set<bool>{false, true}));  // both placements of the slice barrier
}

// Every SIMT config comes with the slice barrier in either place (the tuner's choice), the two
// twins otherwise alike and distinct kernels.
TEST(CandidateSpace, EveryConfigComesWithEitherBarrierPlacement) {
  const auto space = candidate_space(key_of(2048, 2048, 2048));
  size_t early = 0;
  for (const KernelConfig& c : space) {
    KernelConfig twin = c;
    twin.simt().early_barrier = !c.simt().early_barrier;
    EXPECT_TRUE(contains(space, twin)) << c.name();
    EXPECT_NE(twin.name(), c.name());
    early += c.simt().early_barrier ? 1 : 0;
  }
  EXPECT_EQ(2 * early, space.size());
}

TEST(CandidateSpace, DefaultRule) {
  // The tile rule; the K split of the default is checked in the SplitK tests.
  const auto tile_name = [](const ProblemKey& key) {
    KernelConfig c = default_config(key);
    c.split_k = 1;
    return c.name();
  };
  const std::string mid = "simt_fp32_64x128x16_w1x4_t8x8_s3_k1_g8";
  const std::string small = "simt_fp32_64x64x8_w2x2_t4x8_s3_k1_g8";
  const std::string nn_tn = "simt_fp32_64x256x16_w1x8_t8x8_s3_k1_g8";
  EXPECT_EQ(tile_name(key_of(4096, 4096, 4096)), nn_tn);
  EXPECT_EQ(tile_name(key_of(2048, 4096, 8192, Op::T)), nn_tn);
  // The layout the kernel reads: 4096^3 NT and TT read transposed copies, as TN.
  EXPECT_EQ(tile_name(key_of(4096, 4096, 4096, Op::N, Op::T)), nn_tn);
  EXPECT_EQ(tile_name(key_of(4096, 4096, 4096, Op::T, Op::T)), nn_tn);
  EXPECT_EQ(tile_name(key_of(4096, 4096, 1000, Op::N, Op::T)), "simt_fp32_128x128x16_w4x2_t8x8_s3_k1_g8");
  EXPECT_EQ(tile_name(key_of(4096, 4096, 1000, Op::T, Op::T)), "simt_fp32_128x64x16_w4x1_t8x8_s3_k1_g8");
  EXPECT_EQ(tile_name(key_of(2048, 2048, 64)), mid);              // 256 CTAs of 64x256
  EXPECT_EQ(tile_name(key_of(2048, 2048, 64, Op::N, Op::T)), mid);  // 256 CTAs of 128x128
  EXPECT_EQ(tile_name(key_of(32768, 128, 64)), mid);              // too narrow for 256
  EXPECT_EQ(tile_name(key_of(7, 7, 7)), small);
  EXPECT_EQ(tile_name(key_of(4096, 64, 4096)), small);
  EXPECT_EQ(tile_name(key_of(1024, 1024, 64)), small);  // 64 CTAs of 64x256, 128 of 64x128, no split
  // A small output with a long K: the tiles times the K split count (64 x 8 CTAs; largeK 4 x 256).
  EXPECT_EQ(tile_name(key_of(1024, 1024, 1024)), nn_tn);
  // ... or, with a K long enough for one wave of its CTAs (each over >= 1024 of K) and B read
  // K x N, the largeK record's tile with the slice barrier a row early: 2 tiles x 66 slices.
  EXPECT_EQ(tile_name(key_of(256, 256, 524288)), "simt_fp32_128x256x8_w2x4_t8x16_s4_k1_g8_eb");
  EXPECT_EQ(default_config(key_of(256, 256, 524288)).split_k, 66);
  EXPECT_EQ(default_config(key_of(256, 256, 66 * 1024)).split_k, 66);
  EXPECT_EQ(tile_name(key_of(256, 256, 66 * 1024 - 1)), nn_tn);  // a CTA's K range under 1024
  EXPECT_EQ(default_config(key_of(128, 512, 524288)).split_k, 66);  // 1 x 2 tiles
  EXPECT_EQ(default_config(key_of(256, 256, 66 * 16384)).split_k, 66);  // slices of 16384: the longest
  // Not where its float32 sums would be longer or the output larger than where they were checked
  // (1000 x 1537 x 4096 TN, 2 slices of 2048: over the contract on the H200).
  EXPECT_NE(tile_name(key_of(256, 256, 66 * 16384 + 1)), "simt_fp32_128x256x8_w2x4_t8x16_s4_k1_g8_eb");
  EXPECT_NE(tile_name(key_of(512, 512, 524288)), "simt_fp32_128x256x8_w2x4_t8x16_s4_k1_g8_eb");
  EXPECT_NE(tile_name(key_of(1000, 1537, 4096, Op::T)), "simt_fp32_128x256x8_w2x4_t8x16_s4_k1_g8_eb");
  EXPECT_NE(tile_name(key_of(1000, 1537, 4096, Op::T, Op::N, 1)), "simt_fp32_128x256x8_w2x4_t8x16_s4_k1_g8_eb");
  EXPECT_EQ(tile_name(key_of(256, 256, 524288, Op::N, Op::T)), "simt_fp32_128x128x16_w4x2_t8x8_s3_k1_g8");
  EXPECT_EQ(tile_name(key_of(1537, 1537, 1537)), mid);  // 325 CTAs of 64x128 by the tiles alone
  for (const ProblemKey& key : keys_to_check())
    EXPECT_TRUE(contains(representative_sample(key), KernelConfig::parse(tile_name(key)))) << key.canonical();
}

TEST(CandidateSpace, TensorCorePrecisionsGetTheWgmmaFamilies) {
  // The fp32 space stays SIMT; tf32x3 and tf32 get their wgmma family (wgmma_candidates_test.cpp).
  for (const KernelConfig& c : candidate_space(key_of(64, 64, 64))) EXPECT_EQ(c.family(), KernelFamily::Simt);
  ProblemKey key = key_of(64, 64, 64);
  key.precision = Precision::TF32x3;
  EXPECT_EQ(default_config(key).family(), KernelFamily::Wgmma);
  EXPECT_EQ(default_config(key).precision, Precision::TF32x3);
  key.precision = Precision::TF32;
  EXPECT_EQ(default_config(key).family(), KernelFamily::Wgmma);
  EXPECT_EQ(default_config(key).precision, Precision::TF32);
}

TEST(StaticValidity, RejectionsSayWhy) {
  auto why_not = [](KernelConfig c, StaticLimits limits = {}) {
    std::string why;
    EXPECT_FALSE(statically_valid(c, limits, &why)) << c.name();
    return why;
  };
  KernelConfig c;
  EXPECT_TRUE(statically_valid(c, StaticLimits{}, nullptr));
  c.split_k = 3;  // any count of slices (a launch parameter)
  EXPECT_TRUE(statically_valid(c, StaticLimits{}, nullptr));
  c.split_k = 0;
  EXPECT_NE(why_not(c).find("split_k=0 is not in 1..256"), std::string::npos);
  c.split_k = 512;
  EXPECT_NE(why_not(c).find("split_k"), std::string::npos);
  c = KernelConfig{};
  c.block_k = 12;
  EXPECT_NE(why_not(c).find("block_k=12"), std::string::npos);
  c = KernelConfig{};
  c.simt().thread_m = 6;
  EXPECT_NE(why_not(c).find("float4"), std::string::npos);
  c = KernelConfig{};
  c.simt().warps_m = 8, c.simt().warps_n = 8;  // 2048 threads
  EXPECT_NE(why_not(c).find("threads"), std::string::npos);
  c = KernelConfig::parse("simt_fp32_256x128x32_w4x2_t8x16_s5_k1_g8");
  EXPECT_NE(why_not(c).find("shared memory"), std::string::npos);
  c = KernelConfig::parse("simt_fp32_256x256x8_w2x4_t16x16_s2_k1_g8");
  EXPECT_NE(why_not(c).find("registers"), std::string::npos);
  StaticLimits small;
  small.max_smem_bytes = 16 * 1024;
  EXPECT_NE(why_not(KernelConfig{}, small).find("exceeds"), std::string::npos);
  EXPECT_FALSE(statically_valid(c, StaticLimits{}, nullptr));  // why may be null
}

TEST(SharedMemory, MatchesTheTemplateLayout) {
  // STAGES x BLOCK_K x (row + pad to 4 mod 32) floats for A and for B.
  EXPECT_EQ(shared_memory_bytes(KernelConfig{}), 3u * 8 * (132 + 132) * 4);
  EXPECT_EQ(shared_memory_bytes(KernelConfig::parse("simt_fp32_64x256x32_w1x8_t8x8_s2_k1_g8")), 2u * 32 * (68 + 260) * 4);
}

TEST(LaunchGeometry, GridCoversTheOutput) {
  const KernelConfig c = KernelConfig::parse("simt_fp32_64x128x16_w2x2_t8x8_s3_k1_g8");
  const LaunchGeometry g = launch_geometry(c, 4096, 4096, 4096, kLargestHopperSms);
  EXPECT_EQ(g.grid_x, 64u * 32u);
  EXPECT_EQ(g.grid_y, 1u);
  EXPECT_EQ(g.grid_z, 1u);
  EXPECT_EQ(g.block_x, 128u);
  EXPECT_EQ(g.smem_bytes, shared_memory_bytes(c));
  EXPECT_EQ(launch_geometry(c, 1, 1, 1, kLargestHopperSms).grid_x, 1u);
  EXPECT_EQ(launch_geometry(c, 65, 129, 1, kLargestHopperSms).grid_x, 4u);
  EXPECT_THROW(launch_geometry(c, 0, 1, 1, kLargestHopperSms), InvalidArgument);
  EXPECT_THROW(launch_geometry(c, 1, 1, int64_t{1} << 31, kLargestHopperSms), InvalidArgument);
  try {
    launch_geometry(c, 64, -3, 1, kLargestHopperSms);
    FAIL();
  } catch (const InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find("N=-3"), std::string::npos) << e.what();
  }
}

TEST(SplitK, DefaultSplitKeepsSlicesShortWithinTheWorkspaceCap) {
  ProblemKey key;
  key.m = 1, key.n = 7, key.k = 4096;
  const KernelConfig small = default_config(key);
  EXPECT_EQ(small.split_k, 128);  // a small output: 32 values of K per slice
  key.m = key.n = 4096;
  EXPECT_EQ(default_config(key).split_k, 8);  // 8 x 4096^2 floats = the 512 MiB cap
  key.m = key.n = 64, key.k = 16;
  EXPECT_EQ(default_config(key).split_k, 1);  // short K: no split
  key.m = key.n = 1024, key.k = 512;
  const KernelConfig mid = default_config(key);
  EXPECT_EQ(mid.split_k, 4);  // 128 values of K per slice
  const auto space = candidate_space(key);
  EXPECT_NE(std::find(space.begin(), space.end(), mid), space.end());
  KernelConfig twice = mid;
  twice.split_k = 8;
  EXPECT_NE(std::find(space.begin(), space.end(), twice), space.end());
}

TEST(SplitK, ChoicesAddShortSplitsWhereTheDefaultSplitsEightOrMoreWays) {
  const ProblemKey mid_size = key_of(1537, 1537, 1537, Op::N, Op::N, 1);
  KernelConfig tile = default_config(mid_size);
  // 1537^3: the default splits 16 ways (128 values of K per slice); the space also has 2 and 4.
  EXPECT_EQ(default_split_k(mid_size, tile), 16);
  EXPECT_EQ(split_k_choices(mid_size, tile), (std::vector<int>{2, 4, 8, 16, 32}));
  const auto space = candidate_space(mid_size);
  for (int split : {1, 2, 4, 8, 16, 32}) {
    tile.split_k = split;
    EXPECT_TRUE(contains(space, tile)) << tile.name();
  }
  // A default of 4 or less keeps half, equal and twice (1024 x 1024 x 512: 4 -> 2, 4, 8), and
  // there, with 128 tiles, the splits that fill whole waves of 132 CTAs beside them (2 slices:
  // 1.9 waves -> 1 and 2 waves, 2 and 2 slices; 4: 3.9 -> 3 and 4 slices; 8: 7.8 -> 7 and 8
  // slices) ...
  EXPECT_EQ(split_k_choices(key_of(1024, 1024, 512), tile), (std::vector<int>{2, 3, 4, 7, 8}));
  // ... and a short K none.
  EXPECT_TRUE(split_k_choices(key_of(64, 64, 16), tile).empty());
  // largeK on 64 x 256 tiles (4 tiles; the rule's power of two, 256 slices, is 7.8 waves): the
  // record's 128 slices are 512 CTAs, 3.9 per SM; 99 and 132 slices fill 3 and 4 whole waves.
  const ProblemKey large_k = key_of(256, 256, 524288);
  tile.block_m = 64, tile.block_n = 256;
  EXPECT_EQ(split_k_choices(large_k, tile), (std::vector<int>{2, 4, 99, 128, 132, 231, 256}));
}

TEST(SplitK, TheDefaultFillsWholeWaves) {
  KernelConfig tile = default_config(key_of(256, 256, 2048));
  tile.block_m = 64, tile.block_n = 256;  // 4 output tiles of 256 x 256
  // 2048 / 32 = 64 slices are 256 CTAs, 1.9 waves of 132: up to 2 waves, 66 slices.
  EXPECT_EQ(default_split_k(key_of(256, 256, 2048), tile), 66);
  // largeK: 256 slices (7.8 waves); 8 waves would be 264 > 256 slices, so down to 7 waves.
  EXPECT_EQ(default_split_k(key_of(256, 256, 524288), tile), 231);
  // 1 x 7 x 127 on a 64 x 64 tile: 4 slices are less than a wave and stay.
  tile.block_m = tile.block_n = 64;
  EXPECT_EQ(default_split_k(key_of(1, 7, 127), tile), 4);
  // More than 8 waves stay a power of two (4096^2 outputs on 256 tiles of 256 x 256, 8 slices,
  // the 512 MiB cap: 2048 CTAs).
  tile.block_m = tile.block_n = 256;
  EXPECT_EQ(default_split_k(key_of(4096, 4096, 4096), tile), 8);
}

TEST(SplitK, SlicesAreALaunchParameterNotACompiledOne) {
  ProblemKey key;
  key.m = key.n = 64, key.k = 4096;
  KernelConfig c = default_config(key);
  ASSERT_GT(c.split_k, 1);
  EXPECT_EQ(launch_geometry(c, 64, 64, 4096, kLargestHopperSms).grid_y, static_cast<unsigned>(c.split_k));
  const RenderedKernel split = render_kernel(c, KernelSpecialization{});
  c.split_k = 1;
  const RenderedKernel plain = render_kernel(c, KernelSpecialization{});
  EXPECT_EQ(split.kernel_name, plain.kernel_name);
  EXPECT_EQ(split.source, plain.source);
  // 2..8 slices share a second kernel, the one that can finish the split itself
  // (simt_can_finish_split_k: SPLIT_K_FINISH = 1, "_fin").
  c.split_k = 2;
  const RenderedKernel two = render_kernel(c, KernelSpecialization{});
  c.split_k = 8;
  const RenderedKernel eight = render_kernel(c, KernelSpecialization{});
  EXPECT_EQ(two.kernel_name, plain.kernel_name + "_fin");
  EXPECT_EQ(two.source, eight.source);
  EXPECT_NE(two.source.find("constexpr int SPLIT_K_FINISH = 1;"), std::string::npos);
  EXPECT_NE(plain.source.find("constexpr int SPLIT_K_FINISH = 0;"), std::string::npos);
}

}  // namespace
}  // namespace jitgemm
