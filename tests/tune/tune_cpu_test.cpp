// Parts of the tuning stage that need no GPU: statistics and the accuracy contract.
#include <gtest/gtest.h>

#include <cmath>

#include "tune/accuracy_contract.hpp"
#include "tune/event_timer.hpp"

namespace jitgemm {
namespace {

TEST(Summarize, MedianAndPercentilesOfUnsortedSamples) {
  const TimingStats s = summarize({5, 1, 4, 2, 3});
  EXPECT_DOUBLE_EQ(s.median_ms, 3);
  EXPECT_DOUBLE_EQ(s.p10_ms, 1.4);
  EXPECT_DOUBLE_EQ(s.p90_ms, 4.6);
  EXPECT_EQ(s.runs, 5);
  EXPECT_DOUBLE_EQ(summarize({2, 1}).median_ms, 1.5);
  EXPECT_EQ(summarize({}).runs, 0);
}

TEST(AccuracyContract, Fp32AndTf32x3UseTwiceCublasOrFourUnitRoundoffs) {
  EXPECT_DOUBLE_EQ(error_tolerance(Precision::FP32, 3e-7), 6e-7);
  EXPECT_DOUBLE_EQ(error_tolerance(Precision::FP32, 1e-8), 4 * kUnitRoundoff);
  EXPECT_DOUBLE_EQ(error_tolerance(Precision::TF32x3, 1e-7), 4 * kUnitRoundoff);
  EXPECT_DOUBLE_EQ(error_tolerance(Precision::TF32, 1e-4), 4e-4);
}

TEST(AccuracyContract, NanUnwrittenAndPatternMismatchesNeverPass) {
  ErrorStats ok{1e-7, 0, 0};
  EXPECT_TRUE(ok.passes(2e-7));
  EXPECT_FALSE(ok.passes(5e-8));
  EXPECT_FALSE((ErrorStats{NAN, 0, 0}.passes(1.0)));
  EXPECT_FALSE((ErrorStats{1e-9, 1, 1}.passes(1.0)));
  EXPECT_FALSE((ErrorStats{1e-9, 0, 1}.passes(1.0)));
}

}  // namespace
}  // namespace jitgemm

#include "codegen/template_store.hpp"
#include "compile/compiler.hpp"

namespace jitgemm {
namespace {

// The helper kernels every tuning run and GPU test needs compile for sm_90a without a GPU.
TEST(SupportKernels, CompileForSm90a) {
  const Compiler compiler(std::nullopt);
  const auto outcome =
      compiler.compile(TemplateStore::active().expand_includes("support/tuning_kernels.cu"), "error_sums", {});
  ASSERT_TRUE(outcome.ok) << outcome.log;
  EXPECT_FALSE(outcome.kernel.resources.spills());
}

}  // namespace
}  // namespace jitgemm
