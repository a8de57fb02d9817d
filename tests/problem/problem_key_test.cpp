#include <gtest/gtest.h>

#include <fstream>
#include <typeinfo>

#include <set>
#include <utility>
#include <vector>

#include "jitgemm/error.hpp"
#include "problem/problem_key.hpp"
#include "problem/problem_key_samples.hpp"
#include "problem/problem_list.hpp"
#include "problem/reference_problems.hpp"
#include "support/test_support.hpp"

namespace jitgemm {
namespace {

TEST(ProblemKey, CanonicalRoundTrips) {
  GemmProblem p;
  p.m = 2048, p.n = 4096, p.k = 8192, p.trans_a = Op::T;
  const ProblemKey key = make_problem_key(p);
  EXPECT_EQ(key.canonical(), "gemm.fp32.TN.general.general.full.2048x4096x8192.tight.tight.tight.v444");
  EXPECT_EQ(ProblemKey::parse(key.canonical()), key);
}

TEST(ProblemKey, ClassesFollowLeadingDimensionsAndPointers) {
  GemmProblem p;
  p.m = 100, p.n = 50, p.k = 30, p.lda = 32, p.ldb = 51, p.ldc = 50;
  const auto aligned = reinterpret_cast<const void*>(uintptr_t{4096});
  const auto off4 = reinterpret_cast<const void*>(uintptr_t{4100});
  const ProblemKey key = make_problem_key(p, aligned, aligned, off4);
  EXPECT_EQ(key.ld_a, LdClass::Padded);
  EXPECT_EQ(key.ld_b, LdClass::Unaligned);
  EXPECT_EQ(key.ld_c, LdClass::Unaligned);  // 50 % 4 != 0
  EXPECT_EQ(key.vec_a, 4);
  EXPECT_EQ(key.vec_b, 1);
  EXPECT_EQ(key.vec_c, 1);
  EXPECT_EQ(ProblemKey::parse(key.canonical()), key);
}

TEST(ProblemKey, SameKindIgnoresSizesButNotTransposes) {
  GemmProblem p;
  p.m = p.n = p.k = 4096;
  GemmProblem q = p;
  q.m = 7, q.lda = 4097;
  EXPECT_TRUE(make_problem_key(p).same_kind(make_problem_key(q)));
  q.trans_b = Op::T;
  EXPECT_FALSE(make_problem_key(p).same_kind(make_problem_key(q)));
}

TEST(ProblemKey, HashCoversEveryField) {
  const ProblemKey base = ProblemKey::parse("gemm.fp32.NN.general.general.full.2048x4096x8192.tight.tight.tight.v444");
  EXPECT_EQ(ProblemKeyHash{}(base), ProblemKeyHash{}(ProblemKey::parse(base.canonical())));
  // Each variant differs from the base in one field: all hashes differ.
  std::vector<ProblemKey> keys = testing::one_field_variants(base);
  keys.push_back(base);
  std::set<size_t> hashes;
  for (const ProblemKey& key : keys) hashes.insert(ProblemKeyHash{}(key));
  EXPECT_EQ(hashes.size(), keys.size());
  // Swapped sizes are other keys.
  ProblemKey swapped = base;
  std::swap(swapped.m, swapped.n);
  EXPECT_NE(ProblemKeyHash{}(swapped), ProblemKeyHash{}(base));
}

TEST(ProblemKey, ParseNamesTheBadPart) {
  for (const char* bad : {"", "gemm.fp32.NN", "gemm.fp16.NN.general.general.full.1x1x1.tight.tight.tight.v444",
                          "gemm.fp32.NX.general.general.full.1x1x1.tight.tight.tight.v444",
                          "gemm.fp32.NN.general.general.full.1x0x1.tight.tight.tight.v444",
                          "gemm.fp32.NN.general.general.full.1x1x1.tight.loose.tight.v444",
                          "gemm.fp32.NN.general.general.full.1x1x1.tight.tight.tight.v442"})
    EXPECT_THROW(ProblemKey::parse(bad), InvalidArgument) << bad;
}

TEST(ProblemKey, ProblemForKeyReproducesTheKey) {
  for (const char* text : {"gemm.fp32.TN.general.general.full.2048x4096x8192.tight.tight.tight.v444",
                           "gemm.fp32.NN.general.general.full.1537x1537x1537.unaligned.unaligned.unaligned.v111",
                           "gemm.fp32.NT.general.general.full.100x50x30.padded.unaligned.padded.v414"}) {
    const ProblemKey key = ProblemKey::parse(text);
    EXPECT_EQ(make_problem_key(problem_for_key(key)).canonical(), text);
  }
}

TEST(ReferenceProblems, MatchTheReferenceShapes) {
  const auto refs = reference_problems();
  ASSERT_EQ(refs.size(), 4u);
  EXPECT_EQ(refs[3].id, "transA");
  EXPECT_EQ(refs[3].problem.trans_a, Op::T);
  EXPECT_EQ(refs[3].problem.effective_lda(), 2048);  // A stored 8192 x 2048
  for (const auto& r : refs) EXPECT_NO_THROW(r.problem.validate(r.id));
}

TEST(ProblemList, ReadsTheSweepFileAndRejectsBadFiles) {
  const auto list = load_problem_list(JITGEMM_SOURCE_DIR "/bench/sweep_problems.json");
  ASSERT_GE(list.size(), 5u);
  for (const auto& np : list) EXPECT_NO_THROW(np.problem.validate(np.id));
  EXPECT_THROW(load_problem_list("/nonexistent/problems.json"), InvalidArgument);
}

// Malformed files are an InvalidArgument naming the file and the member (issue 14, defects 1
// and 8): a non-string id and an out-of-range number used to escape as raw JSON-library
// exceptions (jitgemm-tune aborted), a fraction was truncated.
TEST(ProblemList, MalformedFilesNameTheMemberInsteadOfEscapingOrTruncating) {
  const std::string dir = testing::temp_dir("problem_list");
  const std::pair<const char*, const char*> cases[] = {
      {R"([{"id":5}])", "[0].id: expected a string"},
      {R"([{"m":1e400,"n":1,"k":1}])", "problems.json"},
      {R"([{"m":64.9,"n":64,"k":64}])", "[0].m: expected an integer, got 64.9"},
      {R"([{"m":64,"n":"64","k":64}])", "[0].n: expected an integer"},
      {R"([{"m":64,"n":64}])", "[0].k: missing"},
      {R"([{"m":64,"n":64,"k":64,"alpha":"one"}])", "[0].alpha: expected a number"},
      {R"([{"m":64,"n":64,"k":64,"precision":7}])", "[0].precision: expected a string"},
  };
  for (const auto& [text, expected] : cases) {
    const std::string path = dir + "/problems.json";
    std::ofstream(path) << text;
    try {
      load_problem_list(path);
      ADD_FAILURE() << "accepted " << text;
    } catch (const InvalidArgument& e) {
      EXPECT_NE(std::string(e.what()).find(expected), std::string::npos) << text << ": " << e.what();
    } catch (const std::exception& e) {
      ADD_FAILURE() << text << " escaped as a " << typeid(e).name() << ": " << e.what();
    }
  }
}

}  // namespace
}  // namespace jitgemm
