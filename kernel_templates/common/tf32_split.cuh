// tf32_split.cuh — float32 -> TF32 rounding and the big/small split of the 3xTF32 scheme.
//
// PTX ISA, "Data Movement and Conversion Instructions: cvt" (docs.nvidia.com/cuda/
// parallel-thread-execution, anchor #data-movement-and-conversion-instructions-cvt):
//   cvt.rna.tf32.f32 d, a;   d (.b32) = a rounded to TF32 (10 explicit mantissa bits),
//                            nearest, ties away from zero; the low 13 bits of d are zero,
//                            so d read as a float is a float with a TF32 value.
// The tensor cores read a float operand as TF32 by dropping its low 13 bits (truncation), so a
// rounded value is the operand they see exactly. (A TMA copy through a TFLOAT32 tensor map
// rounds each float on the way: tf32 mode's operands arrive rounded, src/exec/tensor_maps.hpp.)
//
// Split (kernel-design.md section 1): x = big + small + O(2^-22 |x|) with
//   big   = rna(x)            (or trunc(x): the raw float as the tensor cores see it)
//   small = rna(x - big)      (x - big is exact in float32)
// and a·b ≈ aS·bB + aB·bS + aB·bB. Non-finite x gives a non-finite big or small (x = inf:
// big = inf, small = NaN; x = NaN: both NaN; |x| near FLT_MAX: big = inf, small = -inf).
#pragma once

// A NaN whose payload survives the loss of the low 13 bits. A NaN with only low payload bits
// (0x7f800001) would read as inf after rounding or truncation to TF32.
__device__ __forceinline__ float tf32_nan() { return __uint_as_float(0x7fffffffu); }

// cvt.rna.tf32.f32, returned as the float whose bits it is; NaN stays NaN (canonical).
__device__ __forceinline__ float tf32_round(float x) {
  unsigned bits;
  asm("cvt.rna.tf32.f32 %0, %1;\n" : "=r"(bits) : "f"(x));
  return x == x ? __uint_as_float(bits) : tf32_nan();
}

// The value the tensor cores read from a raw float: its low 13 bits cleared, for a non-NaN x
// (a NaN whose payload lies in those bits would read as inf).
__device__ __forceinline__ float tf32_truncate_not_nan(float x) { return __uint_as_float(__float_as_uint(x) & 0xffffe000u); }

// The same for any x; NaN stays NaN.
__device__ __forceinline__ float tf32_truncate(float x) { return x == x ? tf32_truncate_not_nan(x) : tf32_nan(); }

// rna(x) by integer arithmetic for a non-NaN x (inf stays inf, overflow rounds to inf): the
// value cvt.rna.tf32.f32 gives, in two instructions instead of four, for callers that check
// for NaN themselves (a NaN's payload may round to inf or carry into the sign here).
__device__ __forceinline__ float tf32_round_not_nan(float x) {
  return __uint_as_float((__float_as_uint(x) + 0x1000u) & 0xffffe000u);
}

// Inf/NaN detection at one FFMA per value: probe = fmaf(x, 0, probe) over the values, starting
// from 0, is NaN exactly when one of them was inf or NaN (0 * inf and 0 * NaN are NaN; 0 times a
// finite value adds a zero). isfinite costs a compare per value and their combination, and the
// loops that split every value of a tile are instruction-bound on huge K.
__device__ __forceinline__ float fold_nonfinite(float probe, float x) { return fmaf(x, 0.0f, probe); }
__device__ __forceinline__ bool probe_nonfinite(float probe) { return probe != probe; }

template <int N>
__device__ __forceinline__ bool any_nonfinite(const float* x) {
  float probe = 0.0f;
#pragma unroll
  for (int i = 0; i < N; ++i) probe = fold_nonfinite(probe, x[i]);
  return probe_nonfinite(probe);
}

struct Tf32Pair {
  float big;
  float small;
};

// The 3xTF32 split of x; ROUND_BIG = false takes the truncated value as the big part.
template <bool ROUND_BIG>
__device__ __forceinline__ Tf32Pair tf32_split(float x) {
  const float big = ROUND_BIG ? tf32_round(x) : tf32_truncate(x);
  return {big, tf32_round(x - big)};
}

// The same split of a finite x as the tensor cores will read it, for operands that only a tf32
// mma reads: in three instructions (ROUND_BIG: four) instead of the dozen of the NaN-safe one.
// The small part is rounded by the integer add alone, its mask left to the tensor cores, which
// drop the low 13 bits (x - big is exact, and far from FLT_MAX). Callers make sure that x is finite (inf and NaN take tf32_split).
// Which big part: a·b ≈ aS·bB + aB·bS + aB·bB drops aS·bS. With both big parts truncated, aS and
// bS carry the signs of a and b, so the dropped term has the sign of a·b in every product and
// its error adds up over K (H200, largeK: 1.7e-7 against 9.6e-8 with one operand rounded). So
// at least one operand of a product rounds its big part.
template <bool ROUND_BIG>
__device__ __forceinline__ Tf32Pair tf32_split_finite_for_mma(float x) {
  const float big = ROUND_BIG ? tf32_round_not_nan(x) : tf32_truncate_not_nan(x);
  return {big, __uint_as_float(__float_as_uint(x - big) + 0x1000u)};
}

// NaN -> 0, everything else unchanged: the inf rule of kernel-design.md section 1, applied to
// the small-product partial sum (0·inf from a finite operand's zero small part times an
// infinite big part must not poison a product whose big part carries the inf).
__device__ __forceinline__ float nan_to_zero(float x) { return x == x ? x : 0.0f; }
