// TEST ONLY — stands in for fp32/simt_gemm.cu in tests/gpu/isolated_tuning_test.cpp, which
// tunes configs of the SIMT family against it to show that the tuner survives candidates that
// misbehave. The kernel is a plain correct product (general operands, op N or T, full fill,
// accumulated in double), sabotaged as its config's RASTER_GROUP says:
//   1, 10  correct
//   2      stores far out of bounds (CUDA_ERROR_ILLEGAL_ADDRESS)
//   3      __trap()
//   4      never ends (spins on C, which the tuner poisons with NaN)
//   5      asks for more shared memory than a launch without opt-in allows (40 KiB static
//          beside the host's dynamic share)
//   6      wrong result (every element + 1)
//   7      skips its first tile (C keeps its NaN poison there)
//   8      does not compile
//   9      misaligned 8-byte store (CUDA_ERROR_MISALIGNED_ADDRESS)
// The generator's prologue supplies the constants (KERNEL_NAME, BLOCK_M, ..., RASTER_GROUP).
constexpr int PLANT = RASTER_GROUP;
constexpr int THREADS = WARPS_M * WARPS_N * 32;
static_assert(PLANT != 8, "planted compile error");

extern "C" __global__ void __launch_bounds__(THREADS, 1)
KERNEL_NAME(int M, int N, int K, const float* __restrict__ A, long long lda, const float* __restrict__ B,
            long long ldb, float* __restrict__ C, long long ldc, float alpha, float beta,
            const int4* __restrict__ work) {
  __shared__ float hog[PLANT == 5 ? 10240 : 1];
  if (PLANT == 5) {
    hog[threadIdx.x] = static_cast<float>(threadIdx.x);
    __syncthreads();
    if (hog[(threadIdx.x + 1) % THREADS] < 0.0f) C[0] = 0.0f;
  }
  if (PLANT == 2 && threadIdx.x == 0) C[1ll << 40] = 1.0f;
  if (PLANT == 3) __trap();
  if (PLANT == 4) {
    volatile float* spin = C;
    while (spin[0] != 12345.0f) {
    }
  }
  if (PLANT == 7 && blockIdx.x == 0) return;
  if (PLANT == 9 && threadIdx.x == 0) *reinterpret_cast<double*>(reinterpret_cast<char*>(C) + 4) = 0.0;

  // Tile t = blockIdx.x in row-major tile order (the host launches one CTA per tile).
  const int tiles_n = (N + BLOCK_N - 1) / BLOCK_N;
  const int m0 = blockIdx.x / tiles_n * BLOCK_M, n0 = blockIdx.x % tiles_n * BLOCK_N;
  for (int i = threadIdx.x; i < BLOCK_M * BLOCK_N; i += THREADS) {
    const int m = m0 + i / BLOCK_N, n = n0 + i % BLOCK_N;
    if (m >= M || n >= N) continue;
    double acc = 0.0;
    for (int k = 0; k < K; ++k) {
      const float a = TRANS_A ? A[k * lda + m] : A[m * lda + k];
      const float b = TRANS_B ? B[n * ldb + k] : B[k * ldb + n];
      acc += static_cast<double>(a) * b;
    }
    float out = alpha * static_cast<float>(acc) + (beta != 0.0f ? beta * C[m * ldc + n] : 0.0f);
    if (PLANT == 6) out += 1.0f;
    C[m * ldc + n] = out;
  }
}
