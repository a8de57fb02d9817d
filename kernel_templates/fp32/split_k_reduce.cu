// split_k_reduce.cu — the second half of a split-K product.
//
// The GEMM kernel, launched with gridDim.y = S > 1, writes S partial products of K slices
// to a workspace W laid out [S][M][ldw] (row-major, ldw = N rounded up to 4). This kernel finishes
//   C[m][n] = alpha * sum_{s < S} W[s][m][n] + beta * C[m][n]      (C not read when beta == 0)
// (S = 0: C = beta * C, the BLAS result of an empty product or alpha = 0).
// adding the slices in double precision and in a fixed grouping (below), so the result is the
// same bits every run and the reduction adds no error beyond one final rounding. fill 1 (2): the
// elements above (below) the diagonal are written as zeros instead (C = tril / triu).
//
// The slices are added in a fixed grouping, one of two by S (the same for every element and
// every run): with S >= SHARED_SLICES each of the SLICE_WARPS warps of a block adds a
// contiguous share of them in order for 32 groups of elements (one per lane), and warp 0 adds
// the shares in warp order: many loads in flight for a huge K on a C of a few hundred rows.
// With fewer slices (a short split of a large C) every thread adds all of them for its own
// groups. A group is VEC = 4 consecutive elements of a row (16-byte loads and stores) where
// N, ldc and the addresses allow it, else one element.
//
// Launch: 1-D grid (grid-stride loops over chunks of 32 groups, or over groups),
// 32 * SLICE_WARPS threads, no dynamic shared memory.

constexpr int SLICE_WARPS = 8;     // warps of a block, each a share of the slices
constexpr int SHARED_SLICES = 32;  // from this many slices on, a block's warps share them
constexpr int UNROLL = 12;      // slices loaded before their adds (8 and 16 make ptxas spill a word)

// VEC floats at p (16-byte aligned when VEC = 4).
template <int VEC>
__device__ __forceinline__ void load(const float* p, float (&x)[VEC]) {
  if constexpr (VEC == 4) {
    const float4 v = *reinterpret_cast<const float4*>(p);
    x[0] = v.x, x[1] = v.y, x[2] = v.z, x[3] = v.w;
  } else {
    x[0] = *p;
  }
}

// Adds slices [s, end) of the VEC floats at W + at to sum, in slice order.
template <int VEC>
__device__ __forceinline__ void add_slices(const float* __restrict__ W, long long slice, int s, int end, long long at,
                                           double (&sum)[VEC]) {
  for (; s + UNROLL <= end; s += UNROLL) {
    float x[UNROLL][VEC];
#pragma unroll
    for (int u = 0; u < UNROLL; ++u) load<VEC>(W + (s + u) * slice + at, x[u]);
#pragma unroll
    for (int u = 0; u < UNROLL; ++u)
#pragma unroll
      for (int v = 0; v < VEC; ++v) sum[v] += (double)x[u][v];
  }
  for (; s < end; ++s) {
    float x[VEC];
    load<VEC>(W + s * slice + at, x);
#pragma unroll
    for (int v = 0; v < VEC; ++v) sum[v] += (double)x[v];
  }
}

// C[m][n] from its sum (fill, alpha, beta as above).
__device__ __forceinline__ float finish(const float* c, double sum, int S, long long m, long long n, float alpha,
                                        float beta, int fill) {
  if ((fill == 1 && n > m) || (fill == 2 && n < m)) return 0.0f;
  const float product = (float)(sum * (double)alpha);
  // S = 0 (GemmLauncher::scale_output: K = 0 or alpha = 0) has no product term: C = beta * C,
  // as BLAS computes it (beta * -0.0 stays -0.0, which an added +0 product would not).
  return beta == 0.0f ? product : S == 0 ? beta * *c : fmaf(beta, *c, product);
}

