// refresh_unchanged(): a template edit that leaves a record's kernel as it was refreshes the
// record's template hash; one that changes the kernel or a support kernel it runs, a record
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
#include "exec/launch_plan.hpp"
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

// A support kernel's template is part of the hash; where it changed, the support kernels a
// record's launches run are compared cubin by cubin: a comment in the edge strips' template
// leaves the SIMT records current (one whose launches run the strips, one whose do not), while
// a change to the transposing pre-pass leaves stale only the records whose plans run it.
TEST(RecordRefresh, AChangedSupportKernelLeavesStaleTheRecordsThatRunIt) {
  const TemplateStore& now = TemplateStore::embedded();
  const TemplateStore strips_edited = testing::templates_with_edit(
      "record_refresh", "fp32/edge_strips.cu", [](std::string text) { return "// an edit of a comment\n" + text; });
  ASSERT_NE(family_template_hash(strips_edited, KernelFamily::Simt), family_template_hash(now, KernelFamily::Simt));
  ASSERT_EQ(family_template_hash(strips_edited, KernelFamily::Wgmma), family_template_hash(now, KernelFamily::Wgmma));
  {
    TuningDatabase db;
    for (int64_t n : {512, 1537}) {  // 1537: edge strips past the 64-wide tiles
      TuningRecord simt = testing::sample_record(testing::sample_problem(n, n, n), testing::kH200);
      simt.config = KernelConfig::parse("simt_fp32_64x128x8_w2x2_t8x8_s4_k1_g8");
      simt.top.clear();
      EXPECT_EQ(make_launch_plan(simt.config, simt.problem, {132, 0}).strips.any(n, n), n == 1537);
      simt.environment = {13000, nvrtc_version(), family_template_hash(strips_edited, KernelFamily::Simt),
                          std::string(version())};
      db.upsert(simt);
    }
    db.upsert(wgmma_record(family_template_hash(now, KernelFamily::Wgmma), 1024));  // current
    const std::vector<jitgemm::RecordRefresh> out = refresh_unchanged(db, strips_edited, now, Compiler(std::nullopt));
    ASSERT_EQ(out.size(), 2u);
    for (const jitgemm::RecordRefresh& r : out) {
      EXPECT_EQ(r.outcome, RefreshOutcome::Refreshed) << r.key << ": " << r.detail;
      EXPECT_EQ(db.find(r.key)->environment.template_hash, family_template_hash(now, KernelFamily::Simt));
    }
  }
  // The transposing pre-pass (split_transposed) with a wider tile row: its cubins change, the
  // others' (rows copied straight, the small plane alone) do not.
  const TemplateStore transpose_changed =
      testing::templates_with_edit("record_refresh", "tf32/split_operand.cu", [](std::string text) {
        const std::string from = "__shared__ float tile[TILE_K][TILE_STRIDE];  // [k][r]";
        const size_t at = text.find(from);
        EXPECT_NE(at, std::string::npos);
        return text.replace(at, from.size(), "__shared__ float tile[TILE_K][TILE_STRIDE + 2];  // [k][r]");
      });
  const std::string before = family_template_hash(transpose_changed, KernelFamily::Wgmma);
  ASSERT_NE(before, family_template_hash(now, KernelFamily::Wgmma));
  TuningDatabase db;
  db.upsert(wgmma_record(before, 1024));  // NN: B stored K x N, its planes written by split_transposed
  TuningRecord nt = wgmma_record(before, 2048);
  nt.problem.trans_b = Op::T;  // NT: both operands K-major, their small planes written by split_rows
  db.upsert(nt);
  const std::vector<jitgemm::RecordRefresh> out = refresh_unchanged(db, transpose_changed, now, Compiler(std::nullopt));
  ASSERT_EQ(out.size(), 2u);
  for (const jitgemm::RecordRefresh& r : out) {
    const TuningRecord* record = db.find(r.key);
    ASSERT_NE(record, nullptr);
    if (record->problem.trans_b == Op::N) {
      EXPECT_EQ(r.outcome, RefreshOutcome::KernelChanged) << r.detail;
      EXPECT_NE(r.detail.find("support kernel jitgemm_split_operand_p2_t1_v4"), std::string::npos) << r.detail;
      EXPECT_EQ(record->environment.template_hash, before);
    } else {
      EXPECT_EQ(r.outcome, RefreshOutcome::Refreshed) << r.detail;
      EXPECT_EQ(record->environment.template_hash, family_template_hash(now, KernelFamily::Wgmma));
    }
  }
}

}  // namespace
}  // namespace jitgemm
