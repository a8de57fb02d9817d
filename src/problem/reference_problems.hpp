// The four reference problems of reference-problems.md, as GemmProblems, with whether
// this version can run them and how.
#pragma once

#include <string>
#include <vector>

#include "jitgemm/problem.hpp"

namespace jitgemm {

struct ReferenceProblem {
  std::string id;        // "largeK", "symmetric", "lowertri", "transA"
  GemmProblem problem;   // as this version runs it
  bool runnable = true;  // false: needs a later feature (note says which)
  std::string note;      // how it is run, or why not
};

// The reference set in the given precision (structure the version cannot exploit yet is
// dropped to a dense product where that computes the same function).
std::vector<ReferenceProblem> reference_problems(Precision precision = Precision::FP32);

}  // namespace jitgemm
