// What a kernel candidate is: a family (which template), the precision it computes, the tile
// every family has, and the family's own typed parameters; plus the specialization that
// follows from the problem (transposes, vector widths).
//
//   KernelConfig c = KernelConfig::parse("wgmma_tf32x3_128x128x32_c2_s3_a32_b1_m0_g8_rs");
//   if (const WgmmaParams* w = c.if_wgmma(); w && w->a_in_registers()) ...
//   const KernelFamilyRules& rules = family_rules(c.family());   // codegen/kernel_family.hpp
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>

#include "jitgemm/problem.hpp"
#include "problem/operand_structure.hpp"

namespace jitgemm {

// The kernel templates, one home each (codegen/kernel_family.hpp):
//   Simt     fp32/simt_gemm.cu: FP32 FMA on CUDA cores (fp32 only)
//   MmaSync  tf32/mma_sync_gemm.cu: cp.async + warp-level mma.sync.m16n8k8, operands read in
//            place (any layout); tf32x3 (three TF32 products) or tf32 (one)
//   Wgmma    tf32/wgmma_gemm.cu: persistent, warp-specialized TMA + wgmma; tf32x3 or tf32
// The order is the index of the family's parameters in KernelConfig::params.
enum class KernelFamily { Simt, MmaSync, Wgmma };
inline constexpr KernelFamily kKernelFamilies[] = {KernelFamily::Simt, KernelFamily::MmaSync, KernelFamily::Wgmma};

// "simt", "mma", "wgmma": the first word of a config name.
std::string_view to_string(KernelFamily f) noexcept;
// The family of that name; nullopt for another text.
std::optional<KernelFamily> family_named(std::string_view name) noexcept;

// SIMT: each warp's 32 lanes hold thread_m x thread_n outputs each.
struct SimtParams {
  int warps_m = 2;   // warps along M
  int warps_n = 4;   // warps along N
  int thread_m = 8;  // C rows per thread (register tile)
  int thread_n = 8;  // C columns per thread
  // Where the K slice's barrier sits (fp32/simt_gemm.cu, EARLY_BARRIER): false, before the last
  // k row's update, row 0 of the next slice read after the loader's copies; true, one row
  // earlier, row 0 read before the copies. Which is faster depends on the tile and the shape.
  bool early_barrier = false;
  friend bool operator==(const SimtParams&, const SimtParams&) = default;
};

// mma.sync: warps_m x warps_n warps, each a grid of 16 x 8 products.
struct MmaSyncParams {
  int warps_m = 2;
  int warps_n = 4;
  int acc_block_k = 32;  // K per FP32-added accumulation block (tf32: 0 = none)
  friend bool operator==(const MmaSyncParams&, const MmaSyncParams&) = default;
};

// Where the wgmma kernel's A operand comes from (tf32/wgmma_gemm.cu):
//   Planes              K-major TF32 planes written by the split_operand pre-pass (SS)
//   Registers           read raw by TMA, rounded (or split) in registers (RS), big part rounded
//   RegistersTruncated  the same, its big part truncated (the raw tensor-core read)
enum class WgmmaA { Planes, Registers, RegistersTruncated };
// Where the kernel's B operand comes from:
//   Planes         the pre-pass's K-major planes
//   Converted      tf32, A in registers: the producer warpgroup's idle warps write B's TF32
//                  plane during the kernel (tf32/convert_operand.cuh), no pre-pass
//   Transformed    A in registers, B stored MN-major: read raw by TMA and rewritten K-major in
//                  shared memory by warps 1..3 of the producer warpgroup (transform_operand.cuh)
//   Rounded        A in registers, B stored K-major: read raw by TMA into the stage's big plane
//                  and rounded (or split) there in place by the same warps (no transpose)
enum class WgmmaB { Planes, Converted, Transformed, Rounded };
// How persistent CTAs share out the tiles:
//   DataParallel  whole tiles
//   StreamK       the last partial wave and one full wave cut along K (tf32/tile_schedule.cuh)
enum class TileSchedule { DataParallel, StreamK };

std::string_view to_string(WgmmaA a) noexcept;        // "planes", "registers", "registers_truncated"
std::string_view to_string(WgmmaB b) noexcept;        // "planes", "converted", "transformed", "rounded"
std::string_view to_string(TileSchedule s) noexcept;  // "data_parallel", "stream_k"

struct WgmmaParams {
  int consumers = 2;    // consumer warpgroups, 64 rows of C each (block_m = 64 * consumers)
  int acc_block_k = 32; // K per FP32-added accumulation block (tf32: 0 = none)
  int acc_buffers = 1;  // tf32x3 block accumulators (2: the next block runs during the add)
  int sum_blocks = 0;   // tf32x3 blocks per mid-level sum (0: one-level running sum)
  WgmmaA a = WgmmaA::Planes;
  bool swap_ab = false; // A in registers only: the kernel computes C^T = op(B)^T op(A)^T
  WgmmaB b = WgmmaB::Planes;
  TileSchedule schedule = TileSchedule::DataParallel;
  int cluster = 1;      // 2: CTA pairs on tiles side by side along N share A's tile (TMA multicast)

