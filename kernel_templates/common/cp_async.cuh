// cp_async.cuh — asynchronous global -> shared copies (sm_80+), one PTX instruction each.
//
// PTX ISA, "Data Movement and Conversion Instructions: cp.async", cp.async.commit_group and
// cp.async.wait_group (docs.nvidia.com/cuda/parallel-thread-execution, anchors
// #data-movement-and-conversion-instructions-cp-async, -cp-async-commit-group,
// -cp-async-wait-group; PTX ISA 7.0+, section 9.7.9.25 in ISA 8.x).
//
//   cp.async.{ca,cg}.shared.global [dst], [src], cp-size, src-size;
//     dst       shared::cta address (32-bit), aligned to cp-size
//     src       global address (64-bit generic address of global memory), aligned to cp-size
//     cp-size   bytes written to dst: 4, 8 or 16 (.cg: 16 only; .ca caches in L1, .cg in L2 only)
//     src-size  bytes read from src (0..cp-size); the remaining bytes of dst are zero-filled.
//               src-size 0 reads nothing, which is how out-of-range elements become zeros.
//
// Copies issued by one thread are grouped by commit_group; wait_group N blocks the thread
// until at most N of its most recent groups are still pending. The data is then visible to
// the issuing thread only: a __syncthreads() must follow before other threads read it.
#pragma once

// 32-bit shared::cta address of a generic pointer into shared memory.
__device__ __forceinline__ unsigned shared_address(const void* smem_ptr) {
  return static_cast<unsigned>(__cvta_generic_to_shared(smem_ptr));
}

// 16 bytes, L2 only (.cg): the operand is re-read from shared memory, not from L1.
// smem_dst is a shared::cta address (shared_address), 16-byte aligned, as is gmem_src.
// src_bytes in 0..16; bytes past src_bytes are written as zeros.
__device__ __forceinline__ void cp_async_16(unsigned smem_dst, const void* gmem_src, int src_bytes) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n"
               :
               : "r"(smem_dst), "l"(gmem_src), "r"(src_bytes)
               : "memory");
}

// 16 bytes, all in range (no src-size operand).
__device__ __forceinline__ void cp_async_16(unsigned smem_dst, const void* gmem_src) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" : : "r"(smem_dst), "l"(gmem_src) : "memory");
}

// 4 bytes through L1 (.ca: .cg exists for 16 bytes only). src_bytes is 4, or 0 to zero-fill.
__device__ __forceinline__ void cp_async_4(unsigned smem_dst, const void* gmem_src, int src_bytes) {
  asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;\n"
               :
               : "r"(smem_dst), "l"(gmem_src), "r"(src_bytes)
               : "memory");
}

// 4 bytes, in range.
__device__ __forceinline__ void cp_async_4(unsigned smem_dst, const void* gmem_src) {
  asm volatile("cp.async.ca.shared.global [%0], [%1], 4;\n" : : "r"(smem_dst), "l"(gmem_src) : "memory");
}

// Closes the group of copies this thread issued since the last commit (an empty group is fine).
__device__ __forceinline__ void cp_async_commit() {
  asm volatile("cp.async.commit_group;\n" ::: "memory");
}

// Waits until at most PENDING of this thread's committed groups are still in flight.
template <int PENDING>
__device__ __forceinline__ void cp_async_wait() {
  static_assert(PENDING >= 0, "cp.async.wait_group takes a non-negative immediate");
  asm volatile("cp.async.wait_group %0;\n" ::"n"(PENDING) : "memory");
}
