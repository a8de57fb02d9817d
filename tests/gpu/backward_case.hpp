// One gemm_backward case on the GPU, checked against the float64 gradients of its definition
// (support/backward_host.hpp) with the mode's accuracy contract: the cuBLAS baseline of each
// gradient (SGEMM for fp32 and tf32x3, TF32 for tf32) is the dense products it replaces, on
// the same inputs (dC with the fill applied, the dense matrices the operands stand for), then
// the projection.
//
// Inputs are made on the host: what a structure does not read (the other triangle, a unit
// diagonal), dC outside the fill and every padding hold NaN. dA and dB start as a sentinel;
// after the call their padding (columns past the row, up to ld) must still hold it, a skipped
// gradient's whole buffer too, and a projected one must be exactly 0 where the projection is.
#pragma once

#include <fmt/format.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "cuda/device_buffer.hpp"
#include "gpu_fixture.hpp"
#include "jitgemm/backward.hpp"
#include "jitgemm/runtime.hpp"
#include "problem/gemm_work.hpp"
#include "support/backward_host.hpp"
#include "support/structured_host.hpp"

namespace jitgemm::testing {

struct BackwardCase {
  std::string label;
  GemmProblem problem;
  BackwardOptions options;
  RandomKind kind = RandomKind::SignedNormal;
  uint64_t seed = 1;
  bool compute_da = true;
  bool compute_db = true;
  int64_t base_offset = 0;  // floats added to every base: 1 gives bases only 4-byte aligned
};

struct GradientResult {
  bool computed = false;
  double error = 0;         // relative Frobenius error against float64 (absolute when that is 0)
  double cublas_error = 0;  // of the baseline, against the same float64
  double tolerance = 0;
  int64_t non_finite = 0;       // NaN / Inf in the gradient
  int64_t padding_changed = 0;  // sentinel elements past the rows (or all of a skipped buffer) changed
  int64_t not_projected = 0;    // nonzero where the projection is zero
  // A gradient of fewer than kFewElements nonzero reference elements: its relative error is
  // the ratio of a few sums that may cancel (one element of a projected 257 x 1 gradient), not
  // a statistic; it may instead keep the elementwise float bound |got - ref| <= (inner + 2) u
  // sum |products| (u of the mode) at every element.
  int64_t reference_nonzeros = 0;
  int64_t over_elementwise_bound = -1;  // elements beyond that bound (-1: not computed)
  double sgemm_error = -1;              // tf32 with a baseline far off: cuBLAS SGEMM's error (diagnosis)
  // A baseline far off (> 1e-2) is computed once more and the second try counts; these say what
  // the first try was: its error and how many of its elements were 0 where the reference is not
  // (-1: no second try). Once, in a full suite on an H200 (ctest -j 4), a cuBLAS TF32 call left
  // its whole output unwritten (error 1) while SGEMM on the same inputs and three reruns were right.
  double first_cublas_error = -1;
  int64_t first_baseline_zeros = -1;

