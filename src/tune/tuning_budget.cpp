// TuningBudget (see tuning_budget.hpp).
#include "tune/tuning_budget.hpp"

#include <algorithm>
#include <chrono>
#include <limits>

namespace jitgemm {

TuningClock steady_seconds() {
  return [] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
  };
}

TuningBudget::TuningBudget(double budget_s, TuningClock clock)
    : budget_s_(budget_s > 0 ? budget_s : 0), clock_(std::move(clock)), start_s_(clock_()) {}

double TuningBudget::remaining_s() const {
  return limited() ? budget_s_ - elapsed_s() : std::numeric_limits<double>::infinity();
}

void TuningBudget::record_measure(double wall_s, int launches, double median_ms) {
  overheads_s_.push_back(std::max(0.0, wall_s - launches * std::max(0.0, median_ms) / 1000));
  std::vector<double> sorted = overheads_s_;
  const auto middle = sorted.begin() + static_cast<std::ptrdiff_t>(sorted.size() / 2);
  std::nth_element(sorted.begin(), middle, sorted.end());
  overhead_s_ = *middle;
}

double TuningBudget::measure_cost_s(double median_ms, int launches) const {
  return overhead_s() + launches * std::max(0.0, median_ms) / 1000;
}

}  // namespace jitgemm
