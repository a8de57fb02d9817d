// TuningDatabase::match: exact, a sibling device's exact, nearest (with its tie-breaks), none. The serving policy built
// on it (the bound, the adapted config, staleness) is serving_policy_test.cpp.
#include <gtest/gtest.h>

#include "database/record_samples.hpp"
#include "database/tuning_database.hpp"

namespace jitgemm {
namespace {

using testing::kH100;
using testing::kH200;
using testing::sample_problem;
using testing::sample_record;
using Rule = RecordMatch::Rule;

TuningDatabase sample_db() {
  TuningDatabase db;
  db.upsert(sample_record(sample_problem(4096, 4096, 4096)));
  db.upsert(sample_record(sample_problem(1024, 1024, 1024)));
  db.upsert(sample_record(sample_problem(4096, 4096, 4096, Precision::TF32)));
  db.upsert(sample_record(sample_problem(2048, 2048, 2048), kH200));
  return db;
}

TEST(TuningDatabaseMatch, Exact) {
  TuningDatabase db = sample_db();
  RecordMatch r = db.match(kH100, sample_problem(1024, 1024, 1024));
  EXPECT_EQ(r.rule, Rule::Exact);
  ASSERT_NE(r.record, nullptr);
  EXPECT_EQ(r.record->problem, sample_problem(1024, 1024, 1024));
  EXPECT_EQ(r.distance, 0.0);
  EXPECT_EQ(r.device_records, 3);
}

TEST(TuningDatabaseMatch, NearestBySizeDistanceWithoutABound) {
  TuningDatabase db = sample_db();
  RecordMatch r = db.match(kH100, sample_problem(2000, 2000, 2000));  // between 1024 and 4096
  EXPECT_EQ(r.rule, Rule::Nearest);
  r = db.match(kH100, sample_problem(8192, 4096, 2048));
  EXPECT_EQ(r.rule, Rule::Nearest);
  ASSERT_NE(r.record, nullptr);
  EXPECT_EQ(r.record->problem.m, 4096);
  EXPECT_DOUBLE_EQ(r.distance, 2.0);
  // Far beyond a factor of two is still the nearest record: the bound is the policy's.
  r = db.match(kH100, sample_problem(64, 64, 64));
  EXPECT_EQ(r.rule, Rule::Nearest);
  EXPECT_EQ(r.record->problem.m, 1024);
}

// A sibling device (another name, the same sm and SM count) serves exactly its problems where
// this device has no exact record, before this device's nearest; another SM count never does.
TEST(TuningDatabaseMatch, ASiblingDevicesExactRecordComesBeforeTheNearest) {
  TuningDatabase db = sample_db();
  RecordMatch r = db.match(kH100, sample_problem(2048, 2048, 2048));  // the H200's; H100's nearest 3 away
  EXPECT_EQ(r.rule, Rule::Sibling);
  ASSERT_NE(r.record, nullptr);
  EXPECT_EQ(r.record->device, kH200);
  EXPECT_EQ(r.distance, 0.0);
  EXPECT_EQ(r.device_records, 3);
  r = db.match(kH200, sample_problem(1024, 1024, 1024));  // the H200 has a record of its own kind: the H100's is exact
  EXPECT_EQ(r.rule, Rule::Sibling);
  EXPECT_EQ(r.record->device, kH100);
  r = db.match(kH200, sample_problem(2048, 2048, 2048));  // its own exact wins
  EXPECT_EQ(r.rule, Rule::Exact);
  EXPECT_EQ(r.record->device, kH200);
  const DeviceKey pcie{"NVIDIA H100 PCIe", 90, 114};
  r = db.match(pcie, sample_problem(2048, 2048, 2048));
  EXPECT_EQ(r.rule, Rule::None);
  const DeviceKey ampere{"NVIDIA A100-SXM4-80GB", 80, 132};
  EXPECT_EQ(db.match(ampere, sample_problem(2048, 2048, 2048)).rule, Rule::None);
}

TEST(TuningDatabaseMatch, NearestTieBreaks) {
  TuningDatabase db;
  ProblemKey padded = sample_problem(1024, 1024, 1024);
  padded.ld_a = LdClass::Padded;
  db.upsert(sample_record(padded, kH100, "2025-03-01T00:00:00Z"));
  db.upsert(sample_record(sample_problem(4096, 1024, 1024), kH100, "2025-01-01T00:00:00Z"));
  // Both at distance 1 from 2048x1024x1024; the tight one matches the asked layout.
  RecordMatch r = db.match(kH100, sample_problem(2048, 1024, 1024));
  ASSERT_EQ(r.rule, Rule::Nearest);
  EXPECT_EQ(r.record->problem.m, 4096);
  // Same layout agreement: the newer record wins.
  db.upsert(sample_record(sample_problem(1024, 1024, 1024), kH100, "2025-02-01T00:00:00Z"));
  r = db.match(kH100, sample_problem(2048, 1024, 1024));
  EXPECT_EQ(r.record->problem.m, 1024);
  EXPECT_EQ(r.record->problem.ld_a, LdClass::Tight);
}

TEST(TuningDatabaseMatch, NoneForOtherDeviceSmOrKind) {
  TuningDatabase db = sample_db();
  EXPECT_EQ(db.match({"NVIDIA A100-SXM4-80GB", 80, 108}, sample_problem(4096, 4096, 4096)).rule, Rule::None);
  EXPECT_EQ(db.match({kH100.name, 89, 132}, sample_problem(4096, 4096, 4096)).rule, Rule::None);
  ProblemKey transposed = sample_problem(4096, 4096, 4096);
  transposed.trans_b = Op::T;
  RecordMatch r = db.match(kH100, transposed);
  EXPECT_EQ(r.rule, Rule::None);
  EXPECT_EQ(r.record, nullptr);
  EXPECT_EQ(r.device_records, 3);
}

}  // namespace
}  // namespace jitgemm
