// tflops: the useful work rate of a product.
#include "problem/flop_rate.hpp"

#include <gtest/gtest.h>

namespace jitgemm {
namespace {

TEST(FlopRate, TwoMnkOverTheTime) {
  GemmProblem p;
  p.m = p.n = p.k = 4096;
  EXPECT_NEAR(tflops(p, 2.685), 51.19, 0.01);  // the cuBLAS SGEMM baseline of the symmetric problem
  p.m = 1000, p.n = 2000, p.k = 3;             // 1.2e7 flops in 1 ms: 0.012 TFLOP/s
  EXPECT_DOUBLE_EQ(tflops(p, 1.0), 0.012);
  EXPECT_EQ(tflops(p, 0.0), 0.0);  // never timed
}

}  // namespace
}  // namespace jitgemm
