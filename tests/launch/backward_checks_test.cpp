// The pointer checks of gemm_backward (launch/backward_checks.hpp), before anything touches the
// GPU: every bad pointer is named (dC, A, B, dA, dB), only what a requested gradient product
// reads is required, and the two outputs stay apart from each other and from what the other
// product reads.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>

#include "jitgemm/backward.hpp"
#include "jitgemm/error.hpp"
#include "launch/backward_checks.hpp"

namespace jitgemm {
namespace {

// Fake device addresses, far apart: only their values matter to the checks.
void* at(uintptr_t address) { return reinterpret_cast<void*>(address); }
constexpr uintptr_t kDc = 0x10000000, kA = 0x20000000, kB = 0x30000000, kDa = 0x40000000, kDb = 0x50000000;

BackwardOperands all() { return {at(kDc), at(kA), at(kB), at(kDa), at(kDb)}; }

GemmProblem problem(int64_t m, int64_t n, int64_t k) {
  GemmProblem p;
  p.m = m, p.n = n, p.k = k;
  return p;
}

void expect_error(const GemmProblem& p, const BackwardOperands& ptrs, const std::string& expected,
                  const BackwardOptions& options = {}) {
  SCOPED_TRACE(expected);
  try {
    check_backward_operands(backward_problems(p, options), ptrs);
    ADD_FAILURE() << "no error; expected " << expected;
  } catch (const InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find("Runtime::gemm_backward: " + expected), std::string::npos) << e.what();
  }
}

void expect_ok(const GemmProblem& p, const BackwardOperands& ptrs, const BackwardOptions& options = {}) {
  EXPECT_NO_THROW(check_backward_operands(backward_problems(p, options), ptrs)) << p.to_string();
}

TEST(BackwardChecks, EveryBadPointerIsNamed) {
  const GemmProblem p = problem(64, 48, 32);
  BackwardOperands x = all();
  x.dc = nullptr;
  expect_error(p, x, "dC is a null pointer");
  x = all(), x.a = nullptr;
  expect_error(p, x, "A is a null pointer");
  x = all(), x.b = nullptr;
  expect_error(p, x, "B is a null pointer");
  x = all(), x.dc = at(kDc + 2);
  expect_error(p, x, "dC=0x10000002 is not 4-byte aligned");
  x = all(), x.da = at(kDa + 1);
  expect_error(p, x, "dA=0x40000001 is not 4-byte aligned");
  x = all(), x.db = at(kDb + 3);
  expect_error(p, x, "dB=0x50000003 is not 4-byte aligned");
  x = all(), x.b = at(kB + 2);
  expect_error(p, x, "B=0x30000002 is not 4-byte aligned");
}

TEST(BackwardChecks, OutputsMustNotAliasWhatIsRead) {
  const GemmProblem p = problem(64, 48, 32);
  BackwardOperands x = all();
  x.da = at(kDc + 256);
  expect_error(p, x, "dA overlaps dC");
  x = all(), x.da = at(kB);
  expect_error(p, x, "dA overlaps B");
  x = all(), x.db = at(kA + 4);
  expect_error(p, x, "dB overlaps A");
  x = all(), x.db = at(kDa + 64);
  expect_error(p, x, "dA overlaps dB");
  x = all(), x.da = at(kA);  // dB's product reads A after dA is written
  expect_error(p, x, "dA overlaps A");
  x = all(), x.db = at(kB);
  expect_error(p, x, "dB overlaps B");
  // With dB skipped, dA may take A's place (nothing reads A).
  x = all(), x.da = at(kA), x.db = nullptr;
  expect_ok(p, x);
  // A transposed, padded dA: its extent is K x lda.
  GemmProblem t = p;
  t.trans_a = Op::T, t.lda = 100;
  x = all(), x.da = at(kDb - 4 * (31 * 100 + 64) + 4);  // its last element is dB's first
  expect_error(t, x, "dA overlaps dB");
  x.da = at(kDb - 4 * (31 * 100 + 64));
  expect_ok(t, x);
}

TEST(BackwardChecks, OnlyWhatARequestedProductReadsIsRequired) {
  const GemmProblem p = problem(64, 48, 32);
  expect_ok(p, {at(kDc), at(kA), nullptr, nullptr, at(kDb)});  // dB alone: B unread
  expect_ok(p, {at(kDc), nullptr, at(kB), at(kDa), nullptr});  // dA alone: A unread
  expect_ok(p, {nullptr, nullptr, nullptr, nullptr, nullptr});  // nothing asked
  expect_error(p, {at(kDc), nullptr, at(kB), nullptr, at(kDb)}, "A is a null pointer");
  // M = 0: dA is empty, dB = 0 (K x N zeros): dC, A and B unread, dB written.
  expect_ok(problem(0, 48, 32), {nullptr, nullptr, nullptr, at(kDa), at(kDb)});
  // N = 0: dA = 0, dB empty.
  expect_ok(problem(64, 0, 32), {nullptr, nullptr, nullptr, at(kDa), at(kDb)});
  // K = 0: both empty, nothing touched.
  expect_ok(problem(64, 48, 0), {nullptr, nullptr, nullptr, reinterpret_cast<void*>(1), reinterpret_cast<void*>(1)});
  // alpha = 0: zeros, nothing read (as the forward's BLAS rule).
  GemmProblem zero = p;
  zero.alpha = 0.0f;
  expect_ok(zero, {nullptr, nullptr, nullptr, at(kDa), at(kDb)});
  // But a written gradient needs its pointer: dB of M = 0 is K x N zeros.
  GemmProblem m0 = problem(0, 48, 32);
  try {
    check_backward_operands(backward_problems(m0), {nullptr, nullptr, nullptr, nullptr, at(kDb + 2)});
    ADD_FAILURE() << "misaligned dB accepted";
  } catch (const InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find("dB=0x50000002 is not 4-byte aligned"), std::string::npos) << e.what();
  }
}

TEST(BackwardChecks, ProjectedGradientsAreCheckedLikeThePlainOnes) {
  GemmProblem p = problem(64, 64, 64);
  p.structure_a = Structure::Symmetric;
  p.structure_b = Structure::LowerUnit;
  BackwardOperands x = all();
  x.da = at(kDc);
  expect_error(p, x, "dA overlaps dC", {true, true});
  x = all(), x.b = nullptr;
  expect_error(p, x, "B is a null pointer", {true, true});
  expect_ok(p, all(), {true, true});
}

}  // namespace
}  // namespace jitgemm
