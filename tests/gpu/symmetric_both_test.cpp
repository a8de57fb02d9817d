// The symmetric reference problem (issue 11), both operands symmetric, through the public
// Runtime API in every mode: the same symmetric inputs declared symmetric (stored in the lower
// or the upper triangle, the other one NaN) and declared general (all of it read) each meet the
// mode's contract against float64 on those inputs (cuBLAS on the full operands sets it), leave
// C's padding untouched and write every element.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "cuda/context.hpp"
#include "cuda/device_buffer.hpp"
#include "gpu_fixture.hpp"
#include "jitgemm/runtime.hpp"
#include "support/structured_host.hpp"
#include "tune/accuracy_contract.hpp"
#include "tune/cublas_reference.hpp"

namespace jitgemm::testing {
namespace {

constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();

float random_value(RandomKind kind, std::mt19937_64& rng) {
  std::uniform_real_distribution<float> uniform(0.0f, 1.0f);
  switch (kind) {
    case RandomKind::SignedNormal: return std::normal_distribution<float>(0.0f, 1.0f)(rng);
    case RandomKind::WideExponent: return std::ldexp(2.0f * uniform(rng) - 1.0f, static_cast<int>(rng() % 61) - 30);
    default: return uniform(rng);
  }
}

// An n x n symmetric matrix with leading dimension ld, its padding NaN.
std::vector<float> symmetric_matrix(int64_t n, int64_t ld, RandomKind kind, std::mt19937_64& rng) {
  std::vector<float> x(static_cast<size_t>(n * ld), kNaN);
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j <= i; ++j)
      x[static_cast<size_t>(i * ld + j)] = x[static_cast<size_t>(j * ld + i)] = random_value(kind, rng);
  return x;
}

// `x` with NaN wherever an operand declared `s` is not read.
std::vector<float> unread_nan(std::vector<float> x, Structure s, int64_t n, int64_t ld) {
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < n; ++j)
      if (!reads(s, i, j)) x[static_cast<size_t>(i * ld + j)] = kNaN;
  return x;
}

template <class T>
cuda::DeviceBuffer upload(const std::vector<T>& host) {
  cuda::DeviceBuffer d(sizeof(T) * host.size());
  d.copy_from_host(host.data(), d.size());
  return d;
}

std::vector<double> widen(const std::vector<float>& x) { return {x.begin(), x.end()}; }

// Relative Frobenius error of C (n x n, leading dimension ld) against `reference`; infinity
// where an element is not finite or a padding column changed (reported as failures of `what`).
double relative_error(const cuda::DeviceBuffer& c, const std::vector<double>& reference, const std::vector<float>& c0,
                      int64_t n, int64_t ld, const char* what) {
  const std::vector<float> out = c.to_host_vector<float>(c0.size());
  double diff = 0, norm = 0;
  int bad = 0;
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < ld; ++j) {
      const size_t at = static_cast<size_t>(i * ld + j);
      if (j >= n) {
        if (std::memcmp(&out[at], &c0[at], sizeof(float)) != 0 && ++bad <= 3)
          ADD_FAILURE() << what << ": padding C[" << i << "][" << j << "] changed to " << out[at];
        continue;
      }
      if (!std::isfinite(out[at]) && ++bad <= 3) ADD_FAILURE() << what << ": C[" << i << "][" << j << "] = " << out[at];
      diff += (out[at] - reference[at]) * (out[at] - reference[at]);
      norm += reference[at] * reference[at];
    }
  return bad == 0 ? std::sqrt(diff / norm) : std::numeric_limits<double>::infinity();
}

struct SymmetricCase {
  int64_t n;
  Op ta, tb;
  Structure sa, sb;  // Symmetric or SymmetricUpper
  int64_t pad;       // added to every leading dimension
  float beta;        // 0: C is NaN before the call
  RandomKind kind;
};

class SymmetricBoth : public ::testing::TestWithParam<Precision> {};

