// Structure and fill through validation, names and problem keys (issue 11): every structure on
// either operand with either op and every fill is accepted in every mode, square or not, except
// a symmetric operand that is not square (rejected naming structure_a / structure_b); the
// names round-trip; problem keys carry structures and fill both ways.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <set>
#include <string>
#include <tuple>

#include "jitgemm/error.hpp"
#include "jitgemm/problem.hpp"
#include "launch/operand_checks.hpp"
#include "problem/gemm_work.hpp"
#include "problem/operand_structure.hpp"
#include "problem/problem_key.hpp"
#include "support/structured_host.hpp"

namespace jitgemm {
namespace {

using testing::kAllFills;
using testing::kAllStructures;

const float* at(uintptr_t address) { return reinterpret_cast<const float*>(address); }
constexpr uintptr_t kA = 0x10000000, kB = 0x20000000, kC = 0x30000000;

void validate_call(const GemmProblem& p) {
  p.validate("Runtime::gemm");
  check_operands(p, at(kA), at(kB), at(kC));
}

// The message of a non-square symmetric operand, or "" where the problem is valid.
std::string expected_error(const GemmProblem& p) {
  if (is_symmetric(p.structure_a) && p.m != p.k)
    return fmt::format("Runtime::gemm: structure_a={} needs a square operand, but op(A) is M x K = {} x {}",
                       to_string(p.structure_a), p.m, p.k);
  if (is_symmetric(p.structure_b) && p.k != p.n)
    return fmt::format("Runtime::gemm: structure_b={} needs a square operand, but op(B) is K x N = {} x {}",
                       to_string(p.structure_b), p.k, p.n);
  return "";
}

TEST(StructureValidation, EveryStructureOpFillAndModeSquareOrRectangular) {
  // (M, N, K): square; both operands rectangular; only op(B) / only op(A) rectangular; 1 x 1;
  // a long thin A; padded leading dimensions on a square one.
  const std::tuple<int64_t, int64_t, int64_t, int64_t> shapes[] = {
      {64, 64, 64, 0}, {48, 80, 64, 0}, {64, 80, 64, 0}, {48, 64, 64, 0},
      {1, 1, 1, 0},    {1000, 1, 1, 0}, {17, 17, 17, 5}, {4096, 1, 4096, 0}};
  int valid = 0, rejected = 0;
  for (Precision mode : {Precision::FP32, Precision::TF32x3, Precision::TF32})
    for (Structure sa : kAllStructures)
      for (Structure sb : kAllStructures)
        for (Op ta : {Op::N, Op::T})
          for (Op tb : {Op::N, Op::T})
            for (Fill fill : kAllFills)
              for (auto [m, n, k, pad] : shapes) {
                GemmProblem p;
                p.m = m, p.n = n, p.k = k, p.trans_a = ta, p.trans_b = tb, p.precision = mode;
                p.structure_a = sa, p.structure_b = sb, p.fill = fill;
                if (pad != 0) p.lda = p.effective_lda() + pad, p.ldb = p.effective_ldb() + pad, p.ldc = n + pad;
                const std::string expected = expected_error(p);
                if (expected.empty()) {
                  ++valid;
                  EXPECT_NO_THROW(validate_call(p)) << p.to_string();
                  continue;
                }
                ++rejected;
                try {
                  validate_call(p);
                  ADD_FAILURE() << "accepted " << p.to_string();
                } catch (const InvalidArgument& e) {
                  EXPECT_EQ(std::string(e.what()), expected) << p.to_string();
                } catch (const std::exception& e) {
                  ADD_FAILURE() << p.to_string() << ": not an InvalidArgument: " << e.what();
                }
              }
  std::printf("[ info ] %d structured problems valid, %d rejected (symmetric, not square)\n", valid, rejected);
  EXPECT_EQ(valid + rejected, 3 * 7 * 7 * 4 * 3 * 8);
  EXPECT_GT(rejected, 1000);
}

TEST(StructureValidation, TriangularOperandsMayBeAnyShapeSymmetricOnlySquare) {
  for (Structure s : kAllStructures) {
    SCOPED_TRACE(to_string(s));
    GemmProblem p;
    p.m = 1000, p.n = 17, p.k = 257;  // op(A) 1000 x 257, op(B) 257 x 17: trapezoidal
    p.structure_a = s;
    p.structure_b = s;
    if (is_symmetric(s)) {
      EXPECT_THROW(validate_call(p), InvalidArgument);
      p.k = p.m, p.n = p.m;
    }
    EXPECT_NO_THROW(validate_call(p)) << p.to_string();
  }
}

TEST(StructureValidation, EmptyProductsWithStructuredOperands) {
  // M or N = 0 and K = 0 / alpha = 0 follow BLAS with any structure: A and B are not read.
  for (Structure s : {Structure::Lower, Structure::UpperUnit, Structure::Symmetric, Structure::SymmetricUpper})
    for (Fill fill : kAllFills) {
      SCOPED_TRACE(::testing::Message() << to_string(s) << " fill " << to_string(fill));
      GemmProblem p;
      p.structure_a = s, p.structure_b = s, p.fill = fill;
      p.m = p.n = p.k = 0;  // 0 x 0 operands are square
      EXPECT_NO_THROW(p.validate());
      EXPECT_EQ(gemm_work(p), GemmWork::None);
      p.m = p.n = p.k = 65;
      p.alpha = 0.0f;
      EXPECT_NO_THROW(p.validate());
      EXPECT_NO_THROW(check_operands(p, nullptr, nullptr, at(kC)));
      EXPECT_EQ(gemm_work(p), GemmWork::ScaleOutput);
      if (is_triangular(s)) {
        p.alpha = 1.0f, p.k = 0, p.n = 33;  // K = 0: C = beta C (fill applied)
        EXPECT_NO_THROW(p.validate());
        EXPECT_NO_THROW(check_operands(p, nullptr, nullptr, at(kC)));
        EXPECT_EQ(gemm_work(p), GemmWork::ScaleOutput);
      } else {
        p.alpha = 1.0f, p.k = 0;  // op(A) 65 x 0 is not square
        EXPECT_THROW(p.validate(), InvalidArgument);
      }
    }
}

TEST(StructureNames, EveryStructureAndFillRoundTrips) {
  const std::pair<Structure, const char*> structures[] = {
      {Structure::General, "general"},
      {Structure::Symmetric, "symmetric"},
      {Structure::Lower, "lower"},
      {Structure::Upper, "upper"},
      {Structure::SymmetricUpper, "symmetric_upper"},
      {Structure::LowerUnit, "lower_unit"},
      {Structure::UpperUnit, "upper_unit"},
  };
  for (auto [s, name] : structures) {
    EXPECT_EQ(to_string(s), name);
    EXPECT_EQ(parse_structure(name), s) << name;
  }
  std::set<std::string_view> names;
  for (Structure s : kAllStructures) names.insert(to_string(s));
  EXPECT_EQ(names.size(), std::size(kAllStructures));
  const std::pair<Fill, const char*> fills[] = {{Fill::Full, "full"}, {Fill::Lower, "lower"}, {Fill::Upper, "upper"}};
  for (auto [f, name] : fills) {
    EXPECT_EQ(to_string(f), name);
    EXPECT_EQ(parse_fill(name), f) << name;
  }
}

TEST(StructureNames, UnknownNamesAreRejectedListingEveryStructure) {
  for (const char* bad : {"Lower", "lower-unit", "unit_lower", "symmetric_lower", "symmetricupper", "upper_unit ",
                          "unit", "triangular", "SYMMETRIC_UPPER"}) {
    try {
      parse_structure(bad, "--structure-a");
      ADD_FAILURE() << "accepted '" << bad << "'";
    } catch (const InvalidArgument& e) {
      const std::string what = e.what();
      EXPECT_EQ(what.rfind(fmt::format("--structure-a: '{}' is not one of ", bad), 0), 0u) << what;
      for (Structure s : kAllStructures)
        EXPECT_NE(what.find(fmt::format("'{}'", to_string(s))), std::string::npos) << what;
    }
  }
  EXPECT_THROW(parse_fill("lower_unit"), InvalidArgument);
  EXPECT_THROW(parse_fill("symmetric"), InvalidArgument);
}

TEST(StructureNames, ProblemDescriptionsNameStructuresAndFill) {
  GemmProblem p;
  p.m = p.n = p.k = 64;
  EXPECT_EQ(p.to_string().find(" A:"), std::string::npos) << p.to_string();
  EXPECT_EQ(p.to_string().find("fill"), std::string::npos) << p.to_string();
  p.structure_a = Structure::SymmetricUpper, p.structure_b = Structure::LowerUnit, p.fill = Fill::Upper;
  EXPECT_NE(p.to_string().find(" A:symmetric_upper B:lower_unit fill:upper"), std::string::npos) << p.to_string();
  p.structure_a = Structure::General, p.structure_b = Structure::UpperUnit, p.fill = Fill::Lower;
  EXPECT_NE(p.to_string().find(" B:upper_unit fill:lower"), std::string::npos) << p.to_string();
  EXPECT_EQ(p.to_string().find(" A:"), std::string::npos) << p.to_string();
}

TEST(StructureKeys, EveryStructurePairAndFillRoundTrips) {
  std::set<size_t> hashes;
  std::set<std::string> canonicals;
  int keys = 0;
  for (Precision mode : {Precision::FP32, Precision::TF32x3, Precision::TF32})
    for (Structure sa : kAllStructures)
      for (Structure sb : kAllStructures)
        for (Fill fill : kAllFills)
          for (Op ta : {Op::N, Op::T}) {
            GemmProblem p;
            p.m = p.n = p.k = 257, p.precision = mode, p.trans_a = ta, p.trans_b = Op::T;
            p.structure_a = sa, p.structure_b = sb, p.fill = fill;
            if (ta == Op::T) p.lda = 260;  // padded
            const ProblemKey key = make_problem_key(p);
            const std::string text = key.canonical();
            SCOPED_TRACE(text);
            EXPECT_NE(text.find(fmt::format(".{}.{}.{}.", to_string(sa), to_string(sb), to_string(fill))),
                      std::string::npos);
            EXPECT_EQ(ProblemKey::parse(text), key);
            const GemmProblem back = problem_for_key(key);
            EXPECT_EQ(back.structure_a, sa);
            EXPECT_EQ(back.structure_b, sb);
            EXPECT_EQ(back.fill, fill);
            EXPECT_NO_THROW(back.validate());
            EXPECT_EQ(make_problem_key(back), key);
            hashes.insert(ProblemKeyHash{}(key));
            canonicals.insert(text);
            ++keys;
          }
  EXPECT_EQ(canonicals.size(), static_cast<size_t>(keys));
  EXPECT_EQ(hashes.size(), static_cast<size_t>(keys));
  EXPECT_EQ(ProblemKey::parse("gemm.tf32x3.NT.symmetric_upper.upper_unit.lower.64x64x64.tight.tight.tight.v444")
                .structure_a,
            Structure::SymmetricUpper);
}

TEST(StructureKeys, StructureAndFillMakeOtherKinds) {
  GemmProblem p;
  p.m = p.n = p.k = 4096;
  const ProblemKey base = make_problem_key(p);
  for (Structure s : kAllStructures)
    for (Fill fill : kAllFills) {
      GemmProblem q = p;
      q.structure_a = s, q.fill = fill;
      EXPECT_EQ(make_problem_key(q).same_kind(base), s == Structure::General && fill == Fill::Full)
          << make_problem_key(q).canonical();
      GemmProblem r = p;
      r.structure_b = s, r.fill = fill;
      EXPECT_EQ(make_problem_key(r).same_kind(make_problem_key(q)), s == Structure::General) << to_string(s);
    }
}

TEST(StructureKeys, ParseRejectsUnknownStructuresAndFills) {
  for (const char* bad : {"gemm.fp32.NN.lower_upper.general.full.64x64x64.tight.tight.tight.v444",
                          "gemm.fp32.NN.general.unit.full.64x64x64.tight.tight.tight.v444",
                          "gemm.fp32.NN.general.general.lower_unit.64x64x64.tight.tight.tight.v444",
                          "gemm.fp32.NN.symmetric.upper.strict.64x64x64.tight.tight.tight.v444"})
    EXPECT_THROW(ProblemKey::parse(bad), InvalidArgument) << bad;
}

}  // namespace
}  // namespace jitgemm
