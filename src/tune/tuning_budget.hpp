// tuning_budget.hpp — the budgeted search's clock and accounts: how much of the budget is left,
// and what one measurement will cost, learned from those made so far (a fixed overhead per
// request: loading the kernel, verifying it, the worker's round trip; plus its launches at the
// candidate's median). Times are seconds; the clock is injected so that tests can fake it.
//
//   TuningBudget budget(20.0, steady_seconds());
//   if (budget.measure_cost_s(median_ms, launches) < budget.remaining_s()) ... measure ...
//   budget.record_measure(wall_s, launches, verdict.timing.median_ms);
#pragma once

#include <functional>
#include <utility>
#include <vector>

namespace jitgemm {

// Seconds since some fixed start, never decreasing; may be called from several threads.
using TuningClock = std::function<double()>;
TuningClock steady_seconds();

class TuningBudget {
 public:
  // Until a measurement was recorded: this overhead per request.
  static constexpr double kDefaultOverheadS = 0.03;

  // `budget_s` <= 0: no limit (remaining_s() is infinity). The budget starts now.
  TuningBudget(double budget_s, TuningClock clock);

  bool limited() const noexcept { return budget_s_ > 0; }
  double budget_s() const noexcept { return budget_s_; }
  double now_s() const { return clock_(); }
  double elapsed_s() const { return clock_() - start_s_; }
  double remaining_s() const;  // may be negative once spent

  // A measurement made: `wall_s` it took, `launches` of `median_ms` each (0: none timed; the
  // idle a request leaves after its runs counted in run lengths too: run_lengths_of).
  // `verified`: the request also verified the candidate against the float64 product (round 1's
  // screening), which costs far more than a timing on large outputs; the two kinds are learned
  // apart.
  void record_measure(double wall_s, double launches, double median_ms, bool verified = true);
  // The overhead per verifying request: the median of those recorded after the first (which
  // pays the worker's one-time costs), or the first while it is the only one.
  double overhead_s() const noexcept { return overhead_s_; }
  // The overhead per timing-only request: the median of those recorded (kDefaultOverheadS
  // until one was: not the verifying requests', which on a large output cost many times more).
  double retime_overhead_s() const noexcept { return retime_s_; }
  // What a verifying request of `launches` launches at `median_ms` will take.
  double measure_cost_s(double median_ms, double launches) const;
  // The same for a timing-only request.
  double retime_cost_s(double median_ms, double launches) const;

 private:
  double budget_s_;
  TuningClock clock_;
  double start_s_;
  std::vector<double> overheads_s_;
  double overhead_s_ = kDefaultOverheadS;
  std::vector<double> retimes_s_;
  double retime_s_ = kDefaultOverheadS;
};

}  // namespace jitgemm
