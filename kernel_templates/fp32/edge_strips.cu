// edge_strips.cu — the thin edges of an fp32 product that whole SIMT tiles would waste.
//
// When M or N lies 1..8 past a multiple of 64 (1537 = 24 * 64 + 1), the SIMT kernel's tiles
// cover rows [0, m0) x columns [0, n0) only, and this kernel computes the rest of
//   C = alpha * op(A) op(B) + beta * C      (row-major, as fp32/simt_gemm.cu; C not read when beta == 0)
// the right strip, rows [0, M) x columns [n0, N), and the bottom strip, rows [m0, M) x columns
// [0, n0) (exec/launch_plan.hpp, EdgeStrips). One warp per element: lane l takes k = l, l + 32,
// l + 64, ... in FP32 FMA, dealt to CHAINS partial sums so that CHAINS loads of each operand are
// in flight at once (the K loop is latency-bound: one thread alone, K long, took longer than the
// tiles), then the chains pairwise and the lanes in a shuffle tree: a fixed order, the same bits
// every run. op(A)(m, k) = A[m * a_m + k * a_k] and op(B)(k, n) = B[k * b_k + n * b_n]: the
// steps carry the layout, so one kernel serves every op. Consecutive warps take consecutive m
// (right strip) or n (bottom strip), so what one warp reads strided, its neighbours find in the
// same 32-byte sectors.
//
// Launch: right after the SIMT kernel, as its programmatic dependent, WARPS warps a CTA, one warp
// per strip element. That kernel lets it start once all of its CTAs are running (EDGE_STRIPS in
// simt_gemm.cu), so the strips fill the SMs its last wave leaves idle (launched first instead,
// beside the whole of it, they cost 1537^3 more than their 13 us alone). The two write disjoint
// parts of C; each warp waits for that kernel to complete before its store, so that whatever the
// stream runs next finds both done.
#include "common/grid_dependency.cuh"

constexpr int WARPS = 4;
constexpr int CHAINS = 8;
static_assert(CHAINS == 8, "the pairwise sum at the end adds eight chains");

extern "C" __global__ void __launch_bounds__(WARPS * 32)
edge_strips(int M, int N, int K, int m0, int n0, const float* __restrict__ A, long long a_m, long long a_k,
            const float* __restrict__ B, long long b_k, long long b_n, float* __restrict__ C, long long ldc,
            float alpha, float beta) {
  const long long right = (long long)M * (N - n0);   // elements of the right strip
  const long long bottom = (long long)(M - m0) * n0;  // and of the bottom strip
  const long long e = (long long)blockIdx.x * WARPS + threadIdx.x / 32;  // this warp's element
  const int lane = threadIdx.x % 32;
  if (e >= right + bottom) return;
  int m, n;
  if (e < right) {
    m = (int)(e % M), n = n0 + (int)(e / M);
  } else {
    m = m0 + (int)((e - right) / n0), n = (int)((e - right) % n0);
  }

  // Chain c of lane l adds k = l + 32 (CHAINS j + c), j = 0, 1, ...
  const long long a_step = 32 * a_k, b_step = 32 * b_k;
  const float* a = A + m * a_m + lane * a_k;
  const float* b = B + n * b_n + lane * b_k;
  float sum[CHAINS];
#pragma unroll
  for (int c = 0; c < CHAINS; ++c) sum[c] = 0.0f;
  int k = lane;
  for (; k + 32 * (CHAINS - 1) < K; k += 32 * CHAINS, a += CHAINS * a_step, b += CHAINS * b_step) {
#pragma unroll
    for (int c = 0; c < CHAINS; ++c) sum[c] = fmaf(__ldg(a + c * a_step), __ldg(b + c * b_step), sum[c]);
  }
#pragma unroll
  for (int c = 0; c < CHAINS - 1; ++c)  // the last k of this lane, fewer than CHAINS
    if (k + 32 * c < K) sum[c] = fmaf(__ldg(a + c * a_step), __ldg(b + c * b_step), sum[c]);

  float total = ((sum[0] + sum[1]) + (sum[2] + sum[3])) + ((sum[4] + sum[5]) + (sum[6] + sum[7]));
#pragma unroll
  for (int offset = 16; offset > 0; offset /= 2) total += __shfl_down_sync(0xffffffffu, total, offset);
  griddepcontrol_wait();  // the tiles' kernel is complete (and with it this product, once this stores)
  if (lane != 0) return;
  float* out = C + m * ldc + n;
  const float v = alpha * total;
  *out = beta != 0.0f ? fmaf(beta, *out, v) : v;
}
