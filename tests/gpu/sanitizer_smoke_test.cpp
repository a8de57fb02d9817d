// Small products on every code path of every mode (code_path_configs: SIMT, mma.sync with and
// without a K split, the wgmma sample with its pre-pass, A in registers, transformed B,
// stream-K and K pieces; the untuned default), with partial tiles, a structured operand and
// a fill, and a long K. Small enough to run under compute-sanitizer's memcheck, racecheck,
// initcheck and synccheck (bench/device-run.sh sanitize), where every kernel family must be
// clean; in the normal suite it is one more correctness check.
#include <gtest/gtest.h>

#include "config_cases.hpp"

namespace jitgemm::testing {
namespace {

class SanitizerSmoke : public ::testing::TestWithParam<Precision> {};

TEST_P(SanitizerSmoke, EveryCodePathOnSmallProblems) {
  JITGEMM_REQUIRE_GPU();
  ConfigRunner runner(gpu());
  std::vector<GemmProblem> problems(3);
  // Partial tiles, alpha and beta, a padded C.
  problems[0].m = 200, problems[0].n = 136, problems[0].k = 72, problems[0].alpha = -0.5f, problems[0].beta = 0.25f;
  problems[0].ldc = 140;
  // A triangular operand, op T, an output fill: the work list and the masked pre-pass.
  problems[1].m = problems[1].n = problems[1].k = 130;
  problems[1].trans_a = Op::T, problems[1].structure_a = Structure::Lower, problems[1].fill = Fill::Lower;
  // A long K on a small output: split-K, stream-K, K pieces.
  problems[2].m = 64, problems[2].n = 96, problems[2].k = 4096;
  int launched = 0;
  for (GemmProblem p : problems) {
    p.precision = GetParam();
    for (const KernelConfig& config : code_path_configs(make_problem_key(p))) {
      const std::optional<CaseResult> r = runner.run(config, p, 50 + launched, RandomKind::SignedNormal);
      if (!r) continue;
      ++launched;
      EXPECT_TRUE(r->ours.passes(r->tolerance)) << describe_failure(config, p, *r);
    }
  }
  std::printf("[ info ] %s: %d launches\n", std::string(to_string(GetParam())).c_str(), launched);
  EXPECT_GE(launched, 3 * 4);
}

INSTANTIATE_TEST_SUITE_P(AllModes, SanitizerSmoke, ::testing::Values(Precision::FP32, Precision::TF32x3, Precision::TF32),
                         [](const auto& info) { return std::string(to_string(info.param)); });

}  // namespace
}  // namespace jitgemm::testing
