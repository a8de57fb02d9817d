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

namespace {
// Seconds of `launches` launches at `median_ms` each (the rest of a request is its overhead).
double launches_s(double median_ms, double launches) { return launches * std::max(0.0, median_ms) / 1000; }

double median_of(std::vector<double> values) {
  const auto middle = values.begin() + static_cast<std::ptrdiff_t>(values.size() / 2);
  std::nth_element(values.begin(), middle, values.end());
  return *middle;
}
}  // namespace

void TuningBudget::record_measure(double wall_s, double launches, double median_ms, bool verified) {
  const double overhead = std::max(0.0, wall_s - launches_s(median_ms, launches));
  if (verified) {
    // The first verifying request carries the worker's one-time costs (H200, 4096^3 fp32: 0.85 s,
    // then about 15 ms each): once others came, it is left out of the median.
    overheads_s_.push_back(overhead);
    overhead_s_ = overheads_s_.size() == 1
                      ? overhead
                      : median_of(std::vector<double>(overheads_s_.begin() + 1, overheads_s_.end()));
  } else {
    retimes_s_.push_back(overhead);
    retime_s_ = median_of(retimes_s_);
  }
}

double TuningBudget::measure_cost_s(double median_ms, double launches) const {
  return overhead_s() + launches_s(median_ms, launches);
}

double TuningBudget::retime_cost_s(double median_ms, double launches) const {
  return retime_overhead_s() + launches_s(median_ms, launches);
}

}  // namespace jitgemm
