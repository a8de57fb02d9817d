// mma_sync.cuh — the warp-level TF32 tensor-core product mma.sync.aligned.m16n8k8 (sm_80+).
//
// PTX ISA, "Warp Level Matrix Multiply-Accumulate Instructions: mma" and "Matrix Fragments
// for mma.m16n8k8" (.tf32 variant; docs.nvidia.com/cuda/parallel-thread-execution, anchors
// #warp-level-matrix-instructions-mma and #warp-level-matrix-fragment-mma-1688).
//
//   mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 d, a, b, c;   D = A * B + C
//     A  16 x 8 TF32, "row": four .b32 registers per lane
//     B   8 x 8 TF32, "col": two .b32 registers per lane
//     C, D 16 x 8 FP32: four .f32 registers per lane
//
// Fragment map of a lane, with g = lane / 4 (groupID) and t = lane % 4 (threadID_in_group):
//   a0 = A[g][t]      a1 = A[g + 8][t]      a2 = A[g][t + 4]      a3 = A[g + 8][t + 4]
//   b0 = B[t][g]      b1 = B[t + 4][g]
//   c0 = C[g][2t]     c1 = C[g][2t + 1]     c2 = C[g + 8][2t]     c3 = C[g + 8][2t + 1]
//
// The tensor cores read an operand register as TF32 by ignoring its low 13 bits; the callers
// pass values already rounded to TF32 (tf32_split.cuh), so what is multiplied is exact.
// All 32 lanes of the warp must execute the instruction together (.aligned).
#pragma once

struct MmaFragA {
  float x[4];  // a0..a3 above
};
struct MmaFragB {
  float x[2];  // b0, b1
};
struct MmaAcc {
  float x[4];  // c0..c3 above
};

// d += a * b for one 16 x 8 x 8 product; the accumulator is read and written in place.
__device__ __forceinline__ void mma_m16n8k8_tf32(MmaAcc& d, const MmaFragA& a, const MmaFragB& b) {
  asm volatile(
      "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 "
      "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};\n"
      : "+f"(d.x[0]), "+f"(d.x[1]), "+f"(d.x[2]), "+f"(d.x[3])                              // D = C
      : "r"(__float_as_uint(a.x[0])), "r"(__float_as_uint(a.x[1])), "r"(__float_as_uint(a.x[2])),
        "r"(__float_as_uint(a.x[3])),                                                        // A
        "r"(__float_as_uint(b.x[0])), "r"(__float_as_uint(b.x[1])));                         // B
}
