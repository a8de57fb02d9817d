// shape_distance.hpp — how far a record's problem shape is from an asked one, and the bound
// within which a nearest record may serve.
#pragma once

#include <string>
#include <vector>

#include "problem/problem_key.hpp"

namespace jitgemm {

// |log2 m ratio| + |log2 n ratio| + |log2 k ratio|: the nearest-record order.
double size_distance(const ProblemKey& a, const ProblemKey& b);

// A nearest record serves only shapes within a factor of two of its own in each of M, N and
// K (max <= 2 * min): further away its tiles say little (a 4096^3 tile on 512^3 leaves most
// SMs idle).
bool within_factor_of_two(const ProblemKey& record, const ProblemKey& asked) noexcept;

// The dimensions outside that bound, one line each: "M 4096 vs 1000" (record vs asked).
std::vector<std::string> dimensions_beyond_factor_of_two(const ProblemKey& record, const ProblemKey& asked);

}  // namespace jitgemm