  static constexpr int64_t kFewElements = 16;
  bool few_elements() const { return reference_nonzeros < kFewElements; }
  bool within_contract() const {
    return (std::isfinite(error) && error <= tolerance) || (few_elements() && over_elementwise_bound == 0);
  }
  bool passes() const {
    return padding_changed == 0 && (!computed || (within_contract() && non_finite == 0 && not_projected == 0));
  }
  std::string describe() const {
    return fmt::format("error {:.3g} (cuBLAS {:.3g}, tolerance {:.3g}), {} non-finite, {} padding changed, {} not "
                       "projected, {} nonzero reference elements{}",
                       error, cublas_error, tolerance, non_finite, padding_changed, not_projected, reference_nonzeros,
                       few_elements() ? fmt::format(", {} over the elementwise bound", over_elementwise_bound) : "") +
           (sgemm_error >= 0 ? fmt::format(", cuBLAS SGEMM {:.3g}", sgemm_error) : "") +
           (first_cublas_error >= 0 ? fmt::format(", cuBLAS's first try {:.3g} ({} zeros where the reference is not)",
                                                  first_cublas_error, first_baseline_zeros)
                                    : "");
  }
};

struct BackwardResult {
  GradientResult da, db;
};

namespace detail {

inline constexpr float kSentinel = -1234.5f;

inline float draw(RandomKind kind, std::mt19937_64& rng) {
  switch (kind) {
    case RandomKind::Uniform01: return std::uniform_real_distribution<float>(0.0f, 1.0f)(rng);
    case RandomKind::WideExponent:
      return std::ldexp(std::uniform_real_distribution<float>(-1.0f, 1.0f)(rng), static_cast<int>(rng() % 41) - 20);
    case RandomKind::SignedNormal:
    case RandomKind::WithSpecials: break;
  }
  return std::normal_distribution<float>(0.0f, 1.0f)(rng);
}

// rows x cols with leading dimension ld: random where `read`, NaN elsewhere and in the padding.
template <class Read>
std::vector<float> stored_input(int64_t rows, int64_t cols, int64_t ld, RandomKind kind, std::mt19937_64& rng,
                                Read read) {
  std::vector<float> x(static_cast<size_t>(rows * ld), NAN);
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t j = 0; j < cols; ++j)
      if (read(i, j)) x[static_cast<size_t>(i * ld + j)] = draw(kind, rng);
  return x;
}

// What cuBLAS gets: the dense matrix `read` / `value` stand for, zeros in the padding.
template <class Value>
std::vector<float> dense_input(int64_t rows, int64_t cols, int64_t ld, Value value) {
  std::vector<float> x(static_cast<size_t>(rows * ld), 0.0f);
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t j = 0; j < cols; ++j) x[static_cast<size_t>(i * ld + j)] = static_cast<float>(value(i, j));
  return x;
}

// A device copy of a host matrix, `offset` floats into its allocation (null when empty).
struct DeviceMatrix {
  cuda::DeviceBuffer buffer;
  int64_t offset = 0;
  bool empty = true;

  DeviceMatrix(const std::vector<float>& host, int64_t off, bool is_empty)
      : buffer(4 * (host.size() + static_cast<size_t>(off)) + 256), offset(off), empty(is_empty) {
    buffer.copy_from_host(host.data(), 4 * host.size(), 4 * static_cast<size_t>(off));
  }
  float* get() const { return empty ? nullptr : buffer.as<float>() + offset; }
  std::vector<float> to_host(size_t count) const {
    std::vector<float> x(count);
    buffer.copy_to_host(x.data(), 4 * count, 4 * static_cast<size_t>(offset));
    return x;
  }
};

// ||x - ref|| / ||ref|| over the rows x cols region of x (leading dimension ld).
inline double relative_error(const std::vector<float>& x, int64_t ld, const HostMatrix& ref, int64_t* non_finite) {
  double diff = 0, norm = 0;
  for (int64_t i = 0; i < ref.rows; ++i)
    for (int64_t j = 0; j < ref.cols; ++j) {
      const double v = x[static_cast<size_t>(i * ld + j)], r = ref.at(i, j);
      if (!std::isfinite(v)) {
        if (non_finite != nullptr) ++*non_finite;
        continue;
      }
      diff += (v - r) * (v - r), norm += r * r;
    }
  if (norm == 0) return diff == 0 ? 0.0 : INFINITY;  // an all-zero gradient must come out exactly 0
  return std::sqrt(diff / norm);
}

