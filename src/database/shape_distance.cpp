// size_distance and the factor-of-two bound (shape_distance.hpp).
#include "database/shape_distance.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>

#include <fmt/format.h>

namespace jitgemm {
namespace {

double log2_ratio(int64_t a, int64_t b) {
  return std::fabs(std::log2(static_cast<double>(a)) - std::log2(static_cast<double>(b)));
}

bool within(int64_t x, int64_t y) noexcept { return std::max(x, y) <= 2 * std::min(x, y); }

}  // namespace

double size_distance(const ProblemKey& a, const ProblemKey& b) {
  return log2_ratio(a.m, b.m) + log2_ratio(a.n, b.n) + log2_ratio(a.k, b.k);
}

bool within_factor_of_two(const ProblemKey& record, const ProblemKey& asked) noexcept {
  return within(record.m, asked.m) && within(record.n, asked.n) && within(record.k, asked.k);
}

std::vector<std::string> dimensions_beyond_factor_of_two(const ProblemKey& record, const ProblemKey& asked) {
  std::vector<std::string> out;
  if (!within(record.m, asked.m)) out.push_back(fmt::format("M {} vs {}", record.m, asked.m));
  if (!within(record.n, asked.n)) out.push_back(fmt::format("N {} vs {}", record.n, asked.n));
  if (!within(record.k, asked.k)) out.push_back(fmt::format("K {} vs {}", record.k, asked.k));
  return out;
}

}  // namespace jitgemm
