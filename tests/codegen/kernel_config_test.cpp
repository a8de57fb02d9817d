// KernelConfig names, parsing, specialization suffixes and the config hash.
#include "codegen/kernel_config.hpp"

#include <gtest/gtest.h>

#include <unordered_set>

#include "codegen/candidate_space.hpp"
#include "jitgemm/error.hpp"
#include "problem/problem_key.hpp"

namespace jitgemm {
namespace {

ProblemKey big_key() {
  ProblemKey key;
  key.m = key.n = key.k = 4096;
  return key;
}

TEST(KernelConfig, DefaultNameMatchesTheDocumentedForm) {
  EXPECT_EQ(KernelConfig{}.name(), "simt_fp32_128x128x8_w2x4_t8x8_s3_k1_g8");
}

TEST(KernelConfig, NameParseRoundTripsEveryCandidate) {
  for (const KernelConfig& c : candidate_space(big_key())) {
    const KernelConfig back = KernelConfig::parse(c.name());
    EXPECT_EQ(back, c) << c.name();
    EXPECT_EQ(back.name(), c.name());
  }
}

TEST(KernelConfig, ParseReadsEveryField) {
  const KernelConfig c = KernelConfig::parse("simt_fp32_256x64x32_w4x1_t16x8_s5_k2_g16");
  EXPECT_EQ(c.family(), KernelFamily::Simt);
  EXPECT_EQ(c.precision, Precision::FP32);
  EXPECT_EQ(c.block_m, 256);
  EXPECT_EQ(c.block_n, 64);
  EXPECT_EQ(c.block_k, 32);
  EXPECT_EQ(c.simt().warps_m, 4);
  EXPECT_EQ(c.simt().warps_n, 1);
  EXPECT_EQ(c.simt().thread_m, 16);
  EXPECT_EQ(c.simt().thread_n, 8);
  EXPECT_EQ(c.stages, 5);
  EXPECT_EQ(c.split_k, 2);
  EXPECT_EQ(c.raster_group, 16);
  EXPECT_EQ(c.threads(), 128);
}

TEST(KernelConfig, ParseRejectsDamagedNamesWithTheName) {
  for (const char* bad : {"", "simt_fp32", "simt_fp32_128x128x8", "simt_fp32_128x128x8_w2x4_t8x8_s3_k1",
                          "simt_fp32_128x128x8_w2x4_t8x8_s3_k1_g8_", "simt_fp32_128x128x8_w2x4_t8x8_s3_k1_g8x",
                          "simt_fp32_0x128x8_w2x4_t8x8_s3_k1_g8", "simt_fp32_-128x128x8_w2x4_t8x8_s3_k1_g8",
                          "tf99_128x128x8_w2x4_t8x8_s3_k1_g8", "simt_fp32_128x128x8_w2x4_t8x8_s3_k1_g99999999999"}) {
    try {
      KernelConfig::parse(bad);
      ADD_FAILURE() << "accepted '" << bad << "'";
    } catch (const InvalidArgument& e) {
      EXPECT_NE(std::string(e.what()).find(std::string("'") + bad + "'"), std::string::npos) << e.what();
    }
  }
}

TEST(KernelConfig, FamilyAndPrecisionNames) {
  EXPECT_EQ(to_string(KernelFamily::Simt), "simt");
  EXPECT_EQ(to_string(KernelFamily::MmaSync), "mma");
  EXPECT_EQ(to_string(KernelFamily::Wgmma), "wgmma");
  EXPECT_EQ(KernelConfig::parse("mma_tf32_64x64x32_w2x2_s3_a0_k4_g8").precision, Precision::TF32);
  EXPECT_EQ(KernelConfig::parse("wgmma_tf32x3_128x128x32_c2_s3_a32_b1_m0_g8").family(), KernelFamily::Wgmma);
  // A family that does not compute the precision, and an unknown precision, name themselves.
  for (const char* bad : {"simt_tf32_128x128x8_w2x4_t8x8_s3_k1_g8", "wgmma_fp32_128x128x32_c2_s3_a32_b1_m0_g8",
                          "mma_bf16_64x64x32_w2x2_s3_a0_k4_g8"}) {
    try {
      KernelConfig::parse(bad);
      ADD_FAILURE() << "accepted " << bad;
    } catch (const InvalidArgument& e) {
      EXPECT_NE(std::string(e.what()).find(bad), std::string::npos) << e.what();
    }
  }
}

TEST(KernelConfig, TheFamilysParametersAreTheOnlyOnes) {
  KernelConfig c = make_config(KernelFamily::Wgmma, Precision::TF32x3);
  EXPECT_NO_THROW(c.wgmma());
  EXPECT_THROW(c.simt(), std::bad_variant_access);
  EXPECT_THROW(c.mma_sync(), std::bad_variant_access);
  EXPECT_EQ(c.if_wgmma(), &c.wgmma());
  EXPECT_EQ(KernelConfig{}.if_wgmma(), nullptr);
  EXPECT_EQ(KernelConfig{}.family(), KernelFamily::Simt);
}

TEST(KernelSpecialization, Suffix) {
  EXPECT_EQ(KernelSpecialization{}.suffix(), "NN_v4v4v4");
  EXPECT_EQ((KernelSpecialization{Op::N, Op::T, 4, 1, 4}.suffix()), "NT_v4v1v4");
  EXPECT_EQ((KernelSpecialization{Op::T, Op::N, 1, 4, 1}.suffix()), "TN_v1v4v1");
}

TEST(KernelConfigHash, EqualConfigsHashEqualAndTheSpaceSpreads) {
  const auto space = candidate_space(big_key());
  KernelConfigHash hash;
  std::unordered_set<size_t> hashes;
  for (const KernelConfig& c : space) {
    EXPECT_EQ(hash(c), hash(KernelConfig::parse(c.name())));
    hashes.insert(hash(c));
  }
  EXPECT_EQ(hashes.size(), space.size());
}

}  // namespace
}  // namespace jitgemm
