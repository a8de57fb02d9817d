// The split-K reduction (fp32/split_k_reduce.cu) over every way it shares out the slices: slice
// counts that give one, two, four or eight threads a quad of C, and counts that are not
// multiples of those; widths whose last quad is partial (N = 37, 6, 1); both fills; beta 0 and
// not. The workspace is NaN-filled (ConfigRunner), so a read of a slice's padding (columns N ..
// ldw, which no kernel writes) shows as a wrong result.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <tuple>

#include "codegen/simt_family.hpp"
#include "config_cases.hpp"

namespace jitgemm::testing {
namespace {

TEST(SplitKReduce, EverySliceShareAndPartialQuad) {
  JITGEMM_REQUIRE_GPU();
  ConfigRunner runner(gpu());
  int cases = 0;
  for (auto [m, n, k] : {std::tuple{19, 37, 531}, std::tuple{130, 6, 2048}, std::tuple{5, 1, 600}})
    for (int split : {1, 2, 3, 5, 8, 9, 17})
      for (Fill fill : {Fill::Full, Fill::Lower})
        for (float beta : {0.0f, 0.5f}) {
          GemmProblem p;
          p.m = m, p.n = n, p.k = k;
          p.fill = fill, p.alpha = 1.5f, p.beta = beta;
          KernelConfig config = simt_default_config(make_problem_key(p));
          config.split_k = split;
          const std::optional<CaseResult> r = runner.run(config, p, 900 + cases, RandomKind::SignedNormal);
          ASSERT_TRUE(r.has_value()) << config.name() << " on " << p.to_string();
          // The slices' sums are exact enough in double; what is left is each slice's FP32 chain.
          const double bound = std::max(r->tolerance, std::sqrt(static_cast<double>(k)) * kUnitRoundoff);
          EXPECT_TRUE(r->ours.passes(bound)) << describe_failure(config, p, *r);
          ++cases;
        }
  EXPECT_EQ(cases, 3 * 7 * 2 * 2);
}

}  // namespace
}  // namespace jitgemm::testing
