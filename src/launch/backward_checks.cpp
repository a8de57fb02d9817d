#include "launch/backward_checks.hpp"

#include "launch/operand_checks.hpp"
#include "problem/gemm_work.hpp"
#include "problem/stored_shape.hpp"

namespace jitgemm {
namespace {

GradientOperands operands_of(const GradientProblem& g, const void* dc, const void* other, std::string_view other_name,
                             void* out, std::string_view out_name) {
  if (g.dc_operand == DcOperand::First) return {dc, other, out, "dC", other_name, out_name};
  return {other, dc, out, other_name, "dC", out_name};
}

// The non-dC operand a gradient product reads, as a stored matrix (empty when it reads nothing).
StoredMatrix forward_input(const GradientProblem& g, const GradientOperands& ops) {
  const GemmProblem& p = g.product;
  if (gemm_work(p) != GemmWork::Product) return {};
  if (g.dc_operand == DcOperand::First) {
    const StoredShape s = stored_shape_b(p);
    return {ops.second_name, ops.second, s.rows, s.cols, p.effective_ldb()};
  }
  const StoredShape s = stored_shape_a(p);
  return {ops.first_name, ops.first, s.rows, s.cols, p.effective_lda()};
}

StoredMatrix output(const GradientProblem& g, const GradientOperands& ops) {
  const GemmProblem& p = g.product;
  if (gemm_work(p) == GemmWork::None) return {};
  return {ops.out_name, ops.out, p.m, p.n, p.effective_ldc()};
}

void check_product(const GradientProblem& g, const GradientOperands& ops, std::string_view where) {
  check_operands(g.product, ops.first, ops.second, ops.out, where, {ops.first_name, ops.second_name, ops.out_name});
}

}  // namespace

GradientOperands da_operands(const GradientProblem& da, const BackwardOperands& ptrs) noexcept {
  return operands_of(da, ptrs.dc, ptrs.b, "B", ptrs.da, "dA");
}

GradientOperands db_operands(const GradientProblem& db, const BackwardOperands& ptrs) noexcept {
  return operands_of(db, ptrs.dc, ptrs.a, "A", ptrs.db, "dB");
}

void check_backward_operands(const BackwardProblems& grads, const BackwardOperands& ptrs, std::string_view where) {
  const GradientOperands da = da_operands(grads.da, ptrs), db = db_operands(grads.db, ptrs);
  // The transposed product of a symmetric projection reads and writes the same matrices.
  if (ptrs.da != nullptr) check_product(grads.da, da, where);
  if (ptrs.db != nullptr) check_product(grads.db, db, where);
  if (ptrs.da == nullptr || ptrs.db == nullptr) return;
  const StoredMatrix out_a = output(grads.da, da), out_b = output(grads.db, db);
  check_disjoint(where, out_a, out_b);
  check_disjoint(where, out_a, forward_input(grads.db, db));  // dA over A
  check_disjoint(where, out_b, forward_input(grads.da, da));  // dB over B
}

}  // namespace jitgemm
