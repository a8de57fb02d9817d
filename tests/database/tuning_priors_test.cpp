// tuning_priors: a sibling device's record of exactly the problem first, then this device's
// nearest records of the kind, at most kMaxPriors, no config twice. tuning_incumbent: this
// device's own record of exactly the problem.
#include "database/tuning_priors.hpp"

#include <gtest/gtest.h>

#include "database/record_samples.hpp"

namespace jitgemm {
namespace {

using testing::kH100;
using testing::kH200;
using testing::sample_config;
using testing::sample_problem;
using testing::sample_record;

TuningRecord with_config(TuningRecord r, int block_m, int stages) {
  r.config = sample_config(block_m, stages);
  return r;
}

TuningDatabase database_of(const std::vector<TuningRecord>& records) {
  TuningDatabase db;
  for (const TuningRecord& r : records) db.upsert(r);
  return db;
}

TEST(TuningPriors, TheSiblingsExactRecordThenTheNearestOfThisDevice) {
  const std::vector<TuningRecord> records = {
      with_config(sample_record(sample_problem(4096, 4096, 4096)), 128, 3),          // H100, a factor 2 away
      with_config(sample_record(sample_problem(1024, 1024, 1024)), 64, 3),           // H100, a factor 2 away
      with_config(sample_record(sample_problem(2048, 2048, 2048), kH200), 128, 4),   // the H200's: this problem
      with_config(sample_record(sample_problem(2048, 2048, 2048, Precision::TF32)), 64, 2),  // another kind
      with_config(sample_record(sample_problem(8192, 8192, 8192)), 32, 3),           // H100, a factor 4 away
  };
  const std::vector<KernelConfig> priors = tuning_priors(database_of(records), kH100, sample_problem(2048, 2048, 2048));
  ASSERT_EQ(priors.size(), kMaxPriors);
  EXPECT_EQ(priors[0], sample_config(128, 4));  // the sibling's, as tuned for exactly this problem
  // Then by distance: 1024^3 and 4096^3 tie, by key ("...1024x..." before "...4096x..."); 8192^3
  // is farther and left out.
  EXPECT_EQ(priors[1], sample_config(64, 3));
  EXPECT_EQ(priors[2], sample_config(128, 3));
}

TEST(TuningPriors, NoConfigTwiceAndNoSiblingOfAnotherSmCount) {
  std::vector<TuningRecord> records = {
      with_config(sample_record(sample_problem(4096, 4096, 4096)), 128, 3),
      with_config(sample_record(sample_problem(2048, 2048, 2048), kH200), 128, 3),  // the same config
  };
  std::vector<KernelConfig> priors = tuning_priors(database_of(records), kH100, sample_problem(2048, 2048, 2048));
  ASSERT_EQ(priors.size(), 1u);
  EXPECT_EQ(priors[0], sample_config(128, 3));
  const DeviceKey pcie{"NVIDIA H100 PCIe", 90, 114};
  records.push_back(with_config(sample_record(sample_problem(1024, 1024, 1024), pcie), 64, 2));
  priors = tuning_priors(database_of(records), kH100, sample_problem(1024, 1024, 1024));
  ASSERT_EQ(priors.size(), 1u);  // the H100's own 4096^3; the PCIe card's record is not a sibling's
  EXPECT_EQ(priors[0], sample_config(128, 3));
  EXPECT_TRUE(tuning_priors(TuningDatabase{}, kH100, sample_problem(64, 64, 64)).empty());
}

TEST(TuningIncumbent, OnlyThisDevicesRecordOfExactlyTheProblem) {
  const TuningDatabase db = database_of({
      with_config(sample_record(sample_problem(2048, 2048, 2048)), 128, 3),          // H100, this problem
      with_config(sample_record(sample_problem(4096, 4096, 4096), kH200), 64, 2),   // the H200's of another
  });
  EXPECT_EQ(tuning_incumbent(db, kH100, sample_problem(2048, 2048, 2048)), sample_config(128, 3));
  EXPECT_EQ(tuning_incumbent(db, kH100, sample_problem(1024, 1024, 1024)), std::nullopt);  // nearest only
  EXPECT_EQ(tuning_incumbent(db, kH100, sample_problem(4096, 4096, 4096)), std::nullopt);  // a sibling's only
  EXPECT_EQ(tuning_incumbent(db, kH200, sample_problem(4096, 4096, 4096)), sample_config(64, 2));
}

}  // namespace
}  // namespace jitgemm
