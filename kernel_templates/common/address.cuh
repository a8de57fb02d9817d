// address.cuh — address arithmetic the compiler would otherwise spend registers on.
#pragma once

// p + rows * row_bytes in one instruction: mad.wide.u32 (PTX ISA, "Integer Arithmetic
// Instructions: mad"; .wide multiplies two 32-bit operands into a 64-bit product and adds the
// 64-bit third operand; docs.nvidia.com/cuda/parallel-thread-execution,
// #integer-arithmetic-instructions-mad).
//   p          64-bit generic address (a row of a matrix)
//   rows       u32 row count
//   row_bytes  u32 bytes per row (leading dimension * element size; must be < 2^32)
// Written in PTX on purpose: from C++ the compiler hoists every loop-invariant rows * ld
// product out of a main loop and keeps one 64-bit pointer per row live in registers; here
// each address is recomputed from the moving base pointer with a single IMAD.WIDE.U32.
__device__ __forceinline__ const float* add_rows(const float* p, unsigned rows, unsigned row_bytes) {
  unsigned long long out;
  asm("mad.wide.u32 %0, %1, %2, %3;\n" : "=l"(out) : "r"(rows), "r"(row_bytes), "l"(p));
  return reinterpret_cast<const float*>(out);
}
