// Counting and ranking a full candidate table (see record_compaction.hpp).
#include "database/record_compaction.hpp"

#include <algorithm>
#include <cmath>

namespace jitgemm {

OutcomeCounts count_outcomes(const std::vector<CandidateResult>& candidates, int candidate_count) {
  OutcomeCounts counts;
  for (const CandidateResult& c : candidates) ++counts.by_outcome[c.outcome];
  const int listed = static_cast<int>(candidates.size());
  counts.unrecorded = candidate_count > listed ? candidate_count - listed : 0;
  return counts;
}

std::vector<RankedCandidate> top_candidates(const std::vector<CandidateResult>& candidates,
                                             const KernelConfig& winner, double tolerance) {
  std::vector<const CandidateResult*> ok;
  for (const CandidateResult& c : candidates)
    if (c.outcome == CandidateOutcome::Ok && c.median_ms > 0 && std::isfinite(c.median_ms) &&
        std::isfinite(c.rel_error) && c.rel_error >= 0 && c.rel_error <= tolerance)
      ok.push_back(&c);
  std::stable_sort(ok.begin(), ok.end(),
                   [](const CandidateResult* a, const CandidateResult* b) { return a->median_ms < b->median_ms; });
  const size_t kept = std::min(ok.size(), static_cast<size_t>(kTopCandidates));
  const auto is_winner = [&](const CandidateResult* c) { return c->config == winner; };
  if (std::none_of(ok.begin(), ok.begin() + static_cast<std::ptrdiff_t>(kept), is_winner)) {
    const auto found = std::find_if(ok.begin() + static_cast<std::ptrdiff_t>(kept), ok.end(), is_winner);
    if (found != ok.end()) ok[kept - 1] = *found;
  }
  std::vector<RankedCandidate> top;
  top.reserve(kept);
  for (size_t i = 0; i < kept; ++i) top.push_back(ranked(*ok[i]));
  return top;
}

RankedCandidate ranked(const CandidateResult& c) {
  return RankedCandidate{c.config, c.median_ms, c.rel_error, c.registers, c.spill_bytes};
}

CandidateResult as_candidate_result(const RankedCandidate& c) {
  return CandidateResult{c.config, CandidateOutcome::Ok, c.median_ms, c.rel_error, c.registers, c.spill_bytes, ""};
}

}  // namespace jitgemm
