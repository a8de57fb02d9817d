// What the GPU tests share: one context, cuBLAS, the helper kernels, and a case runner
// that checks a float32 result against float64 and cuBLAS SGEMM on the same inputs.
#pragma once

#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <functional>
#include <memory>
#include <string>

#include "codegen/template_store.hpp"
#include "compile/compiler.hpp"
#include "cuda/context.hpp"
#include "cuda/device_buffer.hpp"
#include "cuda/device_info.hpp"
#include "cuda/driver_api.hpp"
#include "cuda/stream.hpp"
#include "jitgemm/problem.hpp"
#include "jitgemm/runtime.hpp"
#include "problem/operand_structure.hpp"
#include "problem/stored_shape.hpp"
#include "support/test_support.hpp"
#include "tune/accuracy_contract.hpp"
#include "tune/cublas_reference.hpp"
#include "tune/support_kernels.hpp"

namespace jitgemm::testing {

// Options for a Runtime of its own: an empty database of the tag (the default heuristic
// serves) and a binary cache of its own.
inline RuntimeOptions isolated_options(const std::string& tag) {
  RuntimeOptions options;
  options.database_path = temp_dir(tag) + "/tuning.json";
  options.cache_dir = temp_dir(tag + "-cache");
  return options;
}

struct CaseResult {
  ErrorStats ours;
  double cublas_error = 0;
  double tolerance = 0;
};

class GpuEnvironment {
 public:
  GpuEnvironment()
      : context_(0), info_(cuda::query_device(0)), compiler_(std::filesystem::path(temp_dir("gpu-cache"))),
        support_(compiler_, TemplateStore::active()) {}

  const cuda::DeviceInfo& info() const { return info_; }
  const Compiler& compiler() const { return compiler_; }
  CUstream stream() const { return stream_.get(); }
  const SupportKernels& support() const { return support_; }

  // Fills fresh operands (padding NaN, C random or NaN when beta == 0), runs `run` on
  // them, and compares with float64 and the mode's cuBLAS baseline on the same inputs
  // (SGEMM for fp32 and tf32x3, TF32 for tf32). Structured operands (p.structure_a/b):
  // the float64 reference and cuBLAS get the dense matrices they stand for (symmetric ones
  // are filled symmetric; triangular ones zeroed outside their triangle, a unit diagonal
  // 1), both with p.fill applied to their result; before `run`, everything the structure
  // does not read becomes NaN (so a kernel that reads it fails). C's padding is NaN and must
  // stay so (ErrorStats::padding_written). `base_offset` floats shift A, B and C from
  // their (256-byte aligned) allocations: 1 gives bases that are only 4-byte aligned.
  CaseResult run_case(const GemmProblem& p, uint64_t seed, RandomKind kind,
                      const std::function<void(const float* a, const float* b, float* c)>& run,
                      int64_t base_offset = 0) {
    return run_case(p, seed, DataKinds{kind, kind, kind}, run, base_offset);
  }

  // The same with each operand's values of its own kind (inf and NaN in A only, say).
  struct DataKinds {
    RandomKind a, b, c;
  };
  CaseResult run_case(const GemmProblem& p, uint64_t seed, DataKinds kinds,
                      const std::function<void(const float* a, const float* b, float* c)>& run,
                      int64_t base_offset = 0) {
    const StoredShape stored_a = stored_shape_a(p), stored_b = stored_shape_b(p);
    const int64_t ra = stored_a.rows, ca = stored_a.cols, rb = stored_b.rows, cb = stored_b.cols;
    const int64_t lda = p.effective_lda(), ldb = p.effective_ldb(), ldc = p.effective_ldc();
    const int64_t off = base_offset;
    cuda::DeviceBuffer a_mem(4 * (ra * lda + off) + 4), b_mem(4 * (rb * ldb + off) + 4),
        c0_mem(4 * (p.m * ldc + off) + 4), c_mem(4 * (p.m * ldc + off) + 4);
    cuda::DeviceBuffer a64(8 * ra * lda + 8), b64(8 * rb * ldb + 8), c64(8 * p.m * ldc + 8), scratch(64);
    const CUdeviceptr a = a_mem.get() + 4 * off, b = b_mem.get() + 4 * off, c0 = c0_mem.get() + 4 * off,
                      c = c_mem.get() + 4 * off;
    CUstream s = stream();
    support_.fill_random(a, ra, ca, lda, seed, kinds.a, is_symmetric(p.structure_a), NAN, s);
    support_.fill_random(b, rb, cb, ldb, seed * 31 + 1, kinds.b, is_symmetric(p.structure_b), NAN, s);
    if (p.beta == 0.0f)
      support_.fill_value(c0, p.m * ldc, NAN, s);  // beta = 0 must ignore NaN in C
    else
      support_.fill_random(c0, p.m, p.n, ldc, seed * 17 + 5, kinds.c, false, NAN, s);
    support_.densify(a, ra, ca, lda, p.structure_a, s);
    support_.densify(b, rb, cb, ldb, p.structure_b, s);
    support_.widen_to_double(a, a64.get(), ra * lda, s);
    support_.widen_to_double(b, b64.get(), rb * ldb, s);
    support_.widen_to_double(c0, c64.get(), p.m * ldc, s);
    const GemmProblem dense = dense_problem(p);  // what cuBLAS computes: the full product, then the fill
    if (p.m > 0 && p.n > 0) {
      cublas_dgemm(cublas_, dense, a64.get(), b64.get(), c64.get(), s);
      support_.apply_fill_f64(c64.get(), p.m, p.n, ldc, p.fill, s);
    }
    auto copy_c0 = [&] {
      if (p.m == 0) return;
      JITGEMM_CU(cuda::driver().cuMemcpyDtoDAsync(c, c0, 4 * static_cast<size_t>(p.m * ldc), s), "C0 -> C");
    };
    CaseResult result;
    copy_c0();
    if (p.m > 0 && p.n > 0) {
      cublas_sgemm(cublas_, dense, a, b, c, s, cublas_baseline(p.precision));
      support_.apply_fill(c, p.m, p.n, ldc, p.fill, s);
      result.cublas_error = error(p, c, c64, scratch).rel_error;
    }
    support_.poison_unread(a, ra, ca, lda, p.structure_a, NAN, s);
    support_.poison_unread(b, rb, cb, ldb, p.structure_b, NAN, s);
    copy_c0();
    run(reinterpret_cast<const float*>(a), reinterpret_cast<const float*>(b), reinterpret_cast<float*>(c));
    result.ours = error(p, c, c64, scratch);
    result.tolerance = error_tolerance(p.precision, result.cublas_error);
    return result;
  }

