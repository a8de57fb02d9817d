#include "launch/operand_checks.hpp"

#include <fmt/format.h>

#include <cstdint>

#include "jitgemm/error.hpp"
#include "problem/gemm_work.hpp"
#include "problem/stored_shape.hpp"

namespace jitgemm {
namespace {

// Byte extent [begin, end) of a row-major matrix of `rows` rows.
struct Extent {
  uintptr_t begin, end;
};
Extent extent(const void* p, int64_t rows, int64_t cols, int64_t ld) {
  const auto begin = reinterpret_cast<uintptr_t>(p);
  return {begin, begin + sizeof(float) * static_cast<uintptr_t>((rows - 1) * ld + cols)};
}
bool overlaps(Extent x, Extent y) { return x.begin < y.end && y.begin < x.end; }

}  // namespace

void check_operands(const GemmProblem& p, const void* a, const void* b, const void* c, std::string_view where) {
  auto check = [&](const char* name, const void* ptr) {
    if (ptr == nullptr) throw InvalidArgument(fmt::format("{}: {} is a null pointer", where, name));
    if (reinterpret_cast<uintptr_t>(ptr) % alignof(float) != 0)
      throw InvalidArgument(
          fmt::format("{}: {}={} is not 4-byte aligned (float operands need 4-byte alignment)", where, name, ptr));
  };
  // By the BLAS rules an empty C is not touched, and A and B are not read for C = beta * C.
  if (gemm_work(p) == GemmWork::None) return;
  check("C", c);
  if (gemm_work(p) == GemmWork::ScaleOutput) return;
  check("A", a);
  check("B", b);
  const StoredShape sa = stored_shape_a(p), sb = stored_shape_b(p);
  const Extent ea = extent(a, sa.rows, sa.cols, p.effective_lda());
  const Extent eb = extent(b, sb.rows, sb.cols, p.effective_ldb());
  const Extent ec = extent(c, p.m, p.n, p.effective_ldc());
  if (overlaps(ec, ea)) throw InvalidArgument(fmt::format("{}: C overlaps A (the output must not alias an input)", where));
  if (overlaps(ec, eb)) throw InvalidArgument(fmt::format("{}: C overlaps B (the output must not alias an input)", where));
}


}  // namespace jitgemm
