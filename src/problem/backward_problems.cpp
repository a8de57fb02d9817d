// backward_problems: the forward products that compute dA and dB (jitgemm/backward.hpp).
#include "jitgemm/backward.hpp"

#include <fmt/format.h>

#include <utility>

#include "jitgemm/error.hpp"
#include "problem/operand_structure.hpp"

namespace jitgemm {
namespace {

constexpr Op flipped(Op op) noexcept { return op == Op::N ? Op::T : Op::N; }

// One operand of a gradient product: a stored matrix (forward A, B or dC), how the product
// reads it, and what is declared about it.
struct Operand {
  Op op;
  int64_t ld;
  Structure structure;
};

// G = fill(dC): dC declared triangular where the fill masks it, so the product never reads the
// masked triangle (no masking pass). dC is stored M x N with ldc.
Structure dc_structure(Fill fill) noexcept {
  switch (fill) {
    case Fill::Lower: return Structure::Lower;
    case Fill::Upper: return Structure::Upper;
    case Fill::Full: break;
  }
  return Structure::General;
}

// out = alpha op(first) op(second), out m x n with leading dimension ldc (beta = 0, full).
GemmProblem product(const GemmProblem& forward, int64_t m, int64_t n, int64_t k, Operand first, Operand second,
                    int64_t ldc) {
  GemmProblem p;
  p.m = m, p.n = n, p.k = k;
  p.trans_a = first.op, p.lda = first.ld, p.structure_a = first.structure;
  p.trans_b = second.op, p.ldb = second.ld, p.structure_b = second.structure;
  p.ldc = ldc;
  p.alpha = forward.alpha;
  p.beta = 0.0f;
  p.precision = forward.precision;
  return p;
}

GradientProblem gradient(const GemmProblem& product, DcOperand dc_operand) {
  GradientProblem g;
  g.product = product;
  g.dc_operand = dc_operand;
  return g;
}

// The same output transposed: X^T = op(second)^T op(first)^T, operands exchanged.
GemmProblem transposed(const GemmProblem& p) {
  GemmProblem t = p;
  t.m = p.n, t.n = p.m;
  t.trans_a = flipped(p.trans_b), t.lda = p.ldb, t.structure_a = p.structure_b;
  t.trans_b = flipped(p.trans_a), t.ldb = p.lda, t.structure_b = p.structure_a;
  return t;
}

// Applies `project` for an operand declared `structure` to the gradient `g` (stored like the
// operand). `option` names the option in errors.
void project(GradientProblem& g, Structure structure, const char* option, const char* structure_name) {
  if (structure == Structure::General)
    throw InvalidArgument(fmt::format("backward_problems: BackwardOptions.{} needs a structured operand, but {}=general "
                                      "(only a triangular or symmetric operand's gradient can be projected)",
                                      option, structure_name));
  if (is_triangular(structure)) {
    // The output fill keeps the stored triangle (diagonal included) and writes zeros elsewhere;
    // a unit diagonal is no parameter, so its gradient is zeroed after.
    g.product.fill = stored_triangle(structure) == Triangle::Lower ? Fill::Lower : Fill::Upper;
    g.zero_diagonal = has_unit_diagonal(structure);
    return;
  }
  // Symmetric: (X + X^T) / 2 = (alpha/2) P + (alpha/2) P^T, the second product added with beta
  // = 1. Halving is exact (a power of two) unless alpha is subnormal.
  g.product.alpha *= 0.5f;
  GemmProblem t = transposed(g.product);
  t.beta = 1.0f;
  g.transposed_sum = t;
}

}  // namespace

BackwardProblems backward_problems(const GemmProblem& forward, const BackwardOptions& options) {
  forward.validate("backward_problems");
  const int64_t m = forward.m, n = forward.n, k = forward.k;
  const Operand a{forward.trans_a, forward.effective_lda(), forward.structure_a};
  const Operand b{forward.trans_b, forward.effective_ldb(), forward.structure_b};
  const Structure g_structure = dc_structure(forward.fill);
  const Operand g{Op::N, forward.effective_ldc(), g_structure};
  const Operand g_t{Op::T, forward.effective_ldc(), g_structure};

  BackwardProblems out;
  // dA: dop(A) = alpha G op(B)^T (M x K); op(A) = T stores its transpose op(B) G^T (K x M).
  if (forward.trans_a == Op::N)
    out.da = gradient(product(forward, m, k, n, g, {flipped(b.op), b.ld, b.structure}, a.ld), DcOperand::First);
  else
    out.da = gradient(product(forward, k, m, n, b, g_t, a.ld), DcOperand::Second);
  // dB: dop(B) = alpha op(A)^T G (K x N); op(B) = T stores its transpose G^T op(A) (N x K).
  if (forward.trans_b == Op::N)
    out.db = gradient(product(forward, k, n, m, {flipped(a.op), a.ld, a.structure}, g, b.ld), DcOperand::Second);
  else
    out.db = gradient(product(forward, n, k, m, g_t, a, b.ld), DcOperand::First);

  if (options.project_a) project(out.da, forward.structure_a, "project_a", "structure_a");
  if (options.project_b) project(out.db, forward.structure_b, "project_b", "structure_b");
  // By construction valid whenever the forward is; the check keeps that true as rules grow
  // (e.g. a leading-dimension limit on inputs now reached by ldc).
  for (const auto& [name, grad] : {std::pair{"dA", &out.da}, std::pair{"dB", &out.db}}) {
    grad->product.validate(fmt::format("backward_problems: the {} product", name));
    if (grad->transposed_sum) grad->transposed_sum->validate(fmt::format("backward_problems: the {}^T product", name));
  }
  return out;
}

}  // namespace jitgemm
