// CandidateOutcome names (see candidate_outcome.hpp).
#include "tune/candidate_outcome.hpp"

#include <fmt/format.h>

#include <array>
#include <utility>

#include "jitgemm/error.hpp"

namespace jitgemm {
namespace {

constexpr std::array<std::pair<CandidateOutcome, std::string_view>, 10> kOutcomeNames{{
    {CandidateOutcome::Ok, "ok"},
    {CandidateOutcome::CompileFailed, "compile_failed"},
    {CandidateOutcome::Spills, "spills"},
    {CandidateOutcome::LaunchFailed, "launch_failed"},
    {CandidateOutcome::WrongResult, "wrong_result"},
    {CandidateOutcome::Skipped, "skipped"},
    {CandidateOutcome::Faulted, "faulted"},
    {CandidateOutcome::TimedOut, "timed_out"},
    {CandidateOutcome::Pruned, "pruned"},
    {CandidateOutcome::OverBudget, "over_budget"},
}};

}  // namespace

std::string_view to_string(CandidateOutcome outcome) noexcept {
  for (const auto& [value, name] : kOutcomeNames)
    if (value == outcome) return name;
  return "?";
}

CandidateOutcome parse_candidate_outcome(std::string_view text, std::string_view what) {
  for (const auto& [value, name] : kOutcomeNames)
    if (name == text) return value;
  throw InvalidArgument(fmt::format(
      "{}: unknown value '{}' (expected ok, compile_failed, spills, launch_failed, wrong_result, skipped, "
      "faulted, timed_out, pruned or over_budget)",
      what, text));
}

}  // namespace jitgemm
