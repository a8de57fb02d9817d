// A full candidate table made into what a schema-4 record keeps of it: the counts by outcome
// and the fastest verified candidates (TuningRecord::outcomes and ::top). make_record does it
// for a tuning run, the schema-3 reader for a record that listed its candidates.
//
//   record.outcomes = count_outcomes(candidates, candidate_count);
//   record.top = top_candidates(candidates, record.config, record.accuracy.tolerance);
#pragma once

#include <vector>

#include "database/tuning_record.hpp"

namespace jitgemm {

// The outcomes of `candidates`, and `candidate_count` - candidates.size() (when more were
// counted than listed) as unrecorded.
OutcomeCounts count_outcomes(const std::vector<CandidateResult>& candidates, int candidate_count);

// The candidates whose outcome is ok, with a time > 0 and a finite error within `tolerance`,
// sorted by median_ms (ties in the order listed), the first kTopCandidates of them; when the
// winner (the first such candidate whose config is `winner`) is not among them, it takes the
// last place (it was slower than all of them, so the order holds).
std::vector<RankedCandidate> top_candidates(const std::vector<CandidateResult>& candidates,
                                             const KernelConfig& winner, double tolerance);

// `c` as a top-list entry (its outcome and detail left behind).
RankedCandidate ranked(const CandidateResult& c);
// A top-list entry as a row of the full table (outcome ok, no detail).
CandidateResult as_candidate_result(const RankedCandidate& c);

}  // namespace jitgemm
