#include "launch/operand_checks.hpp"

#include <fmt/format.h>

#include <cstdint>

#include "jitgemm/error.hpp"
#include "problem/gemm_work.hpp"
#include "problem/stored_shape.hpp"

namespace jitgemm {
namespace {

// Byte extent [begin, end) of a non-empty row-major matrix.
struct Extent {
  uintptr_t begin, end;
};
Extent extent(const StoredMatrix& x) {
  const auto begin = reinterpret_cast<uintptr_t>(x.data);
  return {begin, begin + sizeof(float) * static_cast<uintptr_t>((x.rows - 1) * x.ld + x.cols)};
}

}  // namespace

void check_disjoint(std::string_view where, const StoredMatrix& output, const StoredMatrix& other) {
  if (output.rows <= 0 || output.cols <= 0 || other.rows <= 0 || other.cols <= 0) return;
  const Extent x = extent(output), y = extent(other);
  if (x.begin < y.end && y.begin < x.end)
    throw InvalidArgument(
        fmt::format("{}: {} overlaps {} (an output must not alias another operand of the call)", where, output.name, other.name));
}

void check_operands(const GemmProblem& p, const void* a, const void* b, const void* c, std::string_view where,
                    const OperandNames& names) {
  auto check = [&](std::string_view name, const void* ptr) {
    if (ptr == nullptr) throw InvalidArgument(fmt::format("{}: {} is a null pointer", where, name));
    if (reinterpret_cast<uintptr_t>(ptr) % alignof(float) != 0)
      throw InvalidArgument(
          fmt::format("{}: {}={} is not 4-byte aligned (float operands need 4-byte alignment)", where, name, ptr));
  };
  // By the BLAS rules an empty C is not touched, and A and B are not read for C = beta * C.
  if (gemm_work(p) == GemmWork::None) return;
  check(names.c, c);
  if (gemm_work(p) == GemmWork::ScaleOutput) return;
  check(names.a, a);
  check(names.b, b);
  const StoredShape sa = stored_shape_a(p), sb = stored_shape_b(p);
  const StoredMatrix out{names.c, c, p.m, p.n, p.effective_ldc()};
  check_disjoint(where, out, {names.a, a, sa.rows, sa.cols, p.effective_lda()});
  check_disjoint(where, out, {names.b, b, sb.rows, sb.cols, p.effective_ldb()});
}

}  // namespace jitgemm
