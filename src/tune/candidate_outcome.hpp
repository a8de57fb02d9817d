// What happened to one candidate during tuning (KTT's typed outcomes): the tuner reports
// it per candidate and the tuning database stores it by name.
#pragma once

#include <string_view>

namespace jitgemm {

// Names: "ok", "compile_failed", "spills", "launch_failed", "wrong_result", "skipped",
// "faulted" (a fault that ends the CUDA context: illegal or misaligned address, __trap, a
// worker process that died), "timed_out" (stopped by the tuning watchdog), "pruned" (the
// budgeted search's model said it cannot win: never compiled) and "over_budget" (the budget
// was spent before it was compiled or timed).
enum class CandidateOutcome {
  Ok,
  CompileFailed,
  Spills,
  LaunchFailed,
  WrongResult,
  Skipped,
  Faulted,
  TimedOut,
  Pruned,
  OverBudget
};

std::string_view to_string(CandidateOutcome outcome) noexcept;
// Throws InvalidArgument naming `what` and the accepted names.
CandidateOutcome parse_candidate_outcome(std::string_view text, std::string_view what = "outcome");

}  // namespace jitgemm
