// The serving policy (lookup): exact, nearest within a factor of two with its config adapted,
// default otherwise; the decision's staleness and explanation. Pure functions, no GPU.
#include "database/serving_policy.hpp"

#include <gtest/gtest.h>

#include "codegen/candidate_space.hpp"
#include "codegen/served_config.hpp"
#include "codegen/wgmma_family.hpp"
#include "database/environment_samples.hpp"
#include "database/record_samples.hpp"

namespace jitgemm {
namespace {

using testing::environments_of;
using testing::kEnv;
using testing::kH100;
using testing::kH200;
using testing::sample_problem;
using testing::sample_record;

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

TuningDatabase database_with(const KernelConfig& config, const ProblemKey& problem, const DeviceKey& device = kH100) {
  TuningRecord r = sample_record(problem, device);
  r.config = config;
  r.top = {{config, r.timing.median_ms, r.accuracy.rel_error, 128, 0}};
  r.outcomes = {{{CandidateOutcome::Ok, 1}}, 0};
  r.candidate_count = 1;
  TuningDatabase db;
  db.upsert(r);
  return db;
}

TEST(ServingPolicy, ExactServesTheRecordAsTuned) {
  const ProblemKey key = sample_problem(1024, 1024, 1024);
  TuningDatabase db;
  db.upsert(sample_record(key));
  const ServingDecision d = lookup(db, kH100, key, environments_of(kEnv));
  EXPECT_EQ(d.rule, ServingRule::Exact);
  ASSERT_NE(d.record, nullptr);
  EXPECT_EQ(d.config, d.record->config);  // split_k 2 kept, not re-derived
  EXPECT_FALSE(d.stale());
  EXPECT_EQ(d.explanation, "exact: " + d.record->key());
}

TEST(ServingPolicy, NearestWithinAFactorOfTwoInEachDimension) {
  const ProblemKey tuned = sample_problem(1024, 1024, 1024);
  TuningDatabase db;
  db.upsert(sample_record(tuned));
  const Environments env = environments_of(kEnv);
  // Just inside (2x, 1/2x) and just outside (2x + 1, one below 1/2x) in each dimension.
  for (const ProblemKey& inside : {sample_problem(2048, 1024, 1024), sample_problem(1024, 512, 1024),
                                   sample_problem(1024, 1024, 2048), sample_problem(2048, 512, 2048)}) {
    const ServingDecision d = lookup(db, kH100, inside, env);
    EXPECT_EQ(d.rule, ServingRule::Nearest) << inside.canonical();
    EXPECT_EQ(d.config, adapt_record_config(d.record->config, inside)) << inside.canonical();
  }
  for (const ProblemKey& outside : {sample_problem(2049, 1024, 1024), sample_problem(1024, 511, 1024),
                                    sample_problem(1024, 1024, 2049), sample_problem(64, 64, 64)}) {
    const ServingDecision d = lookup(db, kH100, outside, env);
    EXPECT_EQ(d.rule, ServingRule::Default) << outside.canonical();
    EXPECT_EQ(d.config, untuned_config(outside));
    EXPECT_EQ(d.record, nullptr);
    EXPECT_TRUE(has(d.explanation, "default: nearest record " + sample_record(tuned).key() +
                                       " is more than a factor of two away")) << d.explanation;
  }
  EXPECT_TRUE(has(lookup(db, kH100, sample_problem(2049, 1024, 1024), env).explanation, "M 1024 vs 2049"));
}

TEST(ServingPolicy, NearestExplanationNamesTheRecordDistanceAndAdaptation) {
  TuningDatabase db;
  db.upsert(sample_record(sample_problem(4096, 4096, 4096)));
  const ServingDecision d = lookup(db, kH100, sample_problem(3000, 4096, 4096), environments_of(kEnv));
  ASSERT_EQ(d.rule, ServingRule::Nearest);
  EXPECT_TRUE(has(d.explanation, "nearest: " + d.record->key() + " (distance 0.45: tuned 4096x4096x4096, asked "
                                 "3000x4096x4096)")) << d.explanation;
  // The record's split_k 2 re-derived for this shape (1: K is short for the output).
  EXPECT_EQ(d.config.split_k, default_split_k(sample_problem(3000, 4096, 4096), d.record->config));
  EXPECT_NE(d.config, d.record->config);
  EXPECT_TRUE(has(d.explanation, "config adapted from " + d.record->config.name())) << d.explanation;
}

TEST(ServingPolicy, DefaultWithoutARecordOfThisKind) {
  TuningDatabase db;
  db.upsert(sample_record(sample_problem(1024, 1024, 1024)));
  ProblemKey transposed = sample_problem(1024, 1024, 1024);
  transposed.trans_a = Op::T;
  const ServingDecision d = lookup(db, kH100, transposed, environments_of(kEnv));
  EXPECT_EQ(d.rule, ServingRule::Default);
  EXPECT_EQ(d.config, untuned_config(transposed));
  EXPECT_EQ(d.explanation, "default: no record of this kind for NVIDIA H100 80GB HBM3 sm90 (1 records for this device)");
  const DeviceKey pcie{"NVIDIA H100 PCIe", 90, 114};  // not a sibling: another SM count
  EXPECT_EQ(lookup(db, pcie, sample_problem(1024, 1024, 1024), environments_of(kEnv)).rule, ServingRule::Default);
}

// The H100's record of exactly this problem serves an H200 (same sm, same 132 SMs) that has
// none, its config as tuned, and says so; a problem it was not tuned for is not served by it.
TEST(ServingPolicy, ASiblingDevicesRecordServesExactlyItsProblem) {
  TuningDatabase db;
  const TuningRecord h100 = sample_record(sample_problem(1024, 1024, 1024));
  db.upsert(h100);
  const ServingDecision d = lookup(db, kH200, sample_problem(1024, 1024, 1024), environments_of(kEnv));
  EXPECT_EQ(d.rule, ServingRule::Sibling);
  EXPECT_EQ(d.config, h100.config);
  ASSERT_EQ(d.record, db.find(h100.key()));
  EXPECT_EQ(d.explanation, "sibling: " + h100.key() +
                               " (no record of NVIDIA H200 sm90 for this problem; NVIDIA H100 80GB HBM3 is a device of "
                               "the same sm and 132 SMs)");
  EXPECT_EQ(lookup(db, kH200, sample_problem(1000, 1024, 1024), environments_of(kEnv)).rule, ServingRule::Default);
}

TEST(ServingPolicy, UntunedSmallTensorCoreProblemsGetTheTf32x3MmaKernelOrFp32) {
  // In tf32 mode too: cuBLAS's TF32 mode computes these shapes in FP32, which makes the tf32
  // contract FP32-accurate there (candidate_space.hpp, tuning_candidates).
  const TuningDatabase empty;
  const Environments env = environments_of(kEnv);
  for (Precision p : {Precision::TF32x3, Precision::TF32}) {
    for (const ProblemKey& key : {sample_problem(7, 64, 127, p), sample_problem(1000, 37, 1537, p),
                                  sample_problem(64, 256, 524288, p), sample_problem(2048, 2048, 64, p)}) {
      const ServingDecision d = lookup(empty, kH100, key, env);
      EXPECT_EQ(d.rule, ServingRule::Default);
      EXPECT_EQ(d.config, untuned_config(key));
      // Outputs of at most 2^16 elements: fp32 (cuBLAS's TF32 error there is ~3e-8, and a
      // few-element tf32x3 output misses float32's by the dropped small products).
      const bool fp32 = key.m * key.n <= 65536;
      EXPECT_EQ(d.config.precision, fp32 ? Precision::FP32 : Precision::TF32x3);
      EXPECT_EQ(d.config.family(), fp32 ? KernelFamily::Simt : KernelFamily::MmaSync)
          << key.canonical() << ": " << d.config.name();
      EXPECT_FALSE(d.stale());
    }
    // Where the wgmma kernels pay, they serve; fp32 stays SIMT. Huge K too, in K pieces.
    EXPECT_EQ(lookup(empty, kH100, sample_problem(4096, 4096, 4096, p), env).config.family(), KernelFamily::Wgmma);
    const KernelConfig huge_k = lookup(empty, kH100, sample_problem(256, 256, 524288, p), env).config;
    EXPECT_EQ(huge_k.family(), KernelFamily::Wgmma) << huge_k.name();
    EXPECT_EQ(huge_k.split_k, 132) << huge_k.name();
  }
  EXPECT_EQ(lookup(empty, kH100, sample_problem(7, 64, 127), env).config.family(), KernelFamily::Simt);
}

TEST(ServingPolicy, MmaRecordsAreStaleByTheirOwnFamilyAndNearestRederivesTheSplit) {
  const ProblemKey tuned = sample_problem(1000, 64, 1024, Precision::TF32x3);
  const KernelConfig mma = KernelConfig::parse("mma_tf32x3_64x64x32_w2x2_s3_a32_k8_g8");
  Environments env = testing::per_family_environments();
  TuningRecord record = sample_record(tuned);
  record.config = mma;
  record.environment.template_hash = env.template_hashes.at(KernelFamily::MmaSync);
  TuningDatabase db;
  db.upsert(record);

  ServingDecision d = lookup(db, kH100, tuned, env);
  EXPECT_EQ(d.rule, ServingRule::Exact);
  EXPECT_EQ(d.config, mma);
  EXPECT_FALSE(d.stale());

  const ProblemKey near = sample_problem(1000, 64, 2048, Precision::TF32x3);
  d = lookup(db, kH100, near, env);
  EXPECT_EQ(d.rule, ServingRule::Nearest);
  EXPECT_EQ(d.config.family(), KernelFamily::MmaSync);
  EXPECT_EQ(d.config.split_k, default_split_k(near, mma));

  // A new mma template makes the record stale; a new wgmma template does not.
  env.template_hashes[KernelFamily::Wgmma] = "tmpl-new-wgmma";
  EXPECT_FALSE(lookup(db, kH100, tuned, env).stale());
  env.template_hashes[KernelFamily::MmaSync] = "tmpl-new-mma";
  d = lookup(db, kH100, tuned, env);
  ASSERT_TRUE(d.stale());
  EXPECT_EQ(d.staleness, staleness(record, env));
  EXPECT_EQ(d.rule, ServingRule::Exact);  // stale records are still served
}

TEST(ServingPolicy, NearestRecordWithARawOperandFallsBackToPlanesWhereTmaCannotReadIt) {
  const KernelConfig rs = KernelConfig::parse("wgmma_tf32x3_128x128x32_c2_s3_a32_b1_m0_g8_rs");
  const Environments env = environments_of(kEnv);
  const TuningDatabase db = database_with(rs, sample_problem(4096, 4096, 4096, Precision::TF32x3), kH200);
  ProblemKey aligned = sample_problem(4000, 4000, 4000, Precision::TF32x3);
  ServingDecision d = lookup(db, kH200, aligned, env);
  EXPECT_EQ(d.rule, ServingRule::Nearest);
  EXPECT_EQ(d.config, rs);

  ProblemKey odd = aligned;
  odd.vec_a = 1;  // A's rows are not 16-byte aligned: TMA cannot read it in place
  d = lookup(db, kH200, odd, env);
  EXPECT_EQ(d.rule, ServingRule::Nearest);
  EXPECT_EQ(d.config.wgmma().a, WgmmaA::Planes);
  EXPECT_EQ(d.config.block_n, rs.block_n);
  EXPECT_TRUE(wgmma_runs_in_place(d.config, odd));
}

TEST(ServingPolicy, PlanesThatNoLongerFitFallBackToTheDefault) {
  const KernelConfig rs = KernelConfig::parse("wgmma_tf32x3_128x128x32_c2_s4_a32_b1_m0_g8_rs");
  const TuningDatabase db = database_with(rs, sample_problem(4096, 4096, 4096, Precision::TF32x3), kH200);
  ProblemKey odd = sample_problem(4000, 4000, 4000, Precision::TF32x3);
  odd.vec_a = 1;
  const ServingDecision d = lookup(db, kH200, odd, environments_of(kEnv));
  EXPECT_EQ(d.rule, ServingRule::Default);
  EXPECT_EQ(d.config, untuned_config(odd));
  EXPECT_TRUE(has(d.explanation, "cannot be adapted")) << d.explanation;
}

}  // namespace
}  // namespace jitgemm
