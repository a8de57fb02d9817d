// mbarrier.cuh — shared-memory transaction barriers (sm_90), one PTX instruction each.
//
// PTX ISA, "Parallel Synchronization and Communication Instructions: mbarrier"
// (docs.nvidia.com/cuda/parallel-thread-execution, anchor
// #parallel-synchronization-and-communication-instructions-mbarrier; section 9.7.13.15 in
// ISA 8.x). An mbarrier is a 64-bit object in shared memory with
//   - an expected arrival count (set by init) and a pending arrival count,
//   - a pending transaction count in bytes (raised by expect_tx, lowered by complete_tx,
//     which the bulk tensor copy engine performs as its bytes land),
//   - a phase bit. The current phase completes when both pending counts reach zero; the
//     barrier then flips its phase and re-arms with the expected arrival count.
// Waiters name the phase they wait for by its parity: try_wait.parity(P) succeeds once the
// phase with parity P has completed. A fresh barrier is in phase 0, so waiting for parity 1
// succeeds at once (the "previous" phase counts as completed): a producer can wait on an
// empty-slot barrier with parity (phase ^ 1) from the very first round.
//
// All addresses here are 32-bit shared::cta addresses (see shared_address in cp_async.cuh
// or smem_u32 below).
#pragma once

// 32-bit shared::cta address of a generic pointer into shared memory.
__device__ __forceinline__ unsigned smem_u32(const void* smem_ptr) {
  return static_cast<unsigned>(__cvta_generic_to_shared(smem_ptr));
}

// mbarrier.init: expected arrival count `count` (1 .. 2^20-1), phase 0, no transactions.
__device__ __forceinline__ void mbarrier_init(unsigned bar, unsigned count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(bar), "r"(count) : "memory");
}

// Makes the initialised barriers visible to the other threads of the CTA and to the async
// proxy (the TMA unit completing transactions on them). Follow with __syncthreads().
// PTX ISA "membar/fence": fence.mbarrier_init is valid for a CTA that is its own cluster.
__device__ __forceinline__ void mbarrier_fence_init() {
  asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
}

// mbarrier.arrive.expect_tx: raise the pending transaction count by `bytes`, then arrive
// once. Used by the producer before issuing the copies that complete those bytes.
__device__ __forceinline__ void mbarrier_arrive_expect_tx(unsigned bar, unsigned bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" ::"r"(bar), "r"(bytes)
               : "memory");
}

// mbarrier.arrive: one arrival (release semantics at CTA scope: this thread's earlier memory
// accesses, including reads of the slot, happen before the phase completes).
__device__ __forceinline__ void mbarrier_arrive(unsigned bar) {
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];\n" ::"r"(bar) : "memory");
}

// mbarrier.try_wait.parity: true once the phase with parity `parity` (0/1) has completed.
// try_wait may suspend the thread for a system-dependent time before returning false.
__device__ __forceinline__ bool mbarrier_try_wait(unsigned bar, unsigned parity) {
  unsigned done;
  asm volatile(
      "{\n"
      ".reg .pred p;\n"
      "mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n"
      "selp.u32 %0, 1, 0, p;\n"
      "}\n"
      : "=r"(done)
      : "r"(bar), "r"(parity)
      : "memory");
  return done != 0;
}

// Spins until the phase with parity `parity` has completed (acquire: the data whose
// transactions completed that phase is visible afterwards).
__device__ __forceinline__ void mbarrier_wait(unsigned bar, unsigned parity) {
  while (!mbarrier_try_wait(bar, parity)) {
  }
}
