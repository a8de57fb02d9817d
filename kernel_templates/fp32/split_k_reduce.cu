// split_k_reduce.cu — the second half of a split-K product.
//
// The GEMM kernel, launched with gridDim.y = S > 1, writes S partial products of K slices
// to a workspace W laid out [S][M][ldw] (row-major, ldw = N rounded up to 4). This kernel finishes
//   C[m][n] = alpha * sum_{s < S} W[s][m][n] + beta * C[m][n]      (C not read when beta == 0)
// (S = 0: C = beta * C, the BLAS result of an empty product or alpha = 0).
// adding the slices in double precision and in a fixed order, so the result is the same
// bits every run and the reduction adds no error beyond one final rounding. fill 1 (2): the
// elements above (below) the diagonal are written as zeros instead (C = tril / triu).
//
// Launch: 1-D grid over M * N elements (grid-stride loop), 256 threads, no shared memory.

extern "C" __global__ void __launch_bounds__(256)
split_k_reduce(const float* __restrict__ W, int S, int M, int N, long long ldw, float* __restrict__ C,
               long long ldc, float alpha, float beta, int fill) {
  const long long count = (long long)M * N;
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < count;
       i += (long long)gridDim.x * blockDim.x) {
    const long long m = i / N, n = i % N;
    const long long slice = (long long)M * ldw;
    double sum = 0.0;
    for (int s = 0; s < S; ++s) sum += (double)W[s * slice + m * ldw + n];  // slice order: deterministic
    float* c = C + m * ldc + n;
    if ((fill == 1 && n > m) || (fill == 2 && n < m)) {
      *c = 0.0f;
      continue;
    }
    const float product = (float)(sum * (double)alpha);
    // S = 0 (GemmLauncher::scale_output: K = 0 or alpha = 0) has no product term: C = beta * C,
    // as BLAS computes it (beta * -0.0 stays -0.0, which an added +0 product would not).
    *c = beta == 0.0f ? product : S == 0 ? beta * *c : fmaf(beta, *c, product);
  }
}