// C[m][n0 .. n0 + VEC) from the sums of the group's elements.
template <int VEC>
__device__ __forceinline__ void store_group(float* __restrict__ C, long long ldc, long long m, long long n0,
                                            const double (&total)[VEC], int S, float alpha, float beta, int fill) {
  float* c = C + m * ldc + n0;
  if constexpr (VEC == 1) {
    *c = finish(c, total[0], S, m, n0, alpha, beta, fill);
  } else {
    float4 out;
    out.x = finish(c, total[0], S, m, n0, alpha, beta, fill);
    out.y = finish(c + 1, total[1], S, m, n0 + 1, alpha, beta, fill);
    out.z = finish(c + 2, total[2], S, m, n0 + 2, alpha, beta, fill);
    out.w = finish(c + 3, total[3], S, m, n0 + 3, alpha, beta, fill);
    *reinterpret_cast<float4*>(c) = out;
  }
}

template <int VEC>
__device__ __forceinline__ void reduce(const float* __restrict__ W, int S, int M, int N, long long ldw,
                                       float* __restrict__ C, long long ldc, float alpha, float beta, int fill,
                                       double (*shares)[32][4]) {
  const long long groups_per_row = (N + VEC - 1) / VEC;
  const long long groups = (long long)M * groups_per_row;
  const long long slice = (long long)M * ldw;
  if (S < SHARED_SLICES) {  // every thread all the slices of its groups
    for (long long g = blockIdx.x * (long long)blockDim.x + threadIdx.x; g < groups;
         g += (long long)gridDim.x * blockDim.x) {
      const long long m = g / groups_per_row, n0 = (g % groups_per_row) * VEC;
      double sum[VEC];
#pragma unroll
      for (int v = 0; v < VEC; ++v) sum[v] = 0.0;
      add_slices<VEC>(W, slice, 0, S, m * ldw + n0, sum);
      store_group<VEC>(C, ldc, m, n0, sum, S, alpha, beta, fill);
    }
    return;
  }
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  const int first = (int)((long long)S * warp / SLICE_WARPS), end = (int)((long long)S * (warp + 1) / SLICE_WARPS);
  // Every thread of the block takes every turn of the loop (the barriers below).
  for (long long chunk = blockIdx.x; chunk * 32 < groups; chunk += gridDim.x) {
    const long long g = chunk * 32 + lane;
    const long long m = g / groups_per_row, n0 = (g % groups_per_row) * VEC;
    double sum[VEC];
#pragma unroll
    for (int v = 0; v < VEC; ++v) sum[v] = 0.0;
    if (g < groups) add_slices<VEC>(W, slice, first, end, m * ldw + n0, sum);
#pragma unroll
    for (int v = 0; v < VEC; ++v) shares[warp][lane][v] = sum[v];
    __syncthreads();
    if (warp == 0 && g < groups) {
      double total[VEC];
#pragma unroll
      for (int v = 0; v < VEC; ++v) {
        total[v] = shares[0][lane][v];
        for (int w = 1; w < SLICE_WARPS; ++w) total[v] += shares[w][lane][v];  // warp order: deterministic
      }
      store_group<VEC>(C, ldc, m, n0, total, S, alpha, beta, fill);
    }
    __syncthreads();  // shares are read before the next turn writes them
  }
}

extern "C" __global__ void __launch_bounds__(32 * SLICE_WARPS)
split_k_reduce(const float* __restrict__ W, int S, int M, int N, long long ldw, float* __restrict__ C,
               long long ldc, float alpha, float beta, int fill) {
  __shared__ double shares[SLICE_WARPS][32][4];
  // Whole groups of four on every row, 16-byte aligned in W and C (S = 0: W is not read).
  const bool vec4 = N % 4 == 0 && ldw % 4 == 0 && ldc % 4 == 0 && reinterpret_cast<unsigned long long>(C) % 16 == 0 &&
                    (S == 0 || reinterpret_cast<unsigned long long>(W) % 16 == 0);
  if (vec4)
    reduce<4>(W, S, M, N, ldw, C, ldc, alpha, beta, fill, shares);
  else
    reduce<1>(W, S, M, N, ldw, C, ldc, alpha, beta, fill, shares);
}
