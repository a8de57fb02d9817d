// global_sync.cuh — flags in global memory between CTAs of one grid, and the proxy fence that
// lets TMA (the async proxy) read what ordinary stores (the generic proxy) wrote.
//
// PTX ISA, "Memory Consistency Model" (anchor #memory-consistency-model), "ld" with .acquire,
// "red" with .release, and "membar/fence: fence.proxy.async" (anchor
// #parallel-synchronization-and-communication-instructions-membar).
#pragma once

// ld.acquire.gpu: later reads of this thread see what was written before the matching release.
__device__ __forceinline__ unsigned load_acquire_gpu(const unsigned* p) {
  unsigned v;
  asm volatile("ld.acquire.gpu.global.u32 %0, [%1];\n" : "=r"(v) : "l"(p) : "memory");
  return v;
}

// red.release.gpu.add: publishes this thread's earlier writes (and, after a CTA barrier, its
// CTA's) to a thread that acquires the new value.
__device__ __forceinline__ void add_release_gpu(unsigned* p, unsigned v) {
  asm volatile("red.release.gpu.global.add.u32 [%0], %1;\n" ::"l"(p), "r"(v) : "memory");
}

// fence.proxy.async.global: orders this thread's generic-proxy global accesses with its
// async-proxy ones (TMA). Writers call it after their stores, readers before their TMA loads.
__device__ __forceinline__ void fence_proxy_async_global() {
  asm volatile("fence.proxy.async.global;\n" ::: "memory");
}
