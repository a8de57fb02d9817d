// split_k_reduce.cu — the second half of a split-K product.
//
// The GEMM kernel writes S partial products of K slices to a workspace W laid out [S][M][ldw]
// (row-major, ldw a multiple of 4 >= N, W 16-byte aligned). This kernel finishes
//   C[m][n] = alpha * sum_{s < S} W[s][m][n] + beta * C[m][n]      (C not read when beta == 0)
// (S = 0: C = beta * C, the BLAS result of an empty product or alpha = 0), adding the slices
// in double precision and in a fixed order, so the result is the same bits every run (on any
// GPU: the order depends on S only) and the reduction adds no error beyond one final rounding.
// fill 1 (2): the elements above (below) the diagonal are written as zeros instead (C = tril /
// triu).
//
// Launch: THREADS threads a CTA, one CTA per THREADS / groups quads of C (a quad: 4 consecutive
// columns of one row, the last of a row maybe partial); `groups` (1, 2, 4 or 8, at most S:
// split_k_reduce_groups(S) in exec/kernel_args.hpp, a function of S alone) threads share a
// quad: group g adds slices g, g + groups, g + 2 groups, ... (float4 loads, all independent, so
// a thread has its whole share in flight instead of one slice at a time), and the group sums
// are then added in g order. No dynamic shared memory. Launched as a programmatic dependent of
// the kernel that wrote W (griddepcontrol.wait before the first read).
#include "common/grid_dependency.cuh"

constexpr int THREADS = 256;

extern "C" __global__ void __launch_bounds__(THREADS)
split_k_reduce(const float* __restrict__ W, int S, int M, int N, long long ldw, float* __restrict__ C,
               long long ldc, float alpha, float beta, int fill, int groups) {
  __shared__ double partial[THREADS][4];  // [group * quads + q][element]

  const int quads = THREADS / groups;          // quads of this CTA
  const int row_quads = (N + 3) / 4;
  const int g = threadIdx.x / quads, q = threadIdx.x % quads;
  const long long quad = (long long)blockIdx.x * quads + q;
  const bool valid = quad < (long long)M * row_quads;
  const long long m = valid ? quad / row_quads : 0;
  const int n0 = valid ? (int)(quad % row_quads) * 4 : 0;
  const int width = min(4, N - n0);            // columns of this quad inside C

  griddepcontrol_wait();  // W is complete and visible
  double sum[4] = {0.0, 0.0, 0.0, 0.0};
  if (valid) {
    const long long slice = (long long)M * ldw;
    const float* w = W + m * ldw + n0;
#pragma unroll 4
    for (int s = g; s < S; s += groups) {
      if (width == 4) {
        const float4 v = *reinterpret_cast<const float4*>(w + s * slice);
        sum[0] += v.x, sum[1] += v.y, sum[2] += v.z, sum[3] += v.w;
      } else {
        for (int j = 0; j < width; ++j) sum[j] += w[s * slice + j];  // W's padding is never read
      }
    }
  }
#pragma unroll
  for (int j = 0; j < 4; ++j) partial[threadIdx.x][j] = sum[j];
  __syncthreads();

  // One thread per element of the CTA's quads: the group sums in g order, then the epilogue.
  for (int e = threadIdx.x; e < quads * 4; e += THREADS) {
    const int eq = e / 4, j = e % 4;
    const long long equad = (long long)blockIdx.x * quads + eq;
    if (equad >= (long long)M * row_quads) break;
    const long long em = equad / row_quads;
    const int en = (int)(equad % row_quads) * 4 + j;
    if (en >= N) continue;
    double total = 0.0;
    for (int h = 0; h < groups; ++h) total += partial[h * quads + eq][j];
    float* c = C + em * ldc + en;
    if ((fill == 1 && en > em) || (fill == 2 && en < em)) {
      *c = 0.0f;
      continue;
    }
    const float product = (float)(total * (double)alpha);
    // S = 0 (GemmLauncher::scale_output: K = 0 or alpha = 0) has no product term: C = beta * C,
    // as BLAS computes it (beta * -0.0 stays -0.0, which an added +0 product would not).
    *c = beta == 0.0f ? product : S == 0 ? beta * *c : fmaf(beta, *c, product);
  }
}
