// edge_strips.cu — the thin edges of an fp32 product that whole SIMT tiles would waste.
//
// When M or N lies 1..8 past a multiple of 64 (1537 = 24 * 64 + 1), the SIMT kernel's tiles
// cover rows [0, m0) x columns [0, n0) only, and this kernel computes the rest of
//   C = alpha * op(A) op(B) + beta * C      (row-major, as fp32/simt_gemm.cu; C not read when beta == 0)
// the right strip, rows [0, M) x columns [n0, N), and the bottom strip, rows [m0, M) x columns
// [0, n0) (exec/launch_plan.hpp, EdgeStrips). op(A)(m, k) = A[m * a_m + k * a_k] and
// op(B)(k, n) = B[k * b_k + n * b_n]: the steps carry the layout, so one kernel serves every op.
//
// A strip is a few lines: a column n of the right strip is the dot products of every row of
// op(A) with one column of op(B), a row m of the bottom strip those of one row of op(A) with
// every column of op(B). So per line one operand is shared (the "line": op(B)(:, n), or op(A)(m,
// :)) and the other varies along the line (op(A)'s rows, op(B)'s columns). A CTA takes a group of
// outputs of one line, stages the line through shared memory CHUNK values of K at a time, and
// reads the varying operand along its contiguous index, so that every load of a warp is whole
// 32-byte sectors (threads one sector each, strided, cost 32 L1 wavefronts a load, which the SIMT
// CTAs beside them wait for):
//   lanes over K (the varying operand K-contiguous): a warp per output, K_OUTPUTS outputs a CTA,
//     lane l adding k = l, l + 32, ... in K_CHAINS partial sums, then a shuffle tree;
//   lanes over the line (it is contiguous along the line): a lane per output, X_OUTPUTS a CTA,
//     the WARPS warps taking every WARPS-th k of the chunk in X_CHAINS partial sums, then a
//     sum over the warps in warp order through shared memory.
// Every sum is in a fixed order: the same bits every run.
//
// Launch: right after the SIMT kernel, as its programmatic dependent, THREADS threads a CTA: the
// right strip's groups first (right_groups of them), then the bottom strip's; the host counts
// them with the same rule (exec/gemm_launch.cpp, K_OUTPUTS / X_OUTPUTS). That kernel lets it
// start once all of its CTAs are running (EDGE_STRIPS in simt_gemm.cu), so the strips fill the
// SMs its last wave leaves idle. The two write disjoint parts of C; every store waits for that
// kernel to complete, so that whatever the stream runs next finds both done.
#include "common/grid_dependency.cuh"

constexpr int WARPS = 8, THREADS = WARPS * 32;
constexpr int CHUNK = 1024;                 // line values staged per pass
constexpr int K_OUTPUTS = WARPS * 2;        // lanes over K: two outputs a warp
constexpr int X_OUTPUTS = 32;               // lanes over the line: one output a lane
constexpr int K_CHAINS = 4, X_CHAINS = 8;   // partial sums a lane (per output)

// The chains added pairwise, in a fixed order.
template <int N>
__device__ __forceinline__ float pairwise_sum(const float* s) {
  if constexpr (N == 1) {
    return s[0];
  } else {
    return pairwise_sum<N / 2>(s) + pairwise_sum<N / 2>(s + N / 2);
  }
}
static_assert((K_CHAINS & (K_CHAINS - 1)) == 0 && (X_CHAINS & (X_CHAINS - 1)) == 0, "chains: powers of two");

