// What a kernel candidate is: a family (which template) and its tile parameters, plus
// the specialization that follows from the problem (transposes, vector widths).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "jitgemm/problem.hpp"

namespace jitgemm {

// One kernel template family each:
//   SimtFp32     fp32/simt_gemm.cu, FP32 FMA on CUDA cores ("simt_fp32")
//   WgmmaTf32x3  tf32/wgmma_gemm.cu with TF32X3 = 1: three TF32 products, float32 accuracy
//                ("wgmma_tf32x3"); operands come K-major from tf32/split_operand.cu
//   WgmmaTf32    the same template with TF32X3 = 0: one TF32 product ("wgmma_tf32")
//   MmaTf32x3    tf32/mma_sync_gemm.cu with TF32X3 = 1: warp-level mma.sync.m16n8k8, three TF32
//                products, operands read in place with cp.async ("mma_tf32x3"); any layout
//   MmaTf32      the same template with TF32X3 = 0: one TF32 product ("mma_tf32")
enum class KernelFamily { SimtFp32, WgmmaTf32x3, WgmmaTf32, MmaTf32x3, MmaTf32 };

inline constexpr KernelFamily kKernelFamilies[] = {KernelFamily::SimtFp32, KernelFamily::WgmmaTf32x3,
                                                   KernelFamily::WgmmaTf32, KernelFamily::MmaTf32x3,
                                                   KernelFamily::MmaTf32};

// The persistent TMA + wgmma families (tf32/wgmma_gemm.cu, fed by the split_operand pre-pass).
constexpr bool is_wgmma(KernelFamily f) noexcept {
  return f == KernelFamily::WgmmaTf32x3 || f == KernelFamily::WgmmaTf32;
}
// The cp.async + mma.sync families (tf32/mma_sync_gemm.cu): launched like SIMT (one CTA per
// tile, split-K along gridDim.y), reading the operands in place.
constexpr bool is_mma_sync(KernelFamily f) noexcept {
  return f == KernelFamily::MmaTf32x3 || f == KernelFamily::MmaTf32;
}
// Any family that multiplies on tensor cores (tf32x3 or tf32 mode).
constexpr bool is_tensor_core(KernelFamily f) noexcept { return is_wgmma(f) || is_mma_sync(f); }
// The precision mode a family computes.
constexpr Precision precision_of(KernelFamily f) noexcept {
  return f == KernelFamily::WgmmaTf32x3 || f == KernelFamily::MmaTf32x3 ? Precision::TF32x3
         : f == KernelFamily::WgmmaTf32 || f == KernelFamily::MmaTf32   ? Precision::TF32
                                                                          : Precision::FP32;
}

std::string_view to_string(KernelFamily f) noexcept;
KernelFamily parse_kernel_family(std::string_view text, std::string_view what = "family");

// Tunable parameters. Every family reads the fields it needs; the rest keep their defaults
// (statically_valid insists, so that name() stays unique):
//   simt_fp32:   block_m/n/k, warps_m/n, thread_m/n, stages, split_k, raster_group
//   wgmma_tf32*: block_m/n/k, stages, consumers, acc_block_k, acc_buffers, sum_blocks,
//                raster_group, a_in_registers, a_round, swap_ab, convert_b, transform_b,
//                stream_k, cluster (tf32/wgmma_gemm.cu explains each)
//   mma_tf32*:   block_m/n/k, warps_m/n, stages, acc_block_k, split_k, raster_group
//                (tf32/mma_sync_gemm.cu)
struct KernelConfig {
  KernelFamily family = KernelFamily::SimtFp32;
  int block_m = 128;    // C tile rows per CTA
  int block_n = 128;    // C tile columns per CTA
  int block_k = 8;      // K slice per pipeline stage
  int warps_m = 2;      // warps along M
  int warps_n = 4;      // warps along N
  int thread_m = 8;     // C rows per thread (register tile)
  int thread_n = 8;     // C columns per thread
  int stages = 3;       // cp.async pipeline depth
  int split_k = 1;      // K slices reduced afterwards (1: none)
  int raster_group = 8; // CTA rows per group in the grouped launch order (L2 reuse)
  // wgmma families only:
  int consumers = 2;    // consumer warpgroups, 64 rows of C each (block_m = 64 * consumers)
  // wgmma and mma.sync families:
  int acc_block_k = 32; // K per FP32-added accumulation block (tf32: 0 = none)
  // wgmma families only:
  int acc_buffers = 1;  // tf32x3 block accumulators (2: the next block runs during the add)
  int sum_blocks = 0;   // tf32x3 blocks per mid-level sum (0: one-level running sum)
  int a_in_registers = 0;  // 1: the kernel's A is read raw and rounded/split in registers (RS)
  int a_round = 1;         // RS: 1: A's big part rounded (rna); 0: truncated (the raw tensor-core read)
  int swap_ab = 0;         // RS: 1: the kernel computes C^T = op(B)^T op(A)^T (op(B) in registers)
  int convert_b = 0;       // tf32 RS: 1: the kernel writes B's TF32 plane itself (no pre-pass)
  int transform_b = 0;     // RS: 1: B is read raw (stored MN-major) and made K-major in shared memory (no pre-pass)
  int stream_k = 0;        // 1: the last wave's tiles are shared out along K (tf32/tile_schedule.cuh)
  int cluster = 1;         // 2: CTA pairs on tiles side by side along N share A's tile (TMA multicast)