 private:
  ErrorStats error(const GemmProblem& p, CUdeviceptr c, const cuda::DeviceBuffer& c64,
                   const cuda::DeviceBuffer& scratch) {
    return support_.error_stats(c, p.effective_ldc(), c64.get(), p.effective_ldc(), p.m, p.n, scratch.get(),
                                stream());
  }

  cuda::PrimaryContext context_;
  cuda::DeviceInfo info_;
  Compiler compiler_;
  SupportKernels support_;
  CublasHandle cublas_;
  cuda::Stream stream_;
};

// The sizes of the shape sweeps: M, N, K each from these (343 triples).
inline constexpr int64_t kSweepSizes[] = {1, 7, 64, 127, 1000, 1537, 4096};

// Case i of a shape sweep: the op combination, leading dimensions (tight, +3: unaligned
// rows, +4: padded and aligned), alpha in {1, -0.5} and beta in {0, 1, 0.25} cycle with i.
inline GemmProblem sweep_case(int i, int64_t m, int64_t n, int64_t k, Precision precision) {
  GemmProblem p;
  p.m = m, p.n = n, p.k = k, p.precision = precision;
  p.trans_a = (i & 1) ? Op::T : Op::N;
  p.trans_b = (i & 2) ? Op::T : Op::N;
  const int pad = (i / 4) % 3;
  if (pad != 0) {
    p.lda = p.effective_lda() + (pad == 1 ? 3 : 4);
    p.ldb = p.effective_ldb() + (pad == 1 ? 3 : 4);
    p.ldc = p.effective_ldc() + (pad == 1 ? 3 : 4);
  }
  p.alpha = (i / 12) % 2 ? -0.5f : 1.0f;
  p.beta = std::array{0.0f, 1.0f, 0.25f}[(i / 24) % 3];
  return p;
}

// Two runs on the same C (beta may be nonzero): `first` and then `second` each start from C as it
// was before either, and each one's C is kept; C is left as `second` wrote it (what run_case then
// checks). Call run inside run_case's launch; same_bits after the stream is synchronized.
class TwoRunsFromOneC {
 public:
  explicit TwoRunsFromOneC(size_t c_bytes) : bytes_(c_bytes), c0_(c_bytes), first_(c_bytes), second_(c_bytes) {}

  template <class First, class Second>
  void run(CUdeviceptr c, CUstream s, First&& first, Second&& second) {
    copy(c0_.get(), c, s, "C -> C0");
    first();
    copy(first_.get(), c, s, "C -> first");
    copy(c, c0_.get(), s, "C0 -> C");
    second();
    copy(second_.get(), c, s, "C -> second");
  }
  bool same_bits() const {
    return first_.to_host_vector<unsigned>(bytes_ / 4) == second_.to_host_vector<unsigned>(bytes_ / 4);
  }

 private:
  void copy(CUdeviceptr to, CUdeviceptr from, CUstream s, const char* what) {
    JITGEMM_CU(cuda::driver().cuMemcpyDtoDAsync(to, from, bytes_, s), "{}", what);
  }

  size_t bytes_;
  cuda::DeviceBuffer c0_, first_, second_;
};

// One environment per test binary, created on first use (only where a GPU exists).
GpuEnvironment& gpu();

}  // namespace jitgemm::testing