// The gradient's cuBLAS baseline: the dense products of `g` (the transposed one added for a
// symmetric projection), then the fill and a unit diagonal zeroed on the host.
inline std::vector<float> cublas_gradient(const CublasHandle& cublas, const GradientProblem& g, const DeviceMatrix& dc,
                                          const DeviceMatrix& other, int64_t rows, int64_t ld, CUstream stream,
                                          CublasMode mode) {
  std::vector<float> out(static_cast<size_t>(rows * ld), 0.0f);
  const GemmProblem& p = g.product;
  if (gemm_work(p) != GemmWork::Product) return out;
  DeviceMatrix result(out, 0, false);
  const bool dc_first = g.dc_operand == DcOperand::First;
  const auto first = reinterpret_cast<CUdeviceptr>(dc_first ? dc.get() : other.get());
  const auto second = reinterpret_cast<CUdeviceptr>(dc_first ? other.get() : dc.get());
  const auto target = reinterpret_cast<CUdeviceptr>(result.get());
  cublas_sgemm(cublas, dense_problem(p), first, second, target, stream, mode);
  if (g.transposed_sum) cublas_sgemm(cublas, dense_problem(*g.transposed_sum), second, first, target, stream, mode);
  JITGEMM_CU(cuda::driver().cuStreamSynchronize(stream), "baseline");
  out = result.to_host(out.size());
  for (int64_t i = 0; i < p.m; ++i)
    for (int64_t j = 0; j < p.n; ++j)
      if (!kept(p.fill, i, j) || (g.zero_diagonal && i == j)) out[static_cast<size_t>(i * ld + j)] = 0.0f;
  return out;
}

}  // namespace detail

