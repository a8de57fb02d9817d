// The serving policy without a GPU: which config the selector picks for tf32x3 / tf32
// problems (the mma.sync family where the wgmma kernels do not pay), and staleness judged
// per family, the mma.sync families included.
#include "launch/kernel_selector.hpp"

#include <gtest/gtest.h>

#include <fmt/format.h>

#include "codegen/candidate_space.hpp"
#include "codegen/mma_sync_family.hpp"
#include "database/record_samples.hpp"

namespace jitgemm {
namespace {

using testing::kH100;
using testing::sample_problem;
using testing::sample_record;

Environments environments() {
  Environments envs;
  for (KernelFamily f : kKernelFamilies) envs[f] = EnvironmentKey{13000, 13000, fmt::format("tmpl-{}", to_string(f)), "0.1.0"};
  return envs;
}

TEST(KernelSelector, UntunedSmallTensorCoreProblemsGetTheTf32x3MmaKernelOrFp32) {
  // In tf32 mode too: cuBLAS's TF32 mode computes these shapes in FP32, which makes the tf32
  // contract FP32-accurate there (candidate_space.hpp, tuning_candidates).
  const TuningDatabase empty;
  for (Precision p : {Precision::TF32x3, Precision::TF32}) {
    for (const ProblemKey& key : {sample_problem(7, 64, 127, p), sample_problem(1000, 37, 1537, p),
                                  sample_problem(256, 256, 524288, p), sample_problem(2048, 2048, 64, p)}) {
      const Selection s = select_kernel(empty, kH100, key, environments());
      EXPECT_EQ(s.rule, ServeRule::Default);
      EXPECT_EQ(s.config, untuned_config(key));
      // tf32 outputs of at most 2^16 elements: fp32 (cuBLAS's TF32 error there is ~3e-8).
      const bool fp32 = p == Precision::TF32 && key.m * key.n <= 65536;
      EXPECT_EQ(s.config.family(), fp32 ? KernelFamily::Simt : KernelFamily::MmaSync)
          << key.canonical() << ": " << s.config.name();
      EXPECT_EQ(s.config.precision, fp32 ? Precision::FP32 : Precision::TF32x3)
          << key.canonical() << ": " << s.config.name();
      EXPECT_FALSE(s.stale);
    }
    // Where the wgmma kernels pay, they serve; fp32 stays SIMT.
    EXPECT_EQ(select_kernel(empty, kH100, sample_problem(4096, 4096, 4096, p), environments()).config.family(),
              KernelFamily::Wgmma);
  }
  EXPECT_EQ(select_kernel(empty, kH100, sample_problem(7, 64, 127), environments()).config.family(),
            KernelFamily::Simt);
}

TEST(KernelSelector, MmaRecordsAreServedStaleByTheirOwnFamilyAndNearestRederivesTheSplit) {
  const ProblemKey tuned = sample_problem(1000, 64, 1024, Precision::TF32x3);
  TuningRecord record = sample_record(tuned);
  record.config = KernelConfig::parse("mma_tf32x3_64x64x32_w2x2_s3_a32_k8_g8");
  Environments envs = environments();
  record.environment = envs.at(KernelFamily::MmaSync);
  TuningDatabase db;
  db.upsert(record);

  Selection s = select_kernel(db, kH100, tuned, envs);
  EXPECT_EQ(s.rule, ServeRule::Exact);
  EXPECT_EQ(s.config, record.config);
  EXPECT_FALSE(s.stale);

  // The same shape with a longer K: the record's tiles, the split of this shape.
  const ProblemKey near = sample_problem(1000, 64, 2048, Precision::TF32x3);
  s = select_kernel(db, kH100, near, envs);
  EXPECT_EQ(s.rule, ServeRule::Nearest);
  EXPECT_EQ(s.config.family(), KernelFamily::MmaSync);
  EXPECT_EQ(s.config.split_k, default_split_k(near, record.config));

  // A new mma template makes the record stale; a new wgmma template does not.
  envs[KernelFamily::Wgmma].template_hash = "tmpl-new-wgmma";
  EXPECT_FALSE(select_kernel(db, kH100, tuned, envs).stale);
  envs[KernelFamily::MmaSync].template_hash = "tmpl-new-mma";
  EXPECT_TRUE(select_kernel(db, kH100, tuned, envs).stale);
}

}  // namespace
}  // namespace jitgemm
