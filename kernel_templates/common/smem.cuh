// smem.cuh — shared-memory loads and stores by 32-bit shared address, the proxy fence that
// hands generic stores to wgmma, and CTA named barriers.
//
// PTX ISA, "Data Movement and Conversion Instructions: ld, st" (anchors
// #data-movement-and-conversion-instructions-ld, -st), "Parallel Synchronization and
// Communication Instructions: membar/fence" (-membar) and "bar, barrier" (-bar).
#pragma once

// ld.shared.f32 from a 32-bit shared address (smem_u32 of common/mbarrier.cuh). volatile
// keeps it after the mbarrier wait that made the data visible.
__device__ __forceinline__ float lds_f32(unsigned addr) {
  float v;
  asm volatile("ld.shared.f32 %0, [%1];\n" : "=f"(v) : "r"(addr));
  return v;
}

// ld.shared.v2.f32 of two floats at an 8-byte aligned shared address.
__device__ __forceinline__ float2 lds_v2(unsigned addr) {
  float2 v;
  asm volatile("ld.shared.v2.f32 {%0, %1}, [%2];\n" : "=f"(v.x), "=f"(v.y) : "r"(addr));
  return v;
}

// ld.shared.v4.f32 / st.shared.v4.f32 of four floats at a 16-byte aligned shared address.
__device__ __forceinline__ float4 lds_v4(unsigned addr) {
  float4 v;
  asm volatile("ld.shared.v4.f32 {%0, %1, %2, %3}, [%4];\n" : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w) : "r"(addr));
  return v;
}
__device__ __forceinline__ void sts_v4(unsigned addr, float4 v) {
  asm volatile("st.shared.v4.f32 [%0], {%1, %2, %3, %4};\n" ::"r"(addr), "f"(v.x), "f"(v.y), "f"(v.z), "f"(v.w)
               : "memory");
}

// A 32-bit word in shared memory.
__device__ __forceinline__ unsigned lds_u32(unsigned addr) {
  unsigned v;
  asm volatile("ld.shared.u32 %0, [%1];\n" : "=r"(v) : "r"(addr) : "memory");
  return v;
}
__device__ __forceinline__ void sts_u32(unsigned addr, unsigned v) {
  asm volatile("st.shared.u32 [%0], %1;\n" ::"r"(addr), "r"(v) : "memory");
}

// fence.proxy.async.shared::cta: this thread's generic-proxy shared-memory stores become
// visible to the async proxy (wgmma's shared-memory operands, TMA). Writers call it after
// their stores and before the barrier that hands the data to the wgmma issuers.
__device__ __forceinline__ void fence_proxy_async_shared() {
  asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
}

// bar.red.or.pred on named barrier `id` (1..15; 0 is __syncthreads) among `threads` threads
// (a multiple of 32, all of which must call it): true when `pred` holds in any of them.
// The result is the same in every thread; the shuffle from lane 0 lets ptxas know it is
// warp-uniform (a branch on it around wgmmas otherwise counts as divergent, and ptxas
// serializes the wgmmas: warning C7520).
__device__ __forceinline__ bool barrier_any(unsigned id, unsigned threads, bool pred) {
  unsigned out;
  asm volatile(
      "{\n.reg .pred q, p;\n"
      "setp.ne.u32 q, %1, 0;\n"
      "bar.red.or.pred p, %2, %3, q;\n"
      "selp.u32 %0, 1, 0, p;\n}\n"
      : "=r"(out)
      : "r"(pred ? 1u : 0u), "r"(id), "r"(threads)
      : "memory");
  return __shfl_sync(0xffffffffu, out, 0) != 0;
}

// bar.sync on named barrier `id` among `threads` threads (a multiple of 32).
__device__ __forceinline__ void barrier_sync(unsigned id, unsigned threads) {
  asm volatile("bar.sync %0, %1;\n" ::"r"(id), "r"(threads) : "memory");
}
