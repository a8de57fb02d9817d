// What the candidate-space tests of every kernel family share: problem keys by shape, and
// membership in a candidate list.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "codegen/kernel_config.hpp"
#include "problem/problem_key.hpp"

namespace jitgemm::testing {

inline ProblemKey key_of(Precision p, int64_t m, int64_t n, int64_t k, Op ta = Op::N, Op tb = Op::N) {
  ProblemKey key;
  key.m = m, key.n = n, key.k = k;
  key.trans_a = ta, key.trans_b = tb;
  key.precision = p;
  return key;
}

inline bool contains(const std::vector<KernelConfig>& space, const KernelConfig& c) {
  return std::find(space.begin(), space.end(), c) != space.end();
}

}  // namespace jitgemm::testing
