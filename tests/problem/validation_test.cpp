// Bad input gets a clear error naming the argument: GemmProblem::validate and the
// operand checks of a gemm call (both run before anything touches the GPU).
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <limits>
#include <tuple>

#include "jitgemm/error.hpp"
#include "jitgemm/problem.hpp"
#include "launch/operand_checks.hpp"
#include "problem/gemm_work.hpp"

namespace jitgemm {
namespace {

GemmProblem square(int64_t n) {
  GemmProblem p;
  p.m = p.n = p.k = n;
  return p;
}

// Fake device addresses: only their values matter to the checks.
const float* at(uintptr_t address) { return reinterpret_cast<const float*>(address); }
constexpr uintptr_t kA = 0x10000000, kB = 0x20000000, kC = 0x30000000;

struct BadCase {
  const char* name;
  std::function<void(GemmProblem&)> mutate;
  const float* a = at(kA);
  const float* b = at(kB);
  const float* c = at(kC);
  const char* expected;  // substring of the message: the argument and the rule
  bool not_supported = false;
};

std::vector<BadCase> bad_cases() {
  return {
      {"negative M", [](GemmProblem& p) { p.m = -5; }, at(kA), at(kB), at(kC), "M=-5 must be >= 0"},
      {"null C of K = 0", [](GemmProblem& p) { p.k = 0; }, at(kA), at(kB), nullptr, "C is a null pointer"},
      {"null C of alpha = 0", [](GemmProblem& p) { p.alpha = 0; }, nullptr, nullptr, nullptr, "C is a null pointer"},
      {"negative N", [](GemmProblem& p) { p.n = -1; }, at(kA), at(kB), at(kC), "N=-1"},
      {"negative K", [](GemmProblem& p) { p.k = -64; }, at(kA), at(kB), at(kC), "K=-64"},
      {"huge M", [](GemmProblem& p) { p.m = int64_t{1} << 32; }, at(kA), at(kB), at(kC), "exceeds the supported maximum"},
      {"lda < K for A N", [](GemmProblem& p) { p.lda = 63; }, at(kA), at(kB), at(kC),
       "lda=63 is smaller than K=64 for row-major A (trans_a=N)"},
      {"lda < M for A T", [](GemmProblem& p) { p.trans_a = Op::T; p.m = 100; p.lda = 99; }, at(kA), at(kB), at(kC),
       "lda=99 is smaller than M=100 for row-major A (trans_a=T)"},
      {"ldb < N for B N", [](GemmProblem& p) { p.n = 80; p.ldb = 79; }, at(kA), at(kB), at(kC),
       "ldb=79 is smaller than N=80 for row-major B (trans_b=N)"},
      {"ldb < K for B T", [](GemmProblem& p) { p.trans_b = Op::T; p.ldb = 10; }, at(kA), at(kB), at(kC),
       "ldb=10 is smaller than K=64 for row-major B (trans_b=T)"},
      {"ldc < N", [](GemmProblem& p) { p.ldc = 32; }, at(kA), at(kB), at(kC), "ldc=32 is smaller than N=64"},
      {"negative lda", [](GemmProblem& p) { p.lda = -64; }, at(kA), at(kB), at(kC), "lda=-64 must be >= 0"},
      {"negative ldb", [](GemmProblem& p) { p.ldb = -1; }, at(kA), at(kB), at(kC), "ldb=-1 must be >= 0"},
      {"negative ldc", [](GemmProblem& p) { p.ldc = -2; }, at(kA), at(kB), at(kC), "ldc=-2 must be >= 0"},
      {"absurd lda", [](GemmProblem& p) { p.lda = int64_t{1} << 40; }, at(kA), at(kB), at(kC),
       "addresses more than 2^40 elements of A"},
      {"ldb of 2^30", [](GemmProblem& p) { p.ldb = int64_t{1} << 30; }, at(kA), at(kB), at(kC),
       "ldb=1073741824 is not supported", true},
      {"null A", [](GemmProblem&) {}, nullptr, at(kB), at(kC), "A is a null pointer"},
      {"null B", [](GemmProblem&) {}, at(kA), nullptr, at(kC), "B is a null pointer"},
      {"null C", [](GemmProblem&) {}, at(kA), at(kB), nullptr, "C is a null pointer"},
      {"misaligned A", [](GemmProblem&) {}, at(kA + 2), at(kB), at(kC), "A=0x10000002 is not 4-byte aligned"},
      {"misaligned B", [](GemmProblem&) {}, at(kA), at(kB + 1), at(kC), "B=0x20000001 is not 4-byte aligned"},
      {"misaligned C", [](GemmProblem&) {}, at(kA), at(kB), at(kC + 3), "C=0x30000003 is not 4-byte aligned"},
      {"C aliases A", [](GemmProblem&) {}, at(kA), at(kB), at(kA + 64), "C overlaps A"},
      {"C aliases B", [](GemmProblem&) {}, at(kA), at(kB), at(kB), "C overlaps B"},
      {"symmetric A not square", [](GemmProblem& p) { p.structure_a = Structure::Symmetric; p.k = 32; }, at(kA),
       at(kB), at(kC), "structure_a=symmetric needs a square operand, but op(A) is M x K = 64 x 32"},
      {"symmetric B not square", [](GemmProblem& p) { p.structure_b = Structure::Symmetric; p.n = 48; }, at(kA),
       at(kB), at(kC), "structure_b=symmetric needs a square operand, but op(B) is K x N = 64 x 48"},
      {"upper-stored symmetric A not square", [](GemmProblem& p) { p.structure_a = Structure::SymmetricUpper; p.m = 32; },
       at(kA), at(kB), at(kC), "structure_a=symmetric_upper needs a square operand, but op(A) is M x K = 32 x 64"},
      {"symmetric_upper B not square in tf32", [](GemmProblem& p) {
         p.precision = Precision::TF32; p.structure_b = Structure::SymmetricUpper; p.k = 65; p.fill = Fill::Lower;
       }, at(kA), at(kB), at(kC), "structure_b=symmetric_upper needs a square operand, but op(B) is K x N = 65 x 64"},
      {"symmetric A of K = 0", [](GemmProblem& p) { p.structure_a = Structure::Symmetric; p.k = 0; }, at(kA), at(kB),
       at(kC), "structure_a=symmetric needs a square operand, but op(A) is M x K = 64 x 0"},
      {"lower_unit A, misaligned B", [](GemmProblem& p) { p.structure_a = Structure::LowerUnit; }, at(kA),
       at(kB + 2), at(kC), "B=0x20000002 is not 4-byte aligned"},
      {"upper fill, C aliases A", [](GemmProblem& p) { p.fill = Fill::Upper; }, at(kA), at(kB), at(kA),
       "C overlaps A"},
  };
}

void validate_call(const GemmProblem& p, const float* a, const float* b, const float* c) {
  p.validate("Runtime::gemm");
  check_operands(p, a, b, c);
}

TEST(Validation, EveryBadInputNamesItsArgument) {
  const auto cases = bad_cases();
  ASSERT_GE(cases.size(), 25u);
  for (const auto& bad : cases) {
    SCOPED_TRACE(bad.name);
    GemmProblem p = square(64);
    bad.mutate(p);
    try {
      validate_call(p, bad.a, bad.b, bad.c);
      ADD_FAILURE() << "no error for " << bad.name;
    } catch (const NotSupported& e) {
      EXPECT_TRUE(bad.not_supported) << e.what();
      EXPECT_NE(std::string(e.what()).find(bad.expected), std::string::npos) << e.what();
    } catch (const InvalidArgument& e) {
      EXPECT_FALSE(bad.not_supported) << e.what();
      EXPECT_NE(std::string(e.what()).find(bad.expected), std::string::npos) << e.what();
      EXPECT_EQ(std::string(e.what()).rfind("Runtime::gemm: ", 0), 0u) << e.what();
    }
  }
}

TEST(Validation, EmptyProductsFollowBlas) {
  // M or N = 0: nothing is touched, so no pointer is looked at; K = 0 or alpha = 0: C = beta * C,
  // A and B are not read (null or anywhere), C still is written and checked.
  for (auto [m, n, k] : {std::tuple{0, 64, 64}, std::tuple{64, 0, 64}, std::tuple{0, 0, 0}}) {
    GemmProblem p;
    p.m = m, p.n = n, p.k = k;
    EXPECT_NO_THROW(validate_call(p, nullptr, nullptr, nullptr)) << p.to_string();
    EXPECT_EQ(gemm_work(p), GemmWork::None);
  }
  GemmProblem p = square(64);
  p.k = 0;
  EXPECT_NO_THROW(validate_call(p, nullptr, at(kB + 1), at(kC)));
  EXPECT_EQ(gemm_work(p), GemmWork::ScaleOutput);
  p = square(64);
  p.alpha = 0;
  EXPECT_NO_THROW(validate_call(p, at(kC), nullptr, at(kC)));  // A would alias C: it is not read
  EXPECT_EQ(gemm_work(p), GemmWork::ScaleOutput);
  p.alpha = std::numeric_limits<float>::quiet_NaN();  // NaN is not 0: the product runs
  EXPECT_EQ(gemm_work(p), GemmWork::Product);
  EXPECT_THROW(validate_call(p, at(kC), at(kB), at(kC)), InvalidArgument);
}

TEST(Validation, ValidProblemsPass) {
  for (Op ta : {Op::N, Op::T})
    for (Op tb : {Op::N, Op::T}) {
      GemmProblem p;
      p.m = 7, p.n = 1, p.k = 1537, p.trans_a = ta, p.trans_b = tb;
      EXPECT_NO_THROW(validate_call(p, at(kA), at(kB), at(kC)));
      p.lda = p.effective_lda() + 5;  // padded, not a multiple of 4
      p.ldb = p.effective_ldb() + 4;
      p.ldc = 3;
      EXPECT_NO_THROW(validate_call(p, at(kA + 4), at(kB + 8), at(kC + 12)));
    }
}

TEST(Validation, SquareSymmetricOperandsPassInEveryMode) {
  for (Precision mode : {Precision::FP32, Precision::TF32x3, Precision::TF32}) {
    GemmProblem p;
    p.m = 300, p.n = 257, p.k = 257, p.precision = mode;
    p.structure_b = Structure::Symmetric;  // op(B) is 257 x 257
    EXPECT_NO_THROW(validate_call(p, at(kA), at(kB), at(kC)));
    p.m = 257, p.trans_a = Op::T;
    p.structure_a = Structure::Symmetric;
    EXPECT_NO_THROW(validate_call(p, at(kA), at(kB), at(kC)));
    EXPECT_NE(p.to_string().find(" A:symmetric B:symmetric"), std::string::npos) << p.to_string();
  }
}

TEST(Validation, NanAlphaAndBetaAreAllowed) {
  GemmProblem p = square(8);
  p.alpha = std::numeric_limits<float>::quiet_NaN();
  p.beta = std::numeric_limits<float>::infinity();
  EXPECT_NO_THROW(validate_call(p, at(kA), at(kB), at(kC)));
}

TEST(Validation, TightLeadingDimensionsFollowTheStorage) {
  GemmProblem p;
  p.m = 10, p.n = 20, p.k = 30;
  EXPECT_EQ(p.effective_lda(), 30);
  EXPECT_EQ(p.effective_ldb(), 20);
  EXPECT_EQ(p.effective_ldc(), 20);
  p.trans_a = Op::T;
  p.trans_b = Op::T;
  EXPECT_EQ(p.effective_lda(), 10);
  EXPECT_EQ(p.effective_ldb(), 30);
}

TEST(Names, ParseRejectsUnknownNamesAndListsTheAccepted) {
  EXPECT_EQ(parse_op("T"), Op::T);
  EXPECT_EQ(parse_precision("tf32x3"), Precision::TF32x3);
  try {
    parse_precision("fp16", "--precision");
    FAIL();
  } catch (const InvalidArgument& e) {
    EXPECT_STREQ(e.what(), "--precision: 'fp16' is not one of 'fp32', 'tf32x3', 'tf32'");
  }
  EXPECT_THROW(parse_op("t"), InvalidArgument);
  EXPECT_THROW(parse_structure(""), InvalidArgument);
  EXPECT_THROW(parse_fill("both"), InvalidArgument);
}

}  // namespace
}  // namespace jitgemm
