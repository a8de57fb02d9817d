// Lists of named problems read from JSON files: an array of objects
// {"id": ..., "m": ..., "n": ..., "k": ..., "trans_a": "N"|"T", "trans_b", "lda", "ldb",
//  "ldc", "alpha", "beta", "precision"} (all but m, n, k optional).
#pragma once

#include <string>
#include <vector>

#include "jitgemm/problem.hpp"

namespace jitgemm {

struct NamedProblem {
  std::string id;
  GemmProblem problem;
};

// Throws InvalidArgument naming the file and the entry (and the byte offset of a parse error).
std::vector<NamedProblem> load_problem_list(const std::string& path);

}  // namespace jitgemm
