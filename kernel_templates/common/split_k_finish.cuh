// split_k_finish.cuh — a split-K product finished by the GEMM kernel itself (fp32/simt_gemm.cu):
// the CTA that writes a tile's last partial product adds the tile's slices and writes C, so no
// second kernel reads the workspace back (fp32/split_k_reduce.cu, which the host launches
// instead when the finish is off).
//
// Every CTA of a tile writes its slice's partial product to the workspace W ([S][M][ldw], as for
// the reduce kernel), then counts itself on the tile's arrival counter (zeroed before the
// launch). The CTA that counts last reads the S slices and computes, per element,
//   C = alpha * sum_s W[s] + beta * C      (fill: zeros outside the kept triangle)
// with the same double additions in the same order as split_k_reduce.cu for S <= 8 (group g of
// `groups` adds slices g, g + groups, ...; the group sums are added in g order): the same bits,
// whichever CTA finishes and whichever kernel adds. At most MAX_SLICES slices (the host's rule).
#pragma once

constexpr int FINISH_MAX_SLICES = 8;

// What the kernel needs to finish (host: SplitKFinish in exec/kernel_args.hpp). arrivals == null:
// the host reduces (the kernel only writes its slice).
struct SplitKFinish {
  float* c;             // the caller's C
  long long ldc;
  float alpha, beta;
  unsigned* arrivals;   // one counter per tile (blockIdx.x), zero at the launch
};

// split_k_reduce_groups of exec/kernel_args.hpp: the largest power of two up to S and 8.
__device__ __forceinline__ int split_k_groups(int slices) {
  int groups = 1;
  while (groups < 8 && groups * 2 <= slices) groups *= 2;
  return groups;
}

// Whether this CTA wrote the tile's last slice; call after every thread stored its share of the
// slice (all threads call it). Release: each thread's stores are fenced before the count; acquire:
// the counting thread fences again before the CTA reads the other slices.
__device__ __forceinline__ bool split_k_arrive_last(unsigned* arrivals) {
  __shared__ int last;
  __threadfence();
  __syncthreads();
  if (threadIdx.x == 0) {
    last = atomicAdd(&arrivals[blockIdx.x], 1u) == gridDim.y - 1;
    __threadfence();
  }
  __syncthreads();
  return last != 0;
}

// The finishing CTA: C over the BLOCK_M x BLOCK_N tile at (m0, n0), from W's S slices, in quads
// of four columns dealt round-robin to the THREADS threads. W was written during this kernel, so
// it is read through L2 (ld.global.cg), never the read-only path.
template <int BLOCK_M, int BLOCK_N, int THREADS, int FILL>
__device__ __forceinline__ void split_k_finish_tile(const float* W, long long ldw, int S, int M, int N, int m0, int n0,
                                                    const SplitKFinish& out) {
  const int groups = split_k_groups(S);
  const long long slice = (long long)M * ldw;
  constexpr int QUADS = BLOCK_M * BLOCK_N / 4;
  for (int e = threadIdx.x; e < QUADS; e += THREADS) {
    const int m = m0 + e / (BLOCK_N / 4), n = n0 + (e % (BLOCK_N / 4)) * 4;
    if (m >= M || n >= N) continue;
    const int width = min(4, N - n);  // W's padding past N is never read
    const float* w = W + (long long)m * ldw + n;
    float v[FINISH_MAX_SLICES][4];    // every slice's quad in flight before any is added
#pragma unroll
    for (int s = 0; s < FINISH_MAX_SLICES; ++s) {
      if (s >= S) break;
      if (width == 4) {
        const float4 q = __ldcg(reinterpret_cast<const float4*>(w + s * slice));
        v[s][0] = q.x, v[s][1] = q.y, v[s][2] = q.z, v[s][3] = q.w;
      } else {
        for (int j = 0; j < 4; ++j) v[s][j] = j < width ? __ldcg(w + s * slice + j) : 0.0f;
      }
    }
    double total[4] = {0.0, 0.0, 0.0, 0.0};
#pragma unroll
    for (int g = 0; g < FINISH_MAX_SLICES; ++g) {
      if (g >= groups) break;
      double part[4] = {0.0, 0.0, 0.0, 0.0};
#pragma unroll
      for (int s = g; s < FINISH_MAX_SLICES; ++s) {
        if (s >= S) break;
        if (((s - g) & (groups - 1)) != 0) continue;  // groups is a power of two
#pragma unroll
        for (int j = 0; j < 4; ++j) part[j] += v[s][j];
      }
#pragma unroll
      for (int j = 0; j < 4; ++j) total[j] += part[j];
    }
    float* c = out.c + (long long)m * out.ldc + n;
    for (int j = 0; j < width; ++j) {
      if ((FILL == 1 && n + j > m) || (FILL == 2 && n + j < m)) {
        c[j] = 0.0f;
        continue;
      }
      const float product = (float)(total[j] * (double)out.alpha);
      c[j] = out.beta == 0.0f ? product : fmaf(out.beta, c[j], product);
    }
  }
}
