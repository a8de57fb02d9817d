// The gradients of a forward GemmProblem on the host in float64, from their definition and not
// from backward_problems (which they check): what PyTorch autograd gives for the Model
// fill(alpha op(A) @ op(B)) on the dense matrices the stored operands stand for, then the
// projection BackwardOptions asks for.
//
//   const HostGradients ref = host_gradients(p, {}, dc, a, b);   // stored like A and B, tight
//   ref.da.at(i, j)
#pragma once

#include <cstdint>
#include <vector>

#include "jitgemm/backward.hpp"
#include "jitgemm/problem.hpp"
#include "problem/operand_structure.hpp"
#include "problem/stored_shape.hpp"
#include "support/structured_host.hpp"

namespace jitgemm::testing {

// A dense row-major float64 matrix, tight.
struct HostMatrix {
  int64_t rows = 0;
  int64_t cols = 0;
  std::vector<double> values;

  HostMatrix() = default;
  HostMatrix(int64_t r, int64_t c) : rows(r), cols(c), values(static_cast<size_t>(r * c), 0.0) {}
  double& at(int64_t i, int64_t j) { return values[static_cast<size_t>(i * cols + j)]; }
  double at(int64_t i, int64_t j) const { return values[static_cast<size_t>(i * cols + j)]; }
};

struct HostGradients {
  HostMatrix da;  // stored like A: M x K (op N) or K x M (op T)
  HostMatrix db;  // stored like B: K x N or N x K
};

namespace detail {

// op(X) of the dense matrix a stored operand stands for: rows x cols after op.
inline HostMatrix dense_op(const std::vector<float>& x, int64_t ld, Structure s, Op op, int64_t rows, int64_t cols) {
  HostMatrix out(rows, cols);
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t j = 0; j < cols; ++j)
      out.at(i, j) = op == Op::N ? stands_for(s, x.data(), ld, i, j) : stands_for(s, x.data(), ld, j, i);
  return out;
}

inline HostMatrix transpose(const HostMatrix& x) {
  HostMatrix t(x.cols, x.rows);
  for (int64_t i = 0; i < x.rows; ++i)
    for (int64_t j = 0; j < x.cols; ++j) t.at(j, i) = x.at(i, j);
  return t;
}

// The gradient of an operand declared `s`, projected on that structure (stored layout).
inline void project(HostMatrix& g, Structure s) {
  if (is_symmetric(s)) {
    const HostMatrix t = transpose(g);
    for (size_t e = 0; e < g.values.size(); ++e) g.values[e] = 0.5 * (g.values[e] + t.values[e]);
    return;
  }
  for (int64_t i = 0; i < g.rows; ++i)
    for (int64_t j = 0; j < g.cols; ++j)
      if (!reads(s, i, j)) g.at(i, j) = 0.0;  // the other triangle, and a unit diagonal
}

}  // namespace detail

// dc: M x N with ldc, read only inside the fill; a, b: stored with lda / ldb, read as their
// structures say. O(M N K).
inline HostGradients host_gradients(const GemmProblem& p, const BackwardOptions& options, const std::vector<float>& dc,
                                    const std::vector<float>& a, const std::vector<float>& b) {
  const int64_t m = p.m, n = p.n, k = p.k, ldc = p.effective_ldc();
  HostMatrix g(m, n);  // G = fill(dC)
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j)
      if (kept(p.fill, i, j)) g.at(i, j) = dc[static_cast<size_t>(i * ldc + j)];
  const HostMatrix op_a = detail::dense_op(a, p.effective_lda(), p.structure_a, p.trans_a, m, k);
  const HostMatrix op_b = detail::dense_op(b, p.effective_ldb(), p.structure_b, p.trans_b, k, n);
  const double alpha = p.alpha;
  HostMatrix d_op_a(m, k);  // alpha G op(B)^T: row i of G against row l of op(B)
  for (int64_t i = 0; i < m; ++i)
    for (int64_t l = 0; l < k; ++l) {
      double sum = 0.0;
      for (int64_t j = 0; j < n; ++j) sum += g.at(i, j) * op_b.at(l, j);
      d_op_a.at(i, l) = alpha * sum;
    }
  HostMatrix d_op_b(k, n);  // alpha op(A)^T G, accumulated row by row of G
  for (int64_t i = 0; i < m; ++i)
    for (int64_t l = 0; l < k; ++l) {
      const double x = alpha * op_a.at(i, l);
      for (int64_t j = 0; j < n; ++j) d_op_b.at(l, j) += x * g.at(i, j);
    }
  HostGradients out{p.trans_a == Op::N ? d_op_a : detail::transpose(d_op_a),
                    p.trans_b == Op::N ? d_op_b : detail::transpose(d_op_b)};
  if (options.project_a) detail::project(out.da, p.structure_a);
  if (options.project_b) detail::project(out.db, p.structure_b);
  return out;
}

}  // namespace jitgemm::testing
