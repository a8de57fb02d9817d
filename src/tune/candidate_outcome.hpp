// What happened to one candidate during tuning (KTT's typed outcomes): the tuner reports
// it per candidate and the tuning database stores it by name.
#pragma once

#include <string_view>

namespace jitgemm {

// Names: "ok", "compile_failed", "spills", "launch_failed", "wrong_result", "skipped".
enum class CandidateOutcome { Ok, CompileFailed, Spills, LaunchFailed, WrongResult, Skipped };

std::string_view to_string(CandidateOutcome outcome) noexcept;
// Throws InvalidArgument naming `what` and the accepted names.
CandidateOutcome parse_candidate_outcome(std::string_view text, std::string_view what = "outcome");

}  // namespace jitgemm
