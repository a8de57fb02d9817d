// The mma.sync (mma_tf32x3, mma_tf32) candidate space: validity, pruning, names, defaults,
// the sample, which problems get the family (tuning_candidates, untuned_config), launch
// geometry and rendering.
#include "codegen/candidate_space.hpp"
#include "codegen/mma_sync_family.hpp"

#include <gtest/gtest.h>

#include <fmt/format.h>

#include <algorithm>
#include <set>
#include <unordered_set>

#include "codegen/source_render.hpp"
#include "common/hash.hpp"
#include "jitgemm/error.hpp"
#include "candidate_keys.hpp"

namespace jitgemm {
namespace {

using testing::contains;
using testing::key_of;

// Problems where the wgmma kernels do not pay: small, skinny, short K, long K.
std::vector<ProblemKey> small_keys() {
  std::vector<ProblemKey> keys;
  const int64_t sizes[][3] = {{1, 1, 1},     {7, 64, 127},    {127, 127, 127},   {4096, 64, 4096},
                              {1000, 37, 1537}, {64, 256, 524288}, {16384, 16384, 65536}, {2048, 2048, 64}};
  for (Precision p : {Precision::TF32x3, Precision::TF32})
    for (const auto& s : sizes)
      for (Op ta : {Op::N, Op::T}) keys.push_back(key_of(p, s[0], s[1], s[2], ta, Op::T));
  return keys;
}

KernelConfig with_split(KernelConfig c, int split) {
  c.split_k = split;
  return c;
}

TEST(MmaSyncCandidates, EveryCandidateIsStaticallyValidAndOfTheMode) {
  for (const ProblemKey& key : small_keys()) {
    const auto space = mma_candidate_space(key);
    EXPECT_GE(space.size(), 4u) << key.canonical();
    std::set<std::string> names;
    for (const KernelConfig& c : space) {
      std::string why;
      EXPECT_TRUE(statically_valid(c, StaticLimits{}, &why)) << c.name() << ": " << why;
      EXPECT_EQ(c.family(), KernelFamily::MmaSync) << c.name();
      EXPECT_EQ(c.precision, key.precision) << c.name();
      EXPECT_LE(estimated_registers(c), 255) << c.name();
      names.insert(c.name());
    }
    EXPECT_EQ(names.size(), space.size()) << key.canonical();
    EXPECT_TRUE(std::is_sorted(space.begin(), space.end(),
                               [](const KernelConfig& a, const KernelConfig& b) { return a.name() < b.name(); }));
    EXPECT_TRUE(contains(space, mma_default_config(key))) << key.canonical() << ": " << mma_default_config(key).name();
  }
}

TEST(MmaSyncCandidates, PrunedToTheProblemAndItsSplits) {
  // A 7 x 64 output keeps only the 64-row and 64-column tiles; a large one has all five layouts
  // (tf32x3: the three with 32x32 warp tiles).
  for (const KernelConfig& c : mma_candidate_space(key_of(Precision::TF32x3, 7, 64, 127)))
    EXPECT_TRUE(c.block_m == 64 && c.block_n == 64) << c.name();
  const auto layouts_of = [](const std::vector<KernelConfig>& space) {
    std::set<std::string> layouts;
    for (const KernelConfig& c : space)
      layouts.insert(fmt::format("{}x{}_w{}x{}", c.block_m, c.block_n, c.mma_sync().warps_m, c.mma_sync().warps_n));
    return layouts.size();
  };
  const auto big = mma_candidate_space(key_of(Precision::TF32x3, 4096, 4096, 64));
  EXPECT_EQ(layouts_of(big), 3u);
  EXPECT_EQ(layouts_of(mma_candidate_space(key_of(Precision::TF32, 4096, 4096, 64))), 5u);
  EXPECT_LE(big.size(), 80u);  // a pruned space: tiles x block_k x stages x blocks x splits {1, 2}
  // tf32x3 is always blocked, blocks inside a slice; tf32 unblocked or blocks of block_k.
  for (const KernelConfig& c : big) EXPECT_TRUE(c.mma_sync().acc_block_k > 0 && c.block_k % c.mma_sync().acc_block_k == 0) << c.name();
  for (const KernelConfig& c : mma_candidate_space(key_of(Precision::TF32, 4096, 4096, 64)))
    EXPECT_TRUE(c.mma_sync().acc_block_k == 0 || c.mma_sync().acc_block_k == c.block_k) << c.name();
  // Long K on a small output: split 1 and the split_k_choices of each tile.
  const ProblemKey long_k = key_of(Precision::TF32x3, 64, 64, 4096);
  const auto space = mma_candidate_space(long_k);
  const KernelConfig d = mma_default_config(long_k);
  EXPECT_EQ(d.split_k, default_split_k(long_k, d));
  EXPECT_GT(d.split_k, 1);
  for (int split : {1, d.split_k / 2, d.split_k}) EXPECT_TRUE(contains(space, with_split(d, split))) << split;
  EXPECT_FALSE(contains(space, with_split(d, 2 * d.split_k)));  // slices shorter than block_k
  EXPECT_LE(space.size(), 40u);
}

TEST(MmaSyncCandidates, DefaultsBySize) {
  EXPECT_EQ(mma_default_config(key_of(Precision::TF32x3, 1, 1, 1)).name(), "mma_tf32x3_64x64x32_w2x2_s3_a32_k1_g8");
  EXPECT_EQ(mma_default_config(key_of(Precision::TF32, 127, 127, 127)).name(), "mma_tf32_64x64x32_w2x2_s3_a0_k4_g8");
  // Large outputs with short or long K (where wgmma does not pay): 128 x 128 tiles.
  EXPECT_EQ(mma_default_config(key_of(Precision::TF32x3, 2048, 2048, 64)).name(),
            "mma_tf32x3_128x64x32_w4x2_s3_a32_k1_g8");
  EXPECT_EQ(mma_default_config(key_of(Precision::TF32, 2048, 2048, 64)).name(), "mma_tf32_128x128x32_w2x4_s3_a0_k1_g8");
  EXPECT_EQ(mma_default_config(key_of(Precision::TF32, 4096, 4096, 16384)).split_k, 8);  // the workspace cap
  EXPECT_THROW(mma_default_config(key_of(Precision::FP32, 64, 64, 64)), NotSupported);
}

TEST(MmaSyncCandidates, SampleIsValidSmallAndHoldsTheDefaultTiles) {
  for (Precision p : {Precision::TF32x3, Precision::TF32}) {
    const auto sample = mma_representative_sample(key_of(p, 64, 64, 64));
    EXPECT_GE(sample.size(), 4u);
    EXPECT_LE(sample.size(), 5u);  // x 8 specializations of the compile test: about 30 s of NVRTC
    for (const KernelConfig& c : sample) {
      std::string why;
      EXPECT_TRUE(statically_valid(c, StaticLimits{}, &why)) << c.name() << ": " << why;
      EXPECT_EQ(c.family(), KernelFamily::MmaSync);
      EXPECT_EQ(c.precision, p);
      EXPECT_EQ(c.split_k, 1) << c.name();
    }
    for (const ProblemKey& key : small_keys())
      if (key.precision == p) EXPECT_TRUE(contains(sample, with_split(mma_default_config(key), 1))) << key.canonical();
  }
}

TEST(MmaSyncCandidates, TensorCoreModesGetTheMmaFamilyWhereWgmmaDoesNotPay) {
  for (const ProblemKey& key : small_keys()) {
    ASSERT_FALSE(tensor_cores_pay(key)) << key.canonical();
    const auto all = tuning_candidates(key);
    // tf32 also gets the tf32x3 mma kernels, and both modes the fp32 ones: cuBLAS's TF32 mode
    // computes such shapes in FP32, so the tf32 contract asks for FP32 accuracy there, and a
    // few-element tf32x3 output may miss it (candidate_space.hpp).
    const bool tf32 = key.precision == Precision::TF32;
    ProblemKey x3 = key, fp32 = key;
    x3.precision = Precision::TF32x3;
    fp32.precision = Precision::FP32;
    bool has_mma = false, has_wgmma = false, has_x3_mma = false, has_simt = false;
    for (const KernelConfig& c : all) {
      if (tf32 && c.family() == KernelFamily::MmaSync && c.precision == Precision::TF32x3)
        has_x3_mma = true;
      else if (c.family() == KernelFamily::Simt)
        has_simt = true;
      else
        EXPECT_EQ(c.precision, key.precision) << c.name();
      has_mma |= c.family() == KernelFamily::MmaSync;
      has_wgmma |= c.family() == KernelFamily::Wgmma;
    }
    EXPECT_TRUE(has_mma && has_wgmma) << key.canonical();
    EXPECT_EQ(has_x3_mma, tf32) << key.canonical();
    EXPECT_TRUE(has_simt) << key.canonical();
    const KernelConfig untuned = untuned_config(key);
    // The tf32x3 kernel in both modes, except fp32 for outputs of at most 2^16 elements.
    if (key.m * key.n <= 65536)
      EXPECT_EQ(untuned, default_config(fp32)) << key.canonical();
    else
      EXPECT_EQ(untuned, mma_default_config(x3)) << key.canonical();
    EXPECT_TRUE(contains(all, untuned)) << key.canonical() << ": " << untuned.name();
    const auto sample = tuning_sample(key);
    EXPECT_TRUE(std::any_of(sample.begin(), sample.end(), [](const KernelConfig& c) { return c.family() == KernelFamily::MmaSync; }));
  }
  // Where wgmma pays, and in fp32, nothing changes.
  for (Precision p : {Precision::FP32, Precision::TF32x3, Precision::TF32}) {
    const ProblemKey key = key_of(p, 4096, 4096, 4096);
    EXPECT_EQ(tuning_candidates(key), candidate_space(key));
    EXPECT_EQ(tuning_sample(key), representative_sample(key));
    EXPECT_EQ(untuned_config(key), default_config(key));
  }
  const ProblemKey fp32_small = key_of(Precision::FP32, 7, 7, 7);
  EXPECT_EQ(untuned_config(fp32_small).family(), KernelFamily::Simt);
  EXPECT_EQ(tuning_candidates(fp32_small), candidate_space(fp32_small));
}

TEST(MmaSyncCandidates, NameParseRoundTripsAndHashesSpread) {
  KernelConfigHash hash;
  std::unordered_set<size_t> hashes;
  size_t count = 0;
  for (const ProblemKey& key : {key_of(Precision::TF32x3, 256, 256, 524288), key_of(Precision::TF32, 1024, 1024, 16384)})
    for (const KernelConfig& c : mma_candidate_space(key)) {
      EXPECT_EQ(KernelConfig::parse(c.name()), c) << c.name();
      EXPECT_EQ(KernelConfig::parse(c.name()).name(), c.name());
      hashes.insert(hash(c));
      ++count;
    }
  EXPECT_EQ(hashes.size(), count);
  const KernelConfig c = KernelConfig::parse("mma_tf32x3_128x64x16_w4x2_s4_a16_k8_g4");
  EXPECT_EQ(c.family(), KernelFamily::MmaSync);
  EXPECT_EQ(c.precision, Precision::TF32x3);
  EXPECT_EQ(c.block_m, 128);
  EXPECT_EQ(c.block_n, 64);
  EXPECT_EQ(c.block_k, 16);
  EXPECT_EQ(c.mma_sync().warps_m, 4);
  EXPECT_EQ(c.mma_sync().warps_n, 2);
  EXPECT_EQ(c.stages, 4);
  EXPECT_EQ(c.mma_sync().acc_block_k, 16);
  EXPECT_EQ(c.split_k, 8);
  EXPECT_EQ(c.raster_group, 4);
  EXPECT_EQ(c.threads(), 256);
  EXPECT_EQ(KernelConfig::parse("mma_tf32_64x64x32_w2x2_s3_a0_k1_g8").family(), KernelFamily::MmaSync);
  EXPECT_EQ(KernelConfig::parse("mma_tf32_64x64x32_w2x2_s3_a0_k1_g8").precision, Precision::TF32);
  EXPECT_EQ(to_string(KernelFamily::MmaSync), "mma");
  for (const char* bad : {"mma_tf32x3_128x128x32", "mma_tf32x3_128x128x32_w2x4_s3_a32_k1",
                          "mma_tf32x3_128x128x32_c2_s3_a32_b1_m0_g8", "mma_tf32x3_128x128x32_w2x4_t8x8_s3_k1_g8",
                          "mma_tf32_128x128x32_w2x4_s3_a-1_k1_g8", "mma_tf32x4_128x128x32_w2x4_s3_a32_k1_g8"})
    EXPECT_THROW(KernelConfig::parse(bad), InvalidArgument) << bad;
}

TEST(MmaSyncCandidates, StaticValidityMirrorsTheTemplate) {
  const auto why_not = [](const std::string& name) {
    std::string why;
    EXPECT_FALSE(statically_valid(KernelConfig::parse(name), StaticLimits{}, &why)) << name;
    return why;
  };
  EXPECT_TRUE(statically_valid(KernelConfig::parse("mma_tf32_128x128x32_w2x4_s3_a0_k1_g8"), {}, nullptr));
  EXPECT_NE(why_not("mma_tf32x3_128x128x32_w2x4_s3_a32_k1_g8").find("spills"), std::string::npos);
  EXPECT_NE(why_not("mma_tf32_128x128x32_w4x2_s3_a32_k1_g8").find("spills"), std::string::npos);
  EXPECT_NE(why_not("mma_tf32x3_96x128x32_w2x4_s3_a32_k1_g8").find("block_m=96"), std::string::npos);
  EXPECT_NE(why_not("mma_tf32x3_128x128x24_w2x4_s3_a8_k1_g8").find("block_k=24"), std::string::npos);
  EXPECT_NE(why_not("mma_tf32x3_128x128x32_w3x4_s3_a32_k1_g8").find("powers of two"), std::string::npos);
  EXPECT_NE(why_not("mma_tf32x3_64x64x32_w8x2_s3_a32_k1_g8").find("16 x 8 products"), std::string::npos);
  EXPECT_NE(why_not("mma_tf32x3_128x128x32_w2x4_s3_a0_k1_g8").find("blocks"), std::string::npos);
  EXPECT_NE(why_not("mma_tf32_128x128x32_w2x4_s3_a64_k1_g8").find("divides block_k"), std::string::npos);
  EXPECT_NE(why_not("mma_tf32x3_128x128x32_w2x4_s3_a32_k300_g8").find("split_k=300"), std::string::npos);
  EXPECT_NE(why_not("mma_tf32x3_256x256x64_w4x8_s4_a32_k1_g8").find("shared memory"), std::string::npos);
  EXPECT_NE(why_not("mma_tf32x3_64x128x32_w2x2_s3_a32_k1_g8").find("registers"), std::string::npos);  // spilled
  // Another family's fields cannot be set on an mma config (KernelConfig::params), and the
  // family computes tensor-core precisions only.
  KernelConfig c = KernelConfig::parse("mma_tf32_64x64x32_w2x2_s3_a0_k1_g8");
  EXPECT_THROW(c.simt(), std::bad_variant_access);
  c.precision = Precision::FP32;
  std::string why;
  EXPECT_FALSE(statically_valid(c, {}, &why));
  EXPECT_NE(why.find("fp32"), std::string::npos) << why;
}

TEST(MmaSyncCandidates, SharedMemoryAndLaunchLikeSimt) {
  // Per slice max(X x (BK + 8), BK x (X + 4)) floats for A and for B.
  const KernelConfig c = KernelConfig::parse("mma_tf32x3_128x64x32_w4x2_s3_a32_k4_g8");
  EXPECT_EQ(shared_memory_bytes(c), 3u * (128 * 40 + 64 * 40) * 4);
  const LaunchGeometry g = launch_geometry(c, 1000, 100, 4096, kLargestHopperSms);
  EXPECT_EQ(g.grid_x, 8u * 2u);
  EXPECT_EQ(g.grid_y, 4u);  // split-K slices
  EXPECT_EQ(g.block_x, 256u);
  EXPECT_EQ(g.smem_bytes, shared_memory_bytes(c));
}

TEST(MmaSyncCandidates, RenderedKernelCarriesTheConstantsAndTheSpecialization) {
  const KernelConfig c = KernelConfig::parse("mma_tf32x3_128x64x16_w4x2_s4_a16_k8_g4");
  const RenderedKernel r = render_kernel(c, KernelSpecialization{Op::T, Op::N, 1, 4, 1});
  EXPECT_EQ(r.kernel_name, "jitgemm_mma_tf32x3_128x64x16_w4x2_s4_a16_k1_g4_TN_v1v4v1");  // split is launch-time
  for (const char* line : {"constexpr int TF32X3 = 1;", "constexpr int BLOCK_M = 128, BLOCK_N = 64, BLOCK_K = 16;",
                           "constexpr int WARPS_M = 4, WARPS_N = 2;", "constexpr int ACC_BLOCK_K = 16;",
                           "constexpr int TRANS_A = 1, TRANS_B = 0;", "constexpr int VEC_A = 1, VEC_B = 4, VEC_C = 1;"})
    EXPECT_NE(r.source.find(line), std::string::npos) << line;
  EXPECT_NE(r.source.find(fmt::format("constexpr int SMEM_BYTES = {};", shared_memory_bytes(c))), std::string::npos);
  EXPECT_EQ(r.threads, 256);
  EXPECT_EQ(template_path(KernelFamily::MmaSync), "tf32/mma_sync_gemm.cu");
  EXPECT_EQ(r.template_hash, family_template_hash(TemplateStore::active(), KernelFamily::MmaSync));
  const RenderedKernel x1 = render_kernel(KernelConfig::parse("mma_tf32_64x64x32_w2x2_s3_a0_k1_g8"), {});
  EXPECT_NE(x1.source.find("constexpr int TF32X3 = 0;"), std::string::npos);
  EXPECT_EQ(x1.template_hash, r.template_hash);  // one template, two families
  EXPECT_THROW(render_kernel(KernelConfig::parse("mma_tf32_64x64x32_w2x2_s3_a64_k1_g8"), {}), InvalidArgument);
}

}  // namespace
}  // namespace jitgemm
