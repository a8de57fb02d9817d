// The backward products of a GemmProblem: the gradients PyTorch autograd gives for the Model
// fill(alpha * op(A) @ op(B)) on the dense matrices the stored operands stand for, each
// computed as ordinary forward products (served, tuned and cached like any other).
//
// G = dC masked by the fill (tril / triu of dC; Full: dC). It is never masked in memory: the
// gradient products declare dC a Lower / Upper operand, so its other triangle is not read.
//
//   op(A) = N:  dA = alpha G op(B)^T   (M x K)      op(B) = N:  dB = alpha op(A)^T G   (K x N)
//   op(A) = T:  dA = alpha op(B) G^T   (K x M)      op(B) = T:  dB = alpha G^T op(A)   (N x K)
//
// dA is written stored like A (leading dimension lda), dB like B (ldb). Operand structures
// stay on their operand (a Lower B used in dA's product is still a Lower stored matrix, only
// its op flips).
#pragma once

#include <optional>

#include "jitgemm/problem.hpp"

namespace jitgemm {

// Projection of a gradient on its operand's declared structure, for parameters kept
// structured (a triangular or symmetric weight). Asking it for a general operand is an
// InvalidArgument naming the option.
//   Lower / Upper           the stored triangle of the gradient (computed with the gradient
//                           product's output fill), zeros elsewhere.
//   LowerUnit / UpperUnit   the strict triangle (the diagonal is not a parameter): zero diagonal.
//   Symmetric(Upper)        (dX + dX^T) / 2, the whole square matrix written (symmetric up to
//                           rounding: the two halves come from two products).
struct BackwardOptions {
  bool project_a = false;
  bool project_b = false;
};

// Which operand of a gradient product reads dC: the product's A (its first) or its B.
enum class DcOperand { First, Second };

// How one gradient is computed, in order:
//   1. `product` (beta = 0) writes it; dC is its `dc_operand`, the other operand is the
//      forward's B (for dA) or A (for dB).
//   2. `transposed_sum` (symmetric projection only): the transpose of the same product, with
//      the operands' roles exchanged (dC is the other operand) and beta = 1, adds into the
//      same output; both products then carry alpha / 2.
//   3. `zero_diagonal` (unit-diagonal projection only): the diagonal of the output set to 0.
struct GradientProblem {
  GemmProblem product;
  DcOperand dc_operand = DcOperand::First;
  std::optional<GemmProblem> transposed_sum;
  bool zero_diagonal = false;
};

struct BackwardProblems {
  GradientProblem da;
  GradientProblem db;
};

// The gradient products of `forward` (validated first, as "backward_problems"). Throws
// InvalidArgument for a projection of a general operand (naming project_a / project_b).
BackwardProblems backward_problems(const GemmProblem& forward, const BackwardOptions& options = {});

}  // namespace jitgemm
