// The serving policy's handling of tuned configs that read an operand in place (A in
// registers): a nearest record whose raw operand this problem's memory cannot give TMA
// is served with the same tiles fed by the pre-pass.
#include "launch/kernel_selector.hpp"

#include <gtest/gtest.h>

#include "codegen/candidate_space.hpp"
#include "codegen/wgmma_family.hpp"
#include "database/record_samples.hpp"

namespace jitgemm {
namespace {

using testing::kEnv;
using testing::kH200;
using testing::sample_problem;
using testing::sample_record;

Environments environments() {
  return {{KernelFamily::Simt, kEnv}, {KernelFamily::MmaSync, kEnv}, {KernelFamily::Wgmma, kEnv}};
}

TuningDatabase database_with(const KernelConfig& config, const ProblemKey& problem) {
  TuningRecord r = sample_record(problem, kH200);
  r.config = config;
  r.candidates.clear();
  r.candidate_count = 1;
  TuningDatabase db;
  db.upsert(r);
  return db;
}

TEST(KernelSelectorInPlace, NearestRecordWithARawOperandFallsBackToPlanesWhereTmaCannotReadIt) {
  const KernelConfig rs = KernelConfig::parse("wgmma_tf32x3_128x128x32_c2_s3_a32_b1_m0_g8_rs");
  const TuningDatabase db = database_with(rs, sample_problem(4096, 4096, 4096, Precision::TF32x3));

  ProblemKey aligned = sample_problem(4000, 4000, 4000, Precision::TF32x3);
  Selection s = select_kernel(db, kH200, aligned, environments());
  EXPECT_EQ(s.rule, ServeRule::Nearest);
  EXPECT_EQ(s.config, rs);

  ProblemKey odd = aligned;
  odd.vec_a = 1;  // A's rows are not 16-byte aligned: TMA cannot read it in place
  s = select_kernel(db, kH200, odd, environments());
  EXPECT_EQ(s.rule, ServeRule::Nearest);
  EXPECT_EQ(s.config.wgmma().a, WgmmaA::Planes);
  EXPECT_EQ(s.config.block_n, rs.block_n);
  EXPECT_TRUE(wgmma_runs_in_place(s.config, odd));
  EXPECT_TRUE(statically_valid(s.config, StaticLimits{}, nullptr));

  // Swapped: B is the raw operand, so an unaligned A does not matter but an unaligned B does.
  KernelConfig swapped = rs;
  swapped.wgmma().swap_ab = true;
  const TuningDatabase db2 = database_with(swapped, sample_problem(4096, 4096, 4096, Precision::TF32x3));
  EXPECT_EQ(select_kernel(db2, kH200, odd, environments()).config, swapped);
  odd.vec_b = 1;
  EXPECT_EQ(select_kernel(db2, kH200, odd, environments()).config.wgmma().a, WgmmaA::Planes);
}

TEST(KernelSelectorInPlace, PlanesThatNoLongerFitFallBackToTheDefault) {
  // tf32x3 128x128 at 4 stages fits shared memory with one raw A tile per stage, not with A's
  // two planes.
  const KernelConfig rs = KernelConfig::parse("wgmma_tf32x3_128x128x32_c2_s4_a32_b1_m0_g8_rs");
  ASSERT_TRUE(statically_valid(rs, StaticLimits{}, nullptr));
  KernelConfig planes = rs;
  planes.wgmma().a = WgmmaA::Planes;
  ASSERT_FALSE(statically_valid(planes, StaticLimits{}, nullptr));
  const TuningDatabase db = database_with(rs, sample_problem(4096, 4096, 4096, Precision::TF32x3));
  ProblemKey odd = sample_problem(4000, 4000, 4000, Precision::TF32x3);
  odd.vec_a = 1;
  const Selection s = select_kernel(db, kH200, odd, environments());
  EXPECT_EQ(s.rule, ServeRule::Default);
  EXPECT_TRUE(wgmma_runs_in_place(s.config, odd));
}

}  // namespace
}  // namespace jitgemm
