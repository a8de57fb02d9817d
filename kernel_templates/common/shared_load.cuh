// shared_load.cuh — shared-memory reads the compiler must issue again, every time.
//
// PTX ISA, "Data Movement and Conversion Instructions: ld" (docs.nvidia.com/cuda/
// parallel-thread-execution, anchor #data-movement-and-conversion-instructions-ld):
//   ld.volatile.shared{.v2}.f32 d, [a];   a: 32-bit shared::cta address (shared_address)
// .volatile keeps ptxas from merging the read with an earlier one of the same address. A
// kernel that reads a tile twice on purpose (to keep registers free between the reads) uses
// these for the second read; plain loads would be merged and the values kept live instead.
#pragma once

__device__ __forceinline__ float ld_shared_volatile(unsigned address) {
  float v;
  asm volatile("ld.volatile.shared.f32 %0, [%1];\n" : "=f"(v) : "r"(address));
  return v;
}

// Two adjacent floats; `address` is 8-byte aligned.
__device__ __forceinline__ float2 ld_shared_volatile_v2(unsigned address) {
  float2 v;
  asm volatile("ld.volatile.shared.v2.f32 {%0, %1}, [%2];\n" : "=f"(v.x), "=f"(v.y) : "r"(address));
  return v;
}
