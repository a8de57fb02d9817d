// refresh_unchanged(): a template edit that leaves a record's kernel as it was refreshes the
// record's template hash; one that changes the kernel or a support kernel's template, a record
// tuned with other templates or stale in another field, and the records of an unchanged family
// are left as they were; a record stamped with the family template's hash alone (before
// session 45) is re-stamped.
#include "tune/record_refresh.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <string>

#include "database/record_samples.hpp"
#include "jitgemm/runtime.hpp"
#include "codegen/source_render.hpp"
#include "support/test_support.hpp"

namespace jitgemm {
namespace {

TuningRecord wgmma_record(const std::string& template_hash, int64_t n = 1024) {
  TuningRecord r = testing::sample_record(testing::sample_problem(1024, n, 1024, Precision::TF32x3), testing::kH200);
  r.config = KernelConfig::parse("wgmma_tf32x3_128x128x32_c2_s3_a32_b1_m0_g8");
  r.top.clear();
  r.environment = {13000, nvrtc_version(), template_hash, std::string(version())};
  return r;
}

TEST(RecordRefresh, SameCubinRefreshesAndAChangedKernelStaysStale) {
  const KernelFamily wgmma = KernelFamily::Wgmma;
  // A comment changes the template hash and not a byte of any kernel.
  const TemplateStore commented = testing::templates_with_edit(
      "record_refresh", "tf32/wgmma_gemm.cu", [](std::string text) { return "// an edit of a comment\n" + text; });
  // The epilogue's beta product as a separate multiply and add: every wgmma kernel changes.
  const TemplateStore changed = testing::templates_with_edit("record_refresh", "tf32/wgmma_gemm.cu", [](std::string text) {
    const std::string from = "return beta != 0.0f ? fmaf(beta, *c, v) : v;";
    const size_t at = text.find(from);
    EXPECT_NE(at, std::string::npos);
    return text.replace(at, from.size(), "return beta != 0.0f ? __fmul_rn(beta, *c) + v : v;");
  });
  const TemplateStore& now = TemplateStore::embedded();
  ASSERT_NE(family_template_hash(commented, wgmma), family_template_hash(now, wgmma));
  ASSERT_NE(family_template_hash(changed, wgmma), family_template_hash(now, wgmma));

  TuningDatabase db;
  db.upsert(wgmma_record(family_template_hash(commented, wgmma), 1024));  // refreshed against `commented`
  db.upsert(wgmma_record(family_template_hash(changed, wgmma), 2048));    // tuned with other templates than `commented`
  TuningRecord other_nvrtc = wgmma_record(family_template_hash(commented, wgmma), 3072);
  other_nvrtc.environment.nvrtc_version = 12080;
  db.upsert(other_nvrtc);
  // Stamped before session 45 with the hash of `commented`'s wgmma template alone: re-stamped.
  db.upsert(wgmma_record(legacy_template_hash(commented, wgmma), 4096));
  TuningRecord simt = testing::sample_record(testing::sample_problem(512, 512, 512), testing::kH200);
  simt.environment = {13000, nvrtc_version(), family_template_hash(now, KernelFamily::Simt), std::string(version())};
  db.upsert(simt);  // current: not listed

  const Compiler compiler(std::nullopt);
  std::vector<jitgemm::RecordRefresh> out = refresh_unchanged(db, commented, now, compiler);
  ASSERT_EQ(out.size(), 4u);
  std::map<int64_t, jitgemm::RecordRefresh> by_n;
  for (const jitgemm::RecordRefresh& r : out) by_n[db.find(r.key)->problem.n] = r;
  EXPECT_EQ(by_n[1024].outcome, RefreshOutcome::Refreshed) << by_n[1024].detail;
  EXPECT_EQ(by_n[2048].outcome, RefreshOutcome::OtherTemplates);
  EXPECT_EQ(by_n[3072].outcome, RefreshOutcome::OtherFields);
  EXPECT_EQ(by_n[4096].outcome, RefreshOutcome::Refreshed) << by_n[4096].detail;
  for (const TuningRecord& r : db.records()) {
    const std::string expected = r.problem.n == 1024 || r.problem.n == 4096 ? family_template_hash(now, wgmma)
                                 : r.problem.n == 2048                      ? family_template_hash(changed, wgmma)
                                 : r.problem.n == 3072 ? family_template_hash(commented, wgmma)
                                                       : family_template_hash(now, KernelFamily::Simt);
    EXPECT_EQ(r.environment.template_hash, expected) << r.key();
  }

  // Against the templates that change the kernel, the record tuned with them stays stale.
  out = refresh_unchanged(db, changed, now, compiler);
  ASSERT_EQ(out.size(), 2u);  // the 1024 and 4096 records are current now
  for (const jitgemm::RecordRefresh& r : out) {
    const TuningRecord* record = db.find(r.key);
    ASSERT_NE(record, nullptr);
    EXPECT_EQ(r.outcome, record->problem.n == 2048 ? RefreshOutcome::KernelChanged : RefreshOutcome::OtherFields)
        << r.key << ": " << r.detail;
    // Neither is refreshed: each keeps the hash it was tuned with.
    EXPECT_EQ(record->environment.template_hash, record->problem.n == 2048 ? family_template_hash(changed, wgmma)
                                                                           : family_template_hash(commented, wgmma))
        << r.key;
  }
}

// A support kernel's template (here the edge strips', by a comment) is part of the hash, and only
// the main kernel's cubin is compared: every record of the family tuned with the other one stays
// stale, while a family that does not run that kernel is untouched.
TEST(RecordRefresh, AChangedSupportKernelLeavesItsFamiliesRecordsStale) {
  const TemplateStore strips_edited = testing::templates_with_edit(
      "record_refresh", "fp32/edge_strips.cu", [](std::string text) { return "// an edit of a comment\n" + text; });
  const TemplateStore& now = TemplateStore::embedded();
  ASSERT_NE(family_template_hash(strips_edited, KernelFamily::Simt), family_template_hash(now, KernelFamily::Simt));
  ASSERT_EQ(family_template_hash(strips_edited, KernelFamily::Wgmma), family_template_hash(now, KernelFamily::Wgmma));
  TuningDatabase db;
  TuningRecord simt = testing::sample_record(testing::sample_problem(512, 512, 512), testing::kH200);
  simt.environment = {13000, nvrtc_version(), family_template_hash(strips_edited, KernelFamily::Simt),
                      std::string(version())};
  db.upsert(simt);
  db.upsert(wgmma_record(family_template_hash(now, KernelFamily::Wgmma), 1024));  // current
  const std::vector<jitgemm::RecordRefresh> out = refresh_unchanged(db, strips_edited, now, Compiler(std::nullopt));
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].outcome, RefreshOutcome::KernelChanged);
  EXPECT_NE(out[0].detail.find("support kernel fp32/edge_strips.cu changed"), std::string::npos) << out[0].detail;
  EXPECT_EQ(db.find(out[0].key)->environment.template_hash, family_template_hash(strips_edited, KernelFamily::Simt));
}

}  // namespace
}  // namespace jitgemm