  // SIMT and mma.sync: warps_m * warps_n * 32; wgmma: a producer warpgroup plus the consumers.
  int threads() const noexcept { return is_wgmma(family) ? 128 * (1 + consumers) : warps_m * warps_n * 32; }
  // Unique per config, usable in file names:
  //   simt_fp32:   "simt_fp32_128x128x8_w2x4_t8x8_s3_k1_g8"
  //   wgmma_tf32*: "wgmma_tf32x3_128x128x32_c2_s3_a32_b2_m0_g8" (c consumers, s stages,
  //                a acc_block_k, b acc_buffers, m sum_blocks, g raster_group), then "_rs"
  //                (A in registers, rounded) or "_rst" (truncated), then "_swap", then "_cvt", then "_tw"
  //                (transform warps), then "_sk", then "_x2" (a cluster of 2)
  //   mma_tf32*:   "mma_tf32x3_128x128x32_w2x4_s3_a32_k1_g8" (w warps, s stages, a acc_block_k,
  //                k split_k, g raster_group)
  std::string name() const;
  static KernelConfig parse(std::string_view name);  // inverse of name(); InvalidArgument

  friend bool operator==(const KernelConfig&, const KernelConfig&) = default;
};

// Whether the fields only the wgmma families read keep their defaults: consumers,
// acc_buffers, sum_blocks, the register-A fields (a_in_registers, a_round, swap_ab,
// convert_b, transform_b), stream_k and cluster. The other families require it, so that names stay unique.
bool wgmma_only_fields_at_defaults(const KernelConfig& c) noexcept;

// What the problem fixes at compile time.
struct KernelSpecialization {
  Op trans_a = Op::N;
  Op trans_b = Op::N;
  int vec_a = 4;  // 4: 16-byte global accesses allowed; 1: element accesses
  int vec_b = 4;
  int vec_c = 4;

  std::string suffix() const;  // "NT_v4v1v4"
  friend bool operator==(const KernelSpecialization&, const KernelSpecialization&) = default;
};

// For a wgmma config with A in registers: whether the operand it reads raw (op(A), or op(B)^T
// when swap_ab) is stored MN-major, i.e. with its M (or N) index contiguous: A stored K x M
// (trans_a = T), or, swapped, B stored K x N (trans_b = N).
constexpr bool raw_operand_mn_major(const KernelConfig& c, Op trans_a, Op trans_b) noexcept {
  return c.swap_ab != 0 ? trans_b == Op::N : trans_a == Op::T;
}

// For a wgmma config that converts B in the kernel: whether the caller's matrix its B comes
// from (op(B)^T, or op(A) when swap_ab) is stored with the rows index contiguous (K x rows):
// B stored K x N (trans_b = N), or, swapped, A stored K x M (trans_a = T).
constexpr bool converted_operand_transposed(const KernelConfig& c, Op trans_a, Op trans_b) noexcept {
  return c.swap_ab != 0 ? trans_a == Op::T : trans_b == Op::N;
}

// For a wgmma config that transforms B in shared memory (transform_b): the caller's matrix its
// B comes from is the same one as for convert_b, and it must be stored K x rows (MN-major).
constexpr bool transformed_operand_mn_major(const KernelConfig& c, Op trans_a, Op trans_b) noexcept {
  return converted_operand_transposed(c, trans_a, trans_b);
}

struct KernelConfigHash {
  size_t operator()(const KernelConfig& c) const noexcept;
};

}  // namespace jitgemm