  bool a_in_registers() const noexcept { return a != WgmmaA::Planes; }
  // B read raw by TMA and rewritten in shared memory by the producer warpgroup's warps 1..3
  // (transposed, or rounded in place): no pre-pass writes B's planes or sets its flag.
  bool b_read_raw() const noexcept { return b == WgmmaB::Transformed || b == WgmmaB::Rounded; }
  friend bool operator==(const WgmmaParams&, const WgmmaParams&) = default;
};

// One candidate. The tile fields are every family's; `params` holds the family's own, so a
// field one family does not read cannot be set on another's config.
struct KernelConfig {
  Precision precision = Precision::FP32;
  int block_m = 128;     // C tile rows per CTA
  int block_n = 128;     // C tile columns per CTA
  int block_k = 8;       // K slice per pipeline stage
  int stages = 3;        // pipeline depth
  int split_k = 1;       // K slices reduced afterwards (1: none; SIMT and mma.sync only)
  int raster_group = 8;  // CTA rows per group in the grouped launch order (L2 reuse)
  std::variant<SimtParams, MmaSyncParams, WgmmaParams> params;

  KernelFamily family() const noexcept { return static_cast<KernelFamily>(params.index()); }
  // The family's parameters; std::bad_variant_access on a config of another family.
  const SimtParams& simt() const { return std::get<SimtParams>(params); }
  SimtParams& simt() { return std::get<SimtParams>(params); }
  const MmaSyncParams& mma_sync() const { return std::get<MmaSyncParams>(params); }
  MmaSyncParams& mma_sync() { return std::get<MmaSyncParams>(params); }
  const WgmmaParams& wgmma() const { return std::get<WgmmaParams>(params); }
  WgmmaParams& wgmma() { return std::get<WgmmaParams>(params); }
  const WgmmaParams* if_wgmma() const noexcept { return std::get_if<WgmmaParams>(&params); }

  // Threads per CTA (the family's rule).
  int threads() const;
  // CTA tiles of an m x n output (ceil(m / block_m) x ceil(n / block_n)).
  int64_t output_tiles(int64_t m, int64_t n) const {
    return ((m + block_m - 1) / block_m) * ((n + block_n - 1) / block_n);
  }
  // Unique per config, usable in file names; the family writes everything after the tile:
  //   simt:   "simt_fp32_128x128x8_w2x4_t8x8_s3_k1_g8"
  //   wgmma:  "wgmma_tf32x3_128x128x32_c2_s3_a32_b2_m0_g8" (c consumers, s stages, a
  //           acc_block_k, b acc_buffers, m sum_blocks, g raster_group), then "_rs" (A in
  //           registers, rounded) or "_rst" (truncated), "_swap", "_cvt", "_tw" (transform
  //           warps), "_sk" (stream-K), "_x2" (a cluster of 2)
  //   mma:    "mma_tf32x3_128x128x32_w2x4_s3_a32_k1_g8"
  std::string name() const;
  static KernelConfig parse(std::string_view name);  // inverse of name(); InvalidArgument

  friend bool operator==(const KernelConfig&, const KernelConfig&) = default;
};

// A config of `family` computing `precision`, with that family's default parameters.
KernelConfig make_config(KernelFamily family, Precision precision);

// What the problem fixes at compile time.
struct KernelSpecialization {
  Op trans_a = Op::N;
  Op trans_b = Op::N;
  int vec_a = 4;  // 4: 16-byte global accesses allowed; 1: element accesses
  int vec_b = 4;
  int vec_c = 4;
  Triangle fill = Triangle::None;  // the part of C kept (the rest written as zeros)
  bool work_list = false;          // tiles and K ranges from a work list (exec/work_list.hpp)
  // Triangular operands: the nonzero triangles of op(A) and op(B) (ProductTriangles' a and b)
  // and their unit diagonals. Only a family that reads such an operand raw and masks it in the
  // kernel (wgmma: A in registers, B transformed or rounded) renders them; the others are
  // given dense copies and ignore them.
  Triangle a_triangle = Triangle::None, b_triangle = Triangle::None;
  bool a_unit = false, b_unit = false;
  // Symmetric operands: the stored triangle of A and of B. The families that get a dense copy
  // of one may read it in either layout (a symmetric matrix is its transpose): the SIMT family
  // picks the one its loader prefers (simt_family.cpp).
  Triangle a_symmetric = Triangle::None, b_symmetric = Triangle::None;
  // General operands the SIMT family reads from an aligned dense copy, M- or N-contiguous
  // (simt_operand_copies; the other families ignore these).
  bool a_aligned_copy = false, b_aligned_copy = false;
  // The SIMT kernel's tiles cover only rows [0, m0) x columns [0, n0) and fp32/edge_strips.cu
  // the edges past them (simt_edge_strips; the other families ignore this).
  bool edge_strips = false;

  std::string suffix() const;  // "NT_v4v1v4", then "_fl" / "_fu" for a fill and "_wl" for a work list
  friend bool operator==(const KernelSpecialization&, const KernelSpecialization&) = default;
};

struct KernelConfigHash {
  size_t operator()(const KernelConfig& c) const noexcept;
};

}  // namespace jitgemm