extern "C" __global__ void __launch_bounds__(THREADS)
edge_strips(int M, int N, int K, int m0, int n0, const float* __restrict__ A, long long a_m, long long a_k,
            const float* __restrict__ B, long long b_k, long long b_n, float* __restrict__ C, long long ldc,
            float alpha, float beta, int right_groups) {
  __shared__ float line[CHUNK];
  __shared__ float partial[WARPS][32];
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;

  // This CTA's line and the operand that varies along it: x indexes the line's outputs.
  const bool right = (int)blockIdx.x < right_groups;
  const float* var;          // the varying operand at x = 0, k = 0
  long long var_x, var_k;    // its steps
  const float* shared_line;  // the line's operand at k = 0
  long long line_k;
  float* out;                // C at x = 0
  long long out_x;
  int extent;
  const int group = (int)blockIdx.x - (right ? 0 : right_groups);  // of the strip's groups
  if (right) {  // column n0 + j: rows x of op(A) with column n of op(B)
    var = A, var_x = a_m, var_k = a_k, extent = M;
  } else {      // row m0 + j: row m of op(A) with columns x of op(B)
    var = B, var_x = b_n, var_k = b_k, extent = n0;
  }
  const bool lanes_over_k = var_k == 1;
  const int outputs = lanes_over_k ? K_OUTPUTS : X_OUTPUTS;
  const int groups_per_line = (extent + outputs - 1) / outputs;
  const int j = group / groups_per_line, x0 = (group % groups_per_line) * outputs;
  if (right) {
    const int n = n0 + j;
    shared_line = B + n * b_n, line_k = b_k, out = C + n, out_x = ldc;
  } else {
    const int m = m0 + j;
    shared_line = A + m * a_m, line_k = a_k, out = C + m * ldc, out_x = 1;
  }

  float acc[2 * K_CHAINS > X_CHAINS ? 2 * K_CHAINS : X_CHAINS];
#pragma unroll
  for (int c = 0; c < (int)(sizeof(acc) / sizeof(acc[0])); ++c) acc[c] = 0.0f;

  for (int kc = 0; kc < K; kc += CHUNK) {
    const int len = min(CHUNK, K - kc);
    __syncthreads();  // the last chunk's reads are done
    for (int i = threadIdx.x; i < len; i += THREADS) line[i] = __ldg(shared_line + (long long)(kc + i) * line_k);
    __syncthreads();
    if (lanes_over_k) {
      // Outputs x0 + warp and x0 + warp + WARPS; chain c of lane l adds i = l + 32 (K_CHAINS t + c).
#pragma unroll
      for (int o = 0; o < 2; ++o) {
        const int x = x0 + warp + o * WARPS;
        if (x >= extent) continue;
        const float* v = var + x * var_x + kc;  // var_k == 1
        float* s = acc + o * K_CHAINS;
        int i = lane;
        for (; i + 32 * (K_CHAINS - 1) < len; i += 32 * K_CHAINS) {
#pragma unroll
          for (int c = 0; c < K_CHAINS; ++c) s[c] = fmaf(__ldg(v + i + 32 * c), line[i + 32 * c], s[c]);
        }
#pragma unroll
        for (int c = 0; c < K_CHAINS - 1; ++c)
          if (i + 32 * c < len) s[c] = fmaf(__ldg(v + i + 32 * c), line[i + 32 * c], s[c]);
      }
    } else {
      // Output x0 + lane; chain c of warp w adds i = w + WARPS (X_CHAINS t + c).
      const int x = x0 + lane;
      if (x < extent) {
        const float* v = var + x * var_x + (long long)kc * var_k;
        int i = warp;
        for (; i + WARPS * (X_CHAINS - 1) < len; i += WARPS * X_CHAINS) {
#pragma unroll
          for (int c = 0; c < X_CHAINS; ++c)
            acc[c] = fmaf(__ldg(v + (long long)(i + WARPS * c) * var_k), line[i + WARPS * c], acc[c]);
        }
#pragma unroll
        for (int c = 0; c < X_CHAINS - 1; ++c)
          if (i + WARPS * c < len)
            acc[c] = fmaf(__ldg(v + (long long)(i + WARPS * c) * var_k), line[i + WARPS * c], acc[c]);
      }
    }
  }

  griddepcontrol_wait();  // the tiles' kernel is complete (and with it this product, once this stores)
  auto store = [&](int x, float total) {
    float* o = out + x * out_x;
    const float value = alpha * total;
    *o = beta != 0.0f ? fmaf(beta, *o, value) : value;
  };
  if (lanes_over_k) {
#pragma unroll
    for (int o = 0; o < 2; ++o) {
      float total = pairwise_sum<K_CHAINS>(acc + o * K_CHAINS);
#pragma unroll
      for (int offset = 16; offset > 0; offset /= 2) total += __shfl_down_sync(0xffffffffu, total, offset);
      const int x = x0 + warp + o * WARPS;
      if (lane == 0 && x < extent) store(x, total);
    }
  } else {
    partial[warp][lane] = pairwise_sum<X_CHAINS>(acc);
    __syncthreads();
    if (warp == 0 && x0 + lane < extent) {
      float total = partial[0][lane];
#pragma unroll
      for (int w = 1; w < WARPS; ++w) total += partial[w][lane];
      store(x0 + lane, total);
    }
  }
}
