// The C ABI: status codes plus a thread-local message; never an exception across it.
#include <gtest/gtest.h>

#include <string>

#include "jitgemm/jitgemm.h"
#include "support/test_support.hpp"

namespace {

TEST(CApi, NullArgumentsAreInvalid) {
  EXPECT_EQ(jitgemm_create(nullptr, 0, nullptr, nullptr), JITGEMM_INVALID_ARGUMENT);
  EXPECT_NE(std::string(jitgemm_last_error()).find("out is a null pointer"), std::string::npos);
  jitgemm_problem p = jitgemm_problem_default(8, 8, 8);
  EXPECT_EQ(jitgemm_gemm(nullptr, &p, nullptr, nullptr, nullptr, nullptr), JITGEMM_INVALID_ARGUMENT);
  EXPECT_NE(std::string(jitgemm_last_error()).find("runtime is a null pointer"), std::string::npos);
  EXPECT_EQ(jitgemm_tune(nullptr, &p, nullptr), JITGEMM_INVALID_ARGUMENT);
  EXPECT_EQ(jitgemm_destroy(nullptr), JITGEMM_SUCCESS);
}

TEST(CApi, DefaultProblemIsPlainFp32) {
  const jitgemm_problem p = jitgemm_problem_default(3, 4, 5);
  EXPECT_EQ(p.m, 3);
  EXPECT_EQ(p.alpha, 1.0f);
  EXPECT_EQ(p.beta, 0.0f);
  EXPECT_EQ(p.trans_a, JITGEMM_OP_N);
  EXPECT_EQ(p.precision, JITGEMM_PRECISION_FP32);
  EXPECT_STRNE(jitgemm_version(), "");
}

TEST(CApi, CreateFailsCleanlyWithoutAGpuAndValidatesWithOne) {
  std::string reason;
  jitgemm_runtime runtime = nullptr;
  const jitgemm_status status = jitgemm_create(&runtime, 0, "/nonexistent-dir/db.json", nullptr);
  if (!jitgemm::testing::gpu_available(&reason)) {
    EXPECT_EQ(status, JITGEMM_CUDA_ERROR);
    EXPECT_EQ(runtime, nullptr);
    EXPECT_STRNE(jitgemm_last_error(), "");
    return;
  }
  ASSERT_EQ(status, JITGEMM_SUCCESS) << jitgemm_last_error();
  jitgemm_problem p = jitgemm_problem_default(-1, 8, 8);
  float* fake = reinterpret_cast<float*>(0x1000);
  EXPECT_EQ(jitgemm_gemm(runtime, &p, fake, fake + 1024, fake + 4096, nullptr), JITGEMM_INVALID_ARGUMENT);
  EXPECT_NE(std::string(jitgemm_last_error()).find("M=-1 must be >= 0"), std::string::npos);
  p = jitgemm_problem_default(0, 8, 8);  // an empty C: nothing is touched (BLAS)
  EXPECT_EQ(jitgemm_gemm(runtime, &p, nullptr, nullptr, nullptr, nullptr), JITGEMM_SUCCESS) << jitgemm_last_error();
  p = jitgemm_problem_default(8, 8, 8);
  p.structure_a = JITGEMM_STRUCTURE_LOWER;
  EXPECT_EQ(jitgemm_gemm(runtime, &p, fake, fake + 1024, fake + 4096, nullptr), JITGEMM_NOT_SUPPORTED);
  EXPECT_EQ(jitgemm_destroy(runtime), JITGEMM_SUCCESS);
}

}  // namespace
