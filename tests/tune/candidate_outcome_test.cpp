// CandidateOutcome: the one outcome enum the tuner reports and the database stores by name.
#include "tune/candidate_outcome.hpp"

#include <gtest/gtest.h>

#include <string>

#include "jitgemm/error.hpp"

namespace jitgemm {
namespace {

constexpr CandidateOutcome kEveryOutcome[] = {CandidateOutcome::Ok,           CandidateOutcome::CompileFailed,
                                              CandidateOutcome::Spills,       CandidateOutcome::LaunchFailed,
                                              CandidateOutcome::WrongResult, CandidateOutcome::Skipped,
                                              CandidateOutcome::Faulted,      CandidateOutcome::TimedOut,
                                              CandidateOutcome::Pruned,       CandidateOutcome::OverBudget};

TEST(CandidateOutcome, EveryNameParsesBackToItsValue) {
  for (CandidateOutcome o : kEveryOutcome) {
    EXPECT_NE(to_string(o), "?");
    EXPECT_EQ(parse_candidate_outcome(to_string(o)), o) << to_string(o);
  }
  EXPECT_EQ(to_string(CandidateOutcome::CompileFailed), "compile_failed");
  EXPECT_EQ(to_string(CandidateOutcome::WrongResult), "wrong_result");
  EXPECT_EQ(to_string(CandidateOutcome::Faulted), "faulted");
  EXPECT_EQ(to_string(CandidateOutcome::TimedOut), "timed_out");
  EXPECT_EQ(to_string(CandidateOutcome::Pruned), "pruned");
  EXPECT_EQ(to_string(CandidateOutcome::OverBudget), "over_budget");
}

TEST(CandidateOutcome, UnknownNamesAreRejectedNamingTheField) {
  EXPECT_THROW(parse_candidate_outcome("OK"), InvalidArgument);  // names are case-sensitive
  try {
    parse_candidate_outcome("crashed", "candidates[3].outcome");
    FAIL() << "parse_candidate_outcome accepted 'crashed'";
  } catch (const InvalidArgument& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find("candidates[3].outcome"), std::string::npos) << message;
    EXPECT_NE(message.find("'crashed'"), std::string::npos) << message;
    EXPECT_NE(message.find("compile_failed"), std::string::npos) << message;
    EXPECT_NE(message.find("over_budget"), std::string::npos) << message;
  }
}

}  // namespace
}  // namespace jitgemm
