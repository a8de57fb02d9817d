// Small CUDA sources shared by the compile and cuda tests: an inline-PTX tensor-core
// probe, a kernel using dynamic shared memory, one that spills, one with a syntax error.
#pragma once

namespace jitgemm::test_kernels {

// One warp computes D (16x8) = A (16x8, row-major) * B (8x8, row-major K x N) with a single
// mma.sync.m16n8k8 TF32, after staging A and B in shared memory with cp.async.
inline constexpr const char* kTf32MmaProbe = R"(
// cp.async (PTX ISA "Data Movement: cp.async"): 16 bytes global -> shared, bypassing L1.
__device__ __forceinline__ void cp_async_16(void* smem, const void* gmem) {
  const unsigned smem_addr = static_cast<unsigned>(__cvta_generic_to_shared(smem));
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(smem_addr), "l"(gmem));
}
__device__ __forceinline__ void cp_async_wait_all() {
  asm volatile("cp.async.commit_group;\n" ::);
  asm volatile("cp.async.wait_group 0;\n" ::);
}
// Round a float to TF32 (nearest, ties away), kept in a 32-bit register.
__device__ __forceinline__ unsigned to_tf32(float x) {
  unsigned r;
  asm("cvt.rna.tf32.f32 %0, %1;\n" : "=r"(r) : "f"(x));
  return r;
}
// D += A * B, m16n8k8, A row-major fragment (4 regs), B column fragment (2 regs).
__device__ __forceinline__ void mma_m16n8k8_tf32(float (&d)[4], const unsigned (&a)[4], const unsigned (&b)[2]) {
  asm volatile(
      "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}

extern "C" __global__ void tf32_mma_probe(const float* __restrict__ a, const float* __restrict__ b,
                                          float* __restrict__ d) {
  __shared__ __align__(16) float a_tile[16 * 8];  // (16, 8) row-major
  __shared__ __align__(16) float b_tile[8 * 8];   // (8, 8) row-major, K x N
  const int lane = threadIdx.x;
  cp_async_16(a_tile + lane * 4, a + lane * 4);
  if (lane < 16) cp_async_16(b_tile + lane * 4, b + lane * 4);
  cp_async_wait_all();
  __syncthreads();
  // Fragment map: group = lane / 4 picks the row (A, D) or column (B); tig = lane % 4 the k / column pair.
  const int group = lane >> 2, tig = lane & 3;
  const unsigned a_frag[4] = {to_tf32(a_tile[group * 8 + tig]), to_tf32(a_tile[(group + 8) * 8 + tig]),
                              to_tf32(a_tile[group * 8 + tig + 4]), to_tf32(a_tile[(group + 8) * 8 + tig + 4])};
  const unsigned b_frag[2] = {to_tf32(b_tile[tig * 8 + group]), to_tf32(b_tile[(tig + 4) * 8 + group])};
  float acc[4] = {0.f, 0.f, 0.f, 0.f};
  mma_m16n8k8_tf32(acc, a_frag, b_frag);
  d[group * 8 + tig * 2] = acc[0];
  d[group * 8 + tig * 2 + 1] = acc[1];
  d[(group + 8) * 8 + tig * 2] = acc[2];
  d[(group + 8) * 8 + tig * 2 + 1] = acc[3];
}
)";

// x[i] *= alpha through dynamic shared memory; launch with more than 48 KiB to exercise
// the opt-in limit. Also a template, to test name expressions.
inline constexpr const char* kScaleWithSmem = R"(
extern "C" __global__ void scale_with_smem(float* x, float alpha, int n) {
  extern __shared__ float stage[];
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  stage[threadIdx.x] = i < n ? x[i] : 0.f;
  __syncthreads();
  if (i < n) x[i] = alpha * stage[threadIdx.x];
}
namespace probe {
template <int Add>
__global__ void add_constant(float* x, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] += Add;
}
}  // namespace probe
)";

// 64 live accumulators: with --maxrregcount=24 ptxas must spill.
inline constexpr const char* kSpills = R"(
__constant__ float table[64];
extern "C" __global__ void spill_probe(const float* __restrict__ a, float* out, int n) {
  float acc[64];
#pragma unroll
  for (int j = 0; j < 64; j++) acc[j] = a[j * n + threadIdx.x];
  for (int i = 0; i < n; i++) {
#pragma unroll
    for (int j = 0; j < 64; j++) acc[j] = acc[j] * acc[(j + i) & 63] + table[j];
  }
  float s = 0.f;
#pragma unroll
  for (int j = 0; j < 64; j++) s += acc[j];
  out[threadIdx.x] = s;
}
)";

inline constexpr const char* kSyntaxError = R"(
extern "C" __global__ void broken(float* x) { x[0] = ; }
)";

}  // namespace jitgemm::test_kernels
