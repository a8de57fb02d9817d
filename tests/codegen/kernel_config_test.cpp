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
  EXPECT_EQ(c.family, KernelFamily::SimtFp32);
  EXPECT_EQ(c.block_m, 256);
  EXPECT_EQ(c.block_n, 64);
  EXPECT_EQ(c.block_k, 32);
  EXPECT_EQ(c.warps_m, 4);
  EXPECT_EQ(c.warps_n, 1);
  EXPECT_EQ(c.thread_m, 16);
  EXPECT_EQ(c.thread_n, 8);
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

TEST(KernelConfig, FamilyNames) {
  EXPECT_EQ(to_string(KernelFamily::SimtFp32), "simt_fp32");
  EXPECT_EQ(parse_kernel_family("simt_fp32"), KernelFamily::SimtFp32);
  EXPECT_THROW(parse_kernel_family("SIMT_FP32"), InvalidArgument);
  try {
    parse_kernel_family("wgmma", "record 3 family");
    FAIL();
  } catch (const InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find("record 3 family"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("simt_fp32"), std::string::npos) << e.what();
  }
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
