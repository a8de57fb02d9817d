// staleness(): the one comparison of a record's environment with this machine's, per family,
// with unknown fields left out; machine_environments() from the template store.
#include "database/environments.hpp"

#include <gtest/gtest.h>

#include "codegen/source_render.hpp"
#include "database/environment_samples.hpp"
#include "database/record_samples.hpp"

namespace jitgemm {
namespace {

using testing::environments_of;
using testing::kEnv;
using testing::sample_problem;
using testing::sample_record;

TEST(Staleness, EmptyWhenCurrentAndOneFieldPerDifferenceInOrder) {
  const TuningRecord record = sample_record(sample_problem(1024, 1024, 1024));
  EXPECT_TRUE(staleness(record, environments_of(kEnv)).empty());
  EnvironmentKey now = kEnv;
  now.jitgemm_version = "0.2.0";
  now.driver_version = 12080;
  now.template_hash = "tmpl-new";
  const std::vector<StaleField> fields = staleness(record, environments_of(now));
  ASSERT_EQ(fields.size(), 3u);
  EXPECT_EQ(fields[0], (StaleField{EnvironmentField::DriverVersion, "12040", "12080"}));
  EXPECT_EQ(fields[1], (StaleField{EnvironmentField::TemplateHash, "tmpl-3f9a1c2e", "tmpl-new"}));
  EXPECT_EQ(fields[2], (StaleField{EnvironmentField::JitgemmVersion, "0.1.0", "0.2.0"}));
  EXPECT_EQ(to_string(fields[0]), "driver_version 12040 -> 12080");
  EXPECT_EQ(to_string(fields[1]), "template_hash tmpl-3f9a1c2e -> tmpl-new");
}

TEST(Staleness, ComparesTheTemplateHashOfTheRecordsOwnFamily) {
  TuningRecord record = sample_record(sample_problem(1000, 64, 1024, Precision::TF32x3));
  record.config = KernelConfig::parse("mma_tf32x3_64x64x32_w2x2_s3_a32_k8_g8");
  Environments now = testing::per_family_environments();
  record.environment.template_hash = now.template_hashes.at(KernelFamily::MmaSync);
  EXPECT_TRUE(staleness(record, now).empty());
  now.template_hashes[KernelFamily::Wgmma] = "tmpl-new-wgmma";
  EXPECT_TRUE(staleness(record, now).empty());
  now.template_hashes[KernelFamily::MmaSync] = "tmpl-new-mma";
  ASSERT_EQ(staleness(record, now).size(), 1u);
  EXPECT_EQ(staleness(record, now)[0].field, EnvironmentField::TemplateHash);
}

TEST(Staleness, FieldsNotKnownHereAreNotCompared) {
  const TuningRecord record = sample_record(sample_problem(1024, 1024, 1024));
  Environments now = environments_of(EnvironmentKey{13000, 13000, "tmpl-other", "9.9.9"});
  EXPECT_EQ(staleness(record, now).size(), 4u);
  now.driver_version.reset();  // jitgemm-db explain without a CUDA driver
  EXPECT_FALSE(now.known(EnvironmentField::DriverVersion, KernelFamily::Simt));
  const std::vector<StaleField> fields = staleness(record, now);
  ASSERT_EQ(fields.size(), 3u);
  EXPECT_EQ(fields[0].field, EnvironmentField::NvrtcVersion);
  // Nothing known: nothing stale (prune --stale compares only the fields it is given).
  EXPECT_TRUE(staleness(record, Environments{}).empty());
  Environments only_driver;
  only_driver.driver_version = 12080;
  ASSERT_EQ(staleness(record, only_driver).size(), 1u);
}

TEST(StaleRecords, ThisDevicesStaleRecordsInOrderWithTheirFields) {
  using testing::kH100;
  using testing::kH200;
  std::vector<TuningRecord> records = {sample_record(sample_problem(64, 64, 64), kH100),
                                       sample_record(sample_problem(128, 128, 128), kH200),
                                       sample_record(sample_problem(256, 256, 256), kH100),
                                       sample_record(sample_problem(512, 512, 512), kH100)};
  records[2].environment.template_hash = "tmpl-new";  // the only current H100 record
  EnvironmentKey now = kEnv;
  now.template_hash = "tmpl-new";
  const std::vector<StaleRecord> stale = stale_records(records, kH100, environments_of(now));
  ASSERT_EQ(stale.size(), 2u);  // not the H200's, not the current one
  EXPECT_EQ(stale[0].problem, records[0].problem);
  EXPECT_EQ(stale[1].problem, records[3].problem);
  EXPECT_EQ(stale[1].fields, (std::vector<StaleField>{{EnvironmentField::TemplateHash, "tmpl-3f9a1c2e", "tmpl-new"}}));
  EXPECT_EQ(stale_records(records, kH100, environments_of(kEnv)).size(), 1u);  // records[2] is the stale one now
  EXPECT_TRUE(stale_records(records, DeviceKey{"NVIDIA A100", 80, 108}, environments_of(now)).empty());
}

TEST(MachineEnvironments, EveryFamilyGetsItsTemplatesHash) {
  const TemplateStore& store = TemplateStore::embedded();
  const Environments env = machine_environments(store, std::nullopt, 13000, "0.1.0");
  EXPECT_FALSE(env.driver_version.has_value());
  EXPECT_EQ(env.nvrtc_version, 13000);
  EXPECT_EQ(env.jitgemm_version, "0.1.0");
  ASSERT_EQ(env.template_hashes.size(), std::size(kKernelFamilies));
  for (KernelFamily f : kKernelFamilies) {
    EXPECT_EQ(env.template_hashes.at(f), family_template_hash(store, f)) << to_string(f);
    EXPECT_TRUE(env.known(EnvironmentField::TemplateHash, f));
  }
  // Different templates differ.
  EXPECT_NE(env.template_hashes.at(KernelFamily::Simt), env.template_hashes.at(KernelFamily::MmaSync));
  EXPECT_NE(env.template_hashes.at(KernelFamily::Wgmma), env.template_hashes.at(KernelFamily::MmaSync));
}

}  // namespace
}  // namespace jitgemm
