// The description of one matrix product C = alpha * op(A) * op(B) + beta * C.
//
// Row-major like PyTorch: op(A) is M x K, op(B) is K x N, C is M x N. A is stored
// M x K (trans_a = N) or K x M (trans_a = T) with leading dimension lda >= its row
// length; B likewise; C is stored M x N with ldc >= N. A leading dimension of 0 means
// "tight" (the row length).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "jitgemm/error.hpp"  // what validate() and the parse_ functions throw

namespace jitgemm {

enum class Op { N, T };

// What the caller declares about an operand, as it is stored (before op). A structured
// operand's other triangle is never read (the BLAS convention), so it may hold anything,
// NaN included.
//   General         every element is read.
//   Symmetric       square, read from the lower triangle (row >= column) of the stored
//                   matrix; SymmetricUpper from the upper one. op does not matter: the
//                   kernel picks the layout it reads.
//   Lower, Upper    triangular (trapezoidal when not square, as torch.tril of it): the
//                   elements above (Lower) or below (Upper) the diagonal are zero. op
//                   applies after: a Lower operand used with op T is upper triangular.
//   LowerUnit,      the same with a unit diagonal, as BLAS trmm's diag = 'U': the diagonal
//   UpperUnit       is not read and taken as 1.
// The C ABI's jitgemm_structure has the same values in the same order.
enum class Structure { General, Symmetric, Lower, Upper, SymmetricUpper, LowerUnit, UpperUnit };

// Which part of C is written: the full matrix, or C = tril (triu) of alpha op(A) op(B) +
// beta C with the other strict triangle written as zeros (torch.tril semantics; C is not
// read there).
enum class Fill { Full, Lower, Upper };

// fp32: plain FP32 FMA. tf32x3: tensor cores, split operands, float32 accuracy.
// tf32: tensor cores, one TF32 product. Contracts in reference-problems.md.
enum class Precision { FP32, TF32x3, TF32 };

struct GemmProblem {
  int64_t m = 0;
  int64_t n = 0;
  int64_t k = 0;
  Op trans_a = Op::N;
  Op trans_b = Op::N;
  int64_t lda = 0;  // 0: tight
  int64_t ldb = 0;
  int64_t ldc = 0;
  float alpha = 1.0f;
  float beta = 0.0f;  // beta == 0: C is write-only (NaN or garbage in C is ignored)
  Structure structure_a = Structure::General;
  Structure structure_b = Structure::General;
  Fill fill = Fill::Full;
  Precision precision = Precision::FP32;

  // Leading dimensions with 0 resolved to the tight value.
  int64_t effective_lda() const noexcept;
  int64_t effective_ldb() const noexcept;
  int64_t effective_ldc() const noexcept;

  // Throws InvalidArgument naming the argument and the rule, or NotSupported for a
  // combination this version does not implement yet. `where` prefixes the message.
  void validate(std::string_view where = "GemmProblem") const;

  // Human-readable one-liner, e.g. "4096x4096x4096 NN fp32 lda=4096 ldb=4096 ldc=4096".
  std::string to_string() const;
};

// Stable names, used in JSON, on the command line and in messages.
std::string_view to_string(Op op) noexcept;
std::string_view to_string(Structure s) noexcept;
std::string_view to_string(Fill f) noexcept;
std::string_view to_string(Precision p) noexcept;

// Parse the names above; throw InvalidArgument naming `what` and the accepted values.
Op parse_op(std::string_view text, std::string_view what = "op");
Structure parse_structure(std::string_view text, std::string_view what = "structure");
Fill parse_fill(std::string_view text, std::string_view what = "fill");
Precision parse_precision(std::string_view text, std::string_view what = "precision");

}  // namespace jitgemm
