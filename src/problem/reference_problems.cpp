#include "problem/reference_problems.hpp"

namespace jitgemm {

std::vector<ReferenceProblem> reference_problems(Precision precision) {
  auto dense = [&](int64_t m, int64_t n, int64_t k, Op ta, Op tb) {
    GemmProblem p;
    p.m = m;
    p.n = n;
    p.k = k;
    p.trans_a = ta;
    p.trans_b = tb;
    p.precision = precision;
    return p;
  };
  // Both reference operands are symmetric and fully stored. B is declared symmetric: it is
  // read from its lower triangle, and the pre-pass writes it K-major without a transpose. A
  // stays general, so the kernels that read it in place (TMA) may.
  auto symmetric_b = [](GemmProblem p) {
    p.structure_b = Structure::Symmetric;
    return p;
  };
  auto lowertri = [](GemmProblem p) {
    p.structure_a = p.structure_b = Structure::Lower;
    p.fill = Fill::Lower;
    return p;
  };
  return {
      {"largeK", dense(256, 256, 524288, Op::N, Op::N), true,
       "huge K: K pieces across the GPU, partial sums added in a fixed order"},
      {"symmetric", symmetric_b(dense(4096, 4096, 4096, Op::N, Op::N)), true,
       "A read in place, B declared symmetric (lower triangle read)"},
      {"lowertri", lowertri(dense(4096, 4096, 4096, Op::N, Op::N)), true,
       "tril(A B), A and B lower triangular: triangular work only"},
      // A is stored K x M: op(A) = A^T read in place.
      {"transA", dense(2048, 4096, 8192, Op::T, Op::N), true, "general product with op(A) = T"},
  };
}

}  // namespace jitgemm
