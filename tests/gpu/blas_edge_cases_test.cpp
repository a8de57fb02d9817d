// The BLAS edge cases through the public Runtime API, in every precision mode: M = 0 or N = 0
// touches nothing; K = 0 and alpha = 0 give C = beta * C (beta = 0: zeros over a NaN-filled C)
// without reading A and B, which are NaN-filled; C's padding is left as it was.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include "gpu_fixture.hpp"
#include "jitgemm/error.hpp"
#include "jitgemm/runtime.hpp"

namespace jitgemm::testing {
namespace {

constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();

bool same_bits(float x, float y) { return std::memcmp(&x, &y, sizeof x) == 0; }

class BlasEdgeCases : public ::testing::TestWithParam<Precision> {};

TEST_P(BlasEdgeCases, EmptyProductsAndAlphaZeroFollowBlas) {
  JITGEMM_REQUIRE_GPU();
  Runtime runtime(isolated_options("edge"));
  cuda::PrimaryContext context(0);
  context.make_current();
  constexpr int64_t kM = 70, kN = 33, kK = 65, kLdc = 40;  // C padded: columns 33..39 must stay
  std::vector<float> nan_operand(static_cast<size_t>(kK * 128), kNaN), c0(static_cast<size_t>(kM * kLdc));
  for (size_t i = 0; i < c0.size(); ++i) c0[i] = 0.25f * static_cast<float>(i % 97) - 7.0f;
  cuda::DeviceBuffer a(sizeof(float) * nan_operand.size()), b(sizeof(float) * nan_operand.size());
  cuda::DeviceBuffer c(sizeof(float) * c0.size());
  a.copy_from_host(nan_operand.data(), a.size());
  b.copy_from_host(nan_operand.data(), b.size());

  struct Case {
    const char* name;
    int64_t m, n, k;
    float alpha, beta;
    bool c_nan;  // C filled with NaN before the call (beta = 0 must not read it)
  };
  const Case cases[] = {
      {"K = 0, beta 0.5", kM, kN, 0, 1.0f, 0.5f, false},     {"K = 0, beta 0", kM, kN, 0, 1.0f, 0.0f, true},
      {"K = 0, alpha inf", kM, kN, 0, INFINITY, 2.0f, false}, {"alpha 0, beta -3", kM, kN, kK, 0.0f, -3.0f, false},
      {"alpha 0, beta 0", kM, kN, kK, 0.0f, 0.0f, true},      {"alpha 0, beta 1", kM, kN, kK, 0.0f, 1.0f, false},
      {"M = 0", 0, kN, kK, 1.0f, 0.5f, false},                {"N = 0", kM, 0, kK, 1.0f, 0.5f, false},
  };
  int cases_run = 0;
  for (const Case& tc : cases) {
    for (Op ta : {Op::N, Op::T}) {
      SCOPED_TRACE(::testing::Message() << tc.name << " trans_a " << to_string(ta));
      GemmProblem p;
      p.m = tc.m, p.n = tc.n, p.k = tc.k, p.trans_a = ta, p.alpha = tc.alpha, p.beta = tc.beta;
      p.ldc = tc.n == 0 ? 0 : kLdc;
      p.precision = GetParam();
      std::vector<float> before = c0;
      if (tc.c_nan)
        for (int64_t i = 0; i < kM; ++i)
          for (int64_t j = 0; j < kN; ++j) before[static_cast<size_t>(i * kLdc + j)] = kNaN;
      c.copy_from_host(before.data(), c.size());
      runtime.gemm(p, a.as<float>(), b.as<float>(), c.as<float>(), nullptr);
      std::vector<float> after(before.size());
      c.copy_to_host(after.data(), c.size());
      int wrong = 0;
      for (int64_t i = 0; i < kM; ++i)
        for (int64_t j = 0; j < kLdc; ++j) {
          const size_t at = static_cast<size_t>(i * kLdc + j);
          const bool written = i < tc.m && j < tc.n;
          const float expected = !written ? before[at] : tc.beta == 0.0f ? 0.0f : tc.beta * before[at];
          if (!same_bits(after[at], expected) && ++wrong <= 3)
            ADD_FAILURE() << "C[" << i << "][" << j << "] = " << after[at] << ", expected " << expected;
        }
      EXPECT_EQ(wrong, 0);
      ++cases_run;
    }
  }
  // Nothing is read or written for an empty C: null pointers are fine.
  GemmProblem empty;
  empty.m = 0, empty.n = 5, empty.k = 5, empty.precision = GetParam();
  EXPECT_NO_THROW(runtime.gemm(empty, nullptr, nullptr, nullptr, nullptr));
  // A negative size stays an error naming it.
  empty.m = -1;
  EXPECT_THROW(runtime.gemm(empty, a.as<float>(), b.as<float>(), c.as<float>(), nullptr), InvalidArgument);
  EXPECT_EQ(cases_run, 16);
}

INSTANTIATE_TEST_SUITE_P(AllModes, BlasEdgeCases,
                         ::testing::Values(Precision::FP32, Precision::TF32x3, Precision::TF32),
                         [](const auto& info) { return std::string(to_string(info.param)); });

}  // namespace
}  // namespace jitgemm::testing
