// smem.cuh — a shared-memory load by 32-bit shared address, and a CTA named-barrier vote.
//
// PTX ISA, "Data Movement and Conversion Instructions: ld" (anchor
// #data-movement-and-conversion-instructions-ld) and "Parallel Synchronization and
// Communication Instructions: bar, barrier" (anchor #parallel-synchronization-and-
// communication-instructions-bar).
#pragma once

// ld.shared.f32 from a 32-bit shared address (smem_u32 of common/mbarrier.cuh). volatile
// keeps it after the mbarrier wait that made the data visible.
__device__ __forceinline__ float lds_f32(unsigned addr) {
  float v;
  asm volatile("ld.shared.f32 %0, [%1];\n" : "=f"(v) : "r"(addr));
  return v;
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
