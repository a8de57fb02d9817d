// stored_shape_a/_b: how op(A) and op(B) lie in memory for each transpose.
#include "problem/stored_shape.hpp"

#include <gtest/gtest.h>

namespace jitgemm {
namespace {

GemmProblem problem(int64_t m, int64_t n, int64_t k, Op trans_a, Op trans_b) {
  GemmProblem p;
  p.m = m, p.n = n, p.k = k;
  p.trans_a = trans_a, p.trans_b = trans_b;
  return p;
}

TEST(StoredShape, FollowsTheTransposeOfEachOperand) {
  // m, n and k all differ, so a swapped pair cannot pass by accident.
  const GemmProblem nn = problem(3, 5, 7, Op::N, Op::N);
  EXPECT_EQ(stored_shape_a(nn), (StoredShape{3, 7}));  // A: M x K
  EXPECT_EQ(stored_shape_b(nn), (StoredShape{7, 5}));  // B: K x N
  const GemmProblem tt = problem(3, 5, 7, Op::T, Op::T);
  EXPECT_EQ(stored_shape_a(tt), (StoredShape{7, 3}));  // A: K x M
  EXPECT_EQ(stored_shape_b(tt), (StoredShape{5, 7}));  // B: N x K
  EXPECT_EQ(stored_shape(Op::N, 2, 9), (StoredShape{2, 9}));
  EXPECT_EQ(stored_shape(Op::T, 2, 9), (StoredShape{9, 2}));
}

}  // namespace
}  // namespace jitgemm
