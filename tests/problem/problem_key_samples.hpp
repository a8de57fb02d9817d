// ProblemKeys for tests of whatever is keyed by them (hashes, memos).
#pragma once

#include <vector>

#include "problem/problem_key.hpp"

namespace jitgemm::testing {

// Keys that each differ from `base` in exactly one field, every field once.
inline std::vector<ProblemKey> one_field_variants(const ProblemKey& base) {
  auto flip = [](Op op) { return op == Op::N ? Op::T : Op::N; };
  auto other_structure = [](Structure s) {
    return s == Structure::General ? Structure::Symmetric : Structure::General;
  };
  auto other_ld = [](LdClass c) { return c == LdClass::Tight ? LdClass::Padded : LdClass::Tight; };
  auto other_vec = [](int v) { return v == 4 ? 1 : 4; };
  std::vector<ProblemKey> keys(15, base);
  keys[0].precision = base.precision == Precision::FP32 ? Precision::TF32 : Precision::FP32;
  keys[1].trans_a = flip(base.trans_a);
  keys[2].trans_b = flip(base.trans_b);
  keys[3].structure_a = other_structure(base.structure_a);
  keys[4].structure_b = other_structure(base.structure_b);
  keys[5].fill = base.fill == Fill::Full ? Fill::Upper : Fill::Full;
  keys[6].m = base.m + 1;
  keys[7].n = base.n + 1;
  keys[8].k = base.k + 1;
  keys[9].ld_a = other_ld(base.ld_a);
  keys[10].ld_b = other_ld(base.ld_b);
  keys[11].ld_c = other_ld(base.ld_c);
  keys[12].vec_a = other_vec(base.vec_a);
  keys[13].vec_b = other_vec(base.vec_b);
  keys[14].vec_c = other_vec(base.vec_c);
  return keys;
}

}  // namespace jitgemm::testing
