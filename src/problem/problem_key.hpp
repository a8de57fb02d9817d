// The canonical key under which tuning records are stored and looked up. Keys come in
// layers compared field by field: the problem (this file), the device and the
// environment (database/device_key.hpp).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "jitgemm/problem.hpp"
#include "problem/operand_structure.hpp"

namespace jitgemm {

// How an operand's leading dimension relates to its row length.
//   Tight:     ld == row length
//   Padded:    ld >  row length and ld % 4 == 0 (16-byte rows stay 16-byte aligned)
//   Unaligned: ld % 4 != 0 (rows start at any 4-byte boundary)
enum class LdClass { Tight, Padded, Unaligned };

std::string_view to_string(LdClass c) noexcept;
LdClass parse_ld_class(std::string_view text, std::string_view what = "ld class");

// The widest vector (in floats) the operand's loads/stores may use: 4 when its base
// pointer is 16-byte aligned and its leading dimension is a multiple of 4, else 1.
int vector_width(int64_t ld, const void* base) noexcept;

struct ProblemKey {
  Precision precision = Precision::FP32;
  Op trans_a = Op::N;
  Op trans_b = Op::N;
  Structure structure_a = Structure::General;
  Structure structure_b = Structure::General;
  Fill fill = Fill::Full;
  int64_t m = 0;
  int64_t n = 0;
  int64_t k = 0;
  LdClass ld_a = LdClass::Tight;
  LdClass ld_b = LdClass::Tight;
  LdClass ld_c = LdClass::Tight;
  int vec_a = 4;  // vector_width() of A, B and C (1 or 4)
  int vec_b = 4;
  int vec_c = 4;

  // "gemm.fp32.NN.general.general.full.4096x4096x4096.tight.tight.tight.v444"
  std::string canonical() const;
  // Inverse of canonical(); throws InvalidArgument naming the bad part.
  static ProblemKey parse(std::string_view text);

  // True when both keys describe the same kind of product (precision, transposes,
  // structures, fill): a record of one may serve the other as "nearest". Sizes, ld
  // classes and vector widths may differ: the kernel is re-specialized for the caller.
  bool same_kind(const ProblemKey& other) const noexcept;

  friend bool operator==(const ProblemKey&, const ProblemKey&) = default;
};

// Hash over every field of a ProblemKey (equal keys hash equal), for unordered containers;
// formats nothing.
struct ProblemKeyHash {
  size_t operator()(const ProblemKey& key) const noexcept;
};

// Key of a problem whose operands live at the given device addresses.
ProblemKey make_problem_key(const GemmProblem& p, const void* a, const void* b, const void* c);
// Key assuming 256-byte aligned base pointers (what cuMemAlloc returns): used by the tuner.
ProblemKey make_problem_key(const GemmProblem& p);

// A problem whose key (with aligned buffers) is `key`: leading dimensions chosen to fall in
// the key's classes (tight: the row length; padded: the next multiple of 4 above it;
// unaligned: the row length plus 1 or 2, not a multiple of 4). alpha 1, beta 0. Used to
// re-tune the problem of a stored record.
GemmProblem problem_for_key(const ProblemKey& key);

// The structure of the key's product (operand_structure.hpp).
inline ProductTriangles product_triangles(const ProblemKey& key) noexcept {
  return product_triangles(key.structure_a, key.trans_a, key.structure_b, key.trans_b, key.fill);
}

}  // namespace jitgemm
