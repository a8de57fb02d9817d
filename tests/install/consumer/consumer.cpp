// A C++ user of an installed jitgemm: checks the version (package, header, library), that bad input is an InvalidArgument
// naming the argument, and, where a GPU is, one product against a double-precision reference.
// Prints "no GPU: <the library's message>" and succeeds where no driver or device is.
#include <jitgemm/runtime.hpp>
#include <jitgemm/version.h>

#include <cuda_runtime.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <vector>

namespace {

int fail(const std::string& what) {
  std::fprintf(stderr, "consumer_cpp: %s\n", what.c_str());
  return 1;
}

bool cuda_ok(cudaError_t e, const char* call) {
  if (e != cudaSuccess) std::fprintf(stderr, "consumer_cpp: %s: %s\n", call, cudaGetErrorString(e));
  return e == cudaSuccess;
}

}  // namespace

int main() {
  if (jitgemm::version() != EXPECTED_VERSION || jitgemm::version() != JITGEMM_VERSION_STRING)
    return fail("library version " + std::string(jitgemm::version()) + ", package version " EXPECTED_VERSION
                ", header version " JITGEMM_VERSION_STRING);
  static_assert(JITGEMM_VERSION_MAJOR >= 0 && JITGEMM_VERSION_MINOR >= 1, "<jitgemm/version.h> gives numbers");
  std::printf("jitgemm %s\n", std::string(jitgemm::version()).c_str());

  jitgemm::GemmProblem bad;
  bad.m = -3, bad.n = 8, bad.k = 8;
  try {
    bad.validate();
    return fail("m = -3 passed validation");
  } catch (const jitgemm::InvalidArgument& e) {
    if (std::strstr(e.what(), "m") == nullptr) return fail(std::string("the error does not name m: ") + e.what());
    std::printf("invalid argument: %s\n", e.what());
  }

  std::unique_ptr<jitgemm::Runtime> runtime;
  try {
    runtime = std::make_unique<jitgemm::Runtime>();
  } catch (const jitgemm::CudaError& e) {
    std::printf("no GPU: %s\n", e.what());
    return 0;
  }

  // C (M x N) = A (M x K) B (K x N), row-major, sizes that fill no tile exactly.
  const int M = 70, N = 50, K = 90;
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
  std::vector<float> a(M * K), b(K * N), c(M * N);
  for (float& x : a) x = uniform(rng);
  for (float& x : b) x = uniform(rng);
  float *da = nullptr, *db = nullptr, *dc = nullptr;
  if (!cuda_ok(cudaMalloc(&da, a.size() * 4), "cudaMalloc") || !cuda_ok(cudaMalloc(&db, b.size() * 4), "cudaMalloc") ||
      !cuda_ok(cudaMalloc(&dc, c.size() * 4), "cudaMalloc"))
    return 1;
  cudaMemcpy(da, a.data(), a.size() * 4, cudaMemcpyHostToDevice);
  cudaMemcpy(db, b.data(), b.size() * 4, cudaMemcpyHostToDevice);
  jitgemm::GemmProblem p;
  p.m = M, p.n = N, p.k = K;
  p.precision = jitgemm::Precision::TF32x3;
  runtime->gemm(p, da, db, dc, nullptr);
  if (!cuda_ok(cudaMemcpy(c.data(), dc, c.size() * 4, cudaMemcpyDeviceToHost), "cudaMemcpy")) return 1;
  cudaFree(da), cudaFree(db), cudaFree(dc);

  double err = 0.0, norm = 0.0;
  for (int i = 0; i < M; ++i)
    for (int j = 0; j < N; ++j) {
      double ref = 0.0;
      for (int k = 0; k < K; ++k) ref += static_cast<double>(a[i * K + k]) * b[k * N + j];
      err += (c[i * N + j] - ref) * (c[i * N + j] - ref);
      norm += ref * ref;
    }
  const double rel = std::sqrt(err / norm);
  std::printf("%dx%dx%d tf32x3 relative error %.2e\n", M, N, K, rel);
  return rel < 1e-5 ? 0 : fail("relative error above 1e-5");
}