// Runs `c` through runtime.gemm_backward on the environment's stream and checks it.
inline BackwardResult run_backward_case(Runtime& runtime, GpuEnvironment& env, const CublasHandle& cublas,
                                        const BackwardCase& c) {
  using namespace detail;
  const GemmProblem& p = c.problem;
  std::mt19937_64 rng(c.seed);
  const StoredShape sa = stored_shape_a(p), sb = stored_shape_b(p);
  const int64_t lda = p.effective_lda(), ldb = p.effective_ldb(), ldc = p.effective_ldc();
  const auto a = stored_input(sa.rows, sa.cols, lda, c.kind, rng, [&](int64_t i, int64_t j) {
    return reads(p.structure_a, i, j);
  });
  const auto b = stored_input(sb.rows, sb.cols, ldb, c.kind, rng, [&](int64_t i, int64_t j) {
    return reads(p.structure_b, i, j);
  });
  const auto dc = stored_input(p.m, p.n, ldc, c.kind, rng, [&](int64_t i, int64_t j) { return kept(p.fill, i, j); });
  const HostGradients want = host_gradients(p, c.options, dc, a, b);
  // The same gradients of |dC|, |A|, |B| and |alpha|: sum |products| at every element.
  auto absolute = [](std::vector<float> x) {
    for (float& v : x) v = std::fabs(v);
    return x;
  };
  GemmProblem p_abs = p;
  p_abs.alpha = std::fabs(p.alpha);
  const HostGradients magnitude = host_gradients(p_abs, c.options, absolute(dc), absolute(a), absolute(b));

  const int64_t off = c.base_offset;
  const DeviceMatrix a_dev(a, off, sa.rows * sa.cols == 0), b_dev(b, off, sb.rows * sb.cols == 0),
      dc_dev(dc, off, p.m * p.n == 0);
  const std::vector<float> sentinel_a(static_cast<size_t>(sa.rows * lda), kSentinel),
      sentinel_b(static_cast<size_t>(sb.rows * ldb), kSentinel);
  const DeviceMatrix da_dev(sentinel_a, off, false), db_dev(sentinel_b, off, false);
  runtime.gemm_backward(p, dc_dev.get(), a_dev.get(), b_dev.get(), c.compute_da ? da_dev.get() : nullptr,
                        c.compute_db ? db_dev.get() : nullptr, reinterpret_cast<CUstream_st*>(env.stream()),
                        c.options);
  JITGEMM_CU(cuda::driver().cuStreamSynchronize(env.stream()), "gemm_backward");

  // The baselines read dense copies (what cuBLAS needs: no NaN in the unread parts).
  const DeviceMatrix a_dense(dense_input(sa.rows, sa.cols, lda, [&](int64_t i, int64_t j) {
                               return stands_for(p.structure_a, a.data(), lda, i, j);
                             }),
                             0, false),
      b_dense(dense_input(sb.rows, sb.cols, ldb,
                          [&](int64_t i, int64_t j) { return stands_for(p.structure_b, b.data(), ldb, i, j); }),
              0, false),
      dc_dense(dense_input(p.m, p.n, ldc,
                           [&](int64_t i, int64_t j) {
                             return kept(p.fill, i, j) ? dc[static_cast<size_t>(i * ldc + j)] : 0.0f;
                           }),
               0, false);
  const BackwardProblems grads = backward_problems(p, c.options);

  auto check = [&](bool computed, const DeviceMatrix& out, StoredShape shape, int64_t ld, const HostMatrix& ref,
                   const HostMatrix& abs_ref, int64_t inner, const GradientProblem& g, const DeviceMatrix& other,
                   Structure structure, bool projected) {
    GradientResult r;
    r.computed = computed;
    const std::vector<float> got = out.to_host(static_cast<size_t>(shape.rows * ld));
    for (int64_t i = 0; i < shape.rows; ++i)
      for (int64_t j = 0; j < ld; ++j) {
        const float v = got[static_cast<size_t>(i * ld + j)];
        if (!computed || j >= shape.cols) {
          r.padding_changed += v != kSentinel;
        } else if (projected && !is_symmetric(structure) && !reads(structure, i, j)) {
          r.not_projected += v != 0.0f;
        }
      }
    if (!computed) return r;
    r.error = relative_error(got, ld, ref, &r.non_finite);
    const double u = p.precision == Precision::TF32 ? 0x1p-11 : p.precision == Precision::TF32x3 ? 0x1p-22 : 0x1p-24;
    r.over_elementwise_bound = 0;
    for (int64_t i = 0; i < ref.rows; ++i)
      for (int64_t j = 0; j < ref.cols; ++j) {
        const double want_ij = ref.at(i, j), got_ij = got[static_cast<size_t>(i * ld + j)];
        r.reference_nonzeros += want_ij != 0.0;
        r.over_elementwise_bound += !(std::fabs(got_ij - want_ij) <= (inner + 2) * u * abs_ref.at(i, j));
      }
    auto baseline_error = [&] {
      const std::vector<float> baseline =
          cublas_gradient(cublas, g, dc_dense, other, shape.rows, ld, env.stream(), cublas_baseline(p.precision));
      int64_t zeros = 0;
      for (int64_t i = 0; i < ref.rows; ++i)
        for (int64_t j = 0; j < ref.cols; ++j)
          zeros += baseline[static_cast<size_t>(i * ld + j)] == 0.0f && ref.at(i, j) != 0.0;
      return std::pair(relative_error(baseline, ld, ref, nullptr), zeros);
    };
    int64_t zeros = 0;
    std::tie(r.cublas_error, zeros) = baseline_error();
    if (r.cublas_error > 1e-2) {  // a second try; a gradient formula gone wrong stays far off
      r.first_cublas_error = r.cublas_error, r.first_baseline_zeros = zeros;
      std::tie(r.cublas_error, zeros) = baseline_error();
    }
    if (r.cublas_error > 1e-2 && p.precision == Precision::TF32)  // diagnosis: the same products in FP32
      r.sgemm_error = relative_error(
          cublas_gradient(cublas, g, dc_dense, other, shape.rows, ld, env.stream(), CublasMode::Sgemm), ld, ref,
          nullptr);
    r.tolerance = error_tolerance(p.precision, r.cublas_error);
    return r;
  };
  // Inner dimensions: dA sums over N (twice for a symmetric projection), dB over M.
  return {check(c.compute_da, da_dev, sa, lda, want.da, magnitude.da, 2 * p.n, grads.da, b_dense, p.structure_a,
                c.options.project_a),
          check(c.compute_db, db_dev, sb, ldb, want.db, magnitude.db, 2 * p.m, grads.db, a_dense, p.structure_b,
                c.options.project_b)};
}

}  // namespace jitgemm::testing