TEST_P(SymmetricBoth, DeclaredSymmetricAndDeclaredGeneralMeetTheContract) {
  JITGEMM_REQUIRE_GPU();
  Runtime runtime(isolated_options("symmetric-both"));
  cuda::PrimaryContext context(0);
  context.make_current();
  CublasHandle cublas;
  const SymmetricCase cases[] = {
      {257, Op::N, Op::N, Structure::Symmetric, Structure::Symmetric, 0, 0.0f, RandomKind::Uniform01},
      {384, Op::T, Op::N, Structure::SymmetricUpper, Structure::Symmetric, 4, 0.25f, RandomKind::SignedNormal},
      {1000, Op::N, Op::T, Structure::Symmetric, Structure::SymmetricUpper, 0, 0.0f, RandomKind::WideExponent},
      {65, Op::T, Op::T, Structure::SymmetricUpper, Structure::SymmetricUpper, 3, 1.0f, RandomKind::SignedNormal},
      {1000, Op::N, Op::N, Structure::SymmetricUpper, Structure::SymmetricUpper, 0, 0.0f, RandomKind::Uniform01},
      {17, Op::N, Op::T, Structure::Symmetric, Structure::SymmetricUpper, 0, 0.5f, RandomKind::WideExponent},
      // tf32x3's default there reads A from its triangle in blocks of 64 (two stages of 32).
      {2080, Op::N, Op::N, Structure::Symmetric, Structure::SymmetricUpper, 0, 0.5f, RandomKind::SignedNormal},
  };
  std::mt19937_64 rng(0x5e11);
  for (const SymmetricCase& tc : cases) {
    const int64_t ld = tc.n + tc.pad;
    GemmProblem general;
    general.precision = GetParam();
    general.m = general.n = general.k = tc.n, general.trans_a = tc.ta, general.trans_b = tc.tb, general.beta = tc.beta;
    if (tc.pad != 0) general.lda = general.ldb = general.ldc = ld;
    GemmProblem declared = general;
    declared.structure_a = tc.sa, declared.structure_b = tc.sb;
    SCOPED_TRACE(declared.to_string());
    const std::vector<float> a = symmetric_matrix(tc.n, ld, tc.kind, rng), b = symmetric_matrix(tc.n, ld, tc.kind, rng);
    std::vector<float> c0(static_cast<size_t>(tc.n * ld), -7.5f);  // the padding keeps -7.5
    for (int64_t i = 0; i < tc.n; ++i)
      for (int64_t j = 0; j < tc.n; ++j)
        c0[static_cast<size_t>(i * ld + j)] = tc.beta == 0.0f ? kNaN : random_value(tc.kind, rng);
    const cuda::DeviceBuffer a_full = upload(a), b_full = upload(b);
    const cuda::DeviceBuffer a_declared = upload(unread_nan(a, tc.sa, tc.n, ld));
    const cuda::DeviceBuffer b_declared = upload(unread_nan(b, tc.sb, tc.n, ld));
    const cuda::DeviceBuffer a64 = upload(widen(a)), b64 = upload(widen(b)), c64 = upload(widen(c0));
    cublas_dgemm(cublas, general, a64.get(), b64.get(), c64.get(), nullptr);
    const std::vector<double> reference = c64.to_host_vector<double>(c0.size());
    cuda::DeviceBuffer c_cublas = upload(c0), c_declared = upload(c0), c_general = upload(c0);
    cublas_sgemm(cublas, general, a_full.get(), b_full.get(), c_cublas.get(), nullptr, cublas_baseline(GetParam()));
    const double tolerance =
        error_tolerance(GetParam(), relative_error(c_cublas, reference, c0, tc.n, ld, "cuBLAS"));
    runtime.gemm(declared, a_declared.as<float>(), b_declared.as<float>(), c_declared.as<float>(), nullptr);
    runtime.gemm(general, a_full.as<float>(), b_full.as<float>(), c_general.as<float>(), nullptr);
    const double declared_error = relative_error(c_declared, reference, c0, tc.n, ld, "declared symmetric");
    const double general_error = relative_error(c_general, reference, c0, tc.n, ld, "declared general");
    EXPECT_LE(declared_error, tolerance) << "declared symmetric; declared general: " << general_error;
    EXPECT_LE(general_error, tolerance) << "declared general; declared symmetric: " << declared_error;
  }
}

INSTANTIATE_TEST_SUITE_P(AllModes, SymmetricBoth,
                         ::testing::Values(Precision::FP32, Precision::TF32x3, Precision::TF32),
                         [](const auto& info) { return std::string(to_string(info.param)); });

}  // namespace
}  // namespace jitgemm::testing
