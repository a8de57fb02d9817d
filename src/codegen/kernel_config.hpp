// What a kernel candidate is: a family (which template) and its tile parameters, plus
// the specialization that follows from the problem (transposes, vector widths).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "jitgemm/problem.hpp"

namespace jitgemm {

// One kernel template family each; later issues add tensor-core families.
enum class KernelFamily { SimtFp32 };

std::string_view to_string(KernelFamily f) noexcept;
KernelFamily parse_kernel_family(std::string_view text, std::string_view what = "family");

// Tunable parameters. Every family reads the fields it needs; the rest keep defaults.
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

  int threads() const noexcept { return warps_m * warps_n * 32; }
  // "simt_fp32_128x128x8_w2x4_t8x8_s3_k1_g8": unique per config, usable in file names.
  std::string name() const;
  static KernelConfig parse(std::string_view name);  // inverse of name(); InvalidArgument

  friend bool operator==(const KernelConfig&, const KernelConfig&) = default;
};

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

struct KernelConfigHash {
  size_t operator()(const KernelConfig& c) const noexcept;
};

}  // namespace jitgemm
