// refresh_unchanged(): a template edit that leaves a record's kernel as it was refreshes the
// record's template hash; one that changes the kernel, a record tuned with other templates or
// stale in another field, and the records of an unchanged family are left as they were.
#include "tune/record_refresh.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <string>

#include "database/record_samples.hpp"
#include "jitgemm/runtime.hpp"
#include "support/test_support.hpp"

namespace jitgemm {
namespace {

namespace fs = std::filesystem;

// The embedded templates written under `root`, with `edit` applied to tf32/wgmma_gemm.cu's text.
TemplateStore edited_templates(const fs::path& root, const std::function<std::string(std::string)>& edit) {
  const TemplateStore& embedded = TemplateStore::embedded();
  const fs::path source = fs::path(JITGEMM_SOURCE_DIR) / "kernel_templates";
  for (const auto& entry : fs::recursive_directory_iterator(source)) {
    if (!entry.is_regular_file()) continue;
    const std::string rel = fs::relative(entry.path(), source).generic_string();
    if (!embedded.contains(rel)) continue;
    const fs::path out = root / rel;
    fs::create_directories(out.parent_path());
    std::ofstream(out) << (rel == "tf32/wgmma_gemm.cu" ? edit(embedded.text(rel)) : embedded.text(rel));
  }
  return TemplateStore::from_directory(root);
}

TuningRecord wgmma_record(const std::string& template_hash, int64_t n = 1024) {
  TuningRecord r = testing::sample_record(testing::sample_problem(1024, n, 1024, Precision::TF32x3), testing::kH200);
  r.config = KernelConfig::parse("wgmma_tf32x3_128x128x32_c2_s3_a32_b1_m0_g8");
  r.top.clear();
  r.environment = {13000, nvrtc_version(), template_hash, std::string(version())};
  return r;
}

TEST(RecordRefresh, SameCubinRefreshesAndAChangedKernelStaysStale) {
  const fs::path dir = testing::temp_dir("record_refresh");
  const std::string path = "tf32/wgmma_gemm.cu";
  // A comment changes the template hash and not a byte of any kernel.
  const TemplateStore commented =
      edited_templates(dir / "commented", [](std::string text) { return "// an edit of a comment\n" + text; });
  // The epilogue's beta product as a separate multiply and add: every wgmma kernel changes.
  const TemplateStore changed = edited_templates(dir / "changed", [](std::string text) {
    const std::string from = "return beta != 0.0f ? fmaf(beta, *c, v) : v;";
    const size_t at = text.find(from);
    EXPECT_NE(at, std::string::npos);
    return text.replace(at, from.size(), "return beta != 0.0f ? __fmul_rn(beta, *c) + v : v;");
  });
  const TemplateStore& now = TemplateStore::embedded();
  ASSERT_NE(commented.template_hash(path), now.template_hash(path));
  ASSERT_NE(changed.template_hash(path), now.template_hash(path));

  TuningDatabase db;
  db.upsert(wgmma_record(commented.template_hash(path), 1024));  // refreshed against `commented`
  db.upsert(wgmma_record(changed.template_hash(path), 2048));    // tuned with other templates than `commented`
  TuningRecord other_nvrtc = wgmma_record(commented.template_hash(path), 3072);
  other_nvrtc.environment.nvrtc_version = 12080;
  db.upsert(other_nvrtc);
  TuningRecord simt = testing::sample_record(testing::sample_problem(512, 512, 512), testing::kH200);
  simt.environment = {13000, nvrtc_version(), now.template_hash("fp32/simt_gemm.cu"), std::string(version())};
  db.upsert(simt);  // current: not listed

  const Compiler compiler(std::nullopt);
  std::vector<jitgemm::RecordRefresh> out = refresh_unchanged(db, commented, now, compiler);
  ASSERT_EQ(out.size(), 3u);
  std::map<int64_t, RefreshOutcome> by_n;
  for (const jitgemm::RecordRefresh& r : out) by_n[db.find(r.key)->problem.n] = r.outcome;
  EXPECT_EQ(by_n[1024], RefreshOutcome::Refreshed) << out[0].detail;
  EXPECT_EQ(by_n[2048], RefreshOutcome::OtherTemplates);
  EXPECT_EQ(by_n[3072], RefreshOutcome::OtherFields);
  for (const TuningRecord& r : db.records()) {
    const std::string expected = r.problem.n == 1024 ? now.template_hash(path)
                                 : r.problem.n == 2048 ? changed.template_hash(path)
                                 : r.problem.n == 3072 ? commented.template_hash(path)
                                                       : now.template_hash("fp32/simt_gemm.cu");
    EXPECT_EQ(r.environment.template_hash, expected) << r.key();
  }

  // Against the templates that change the kernel, the record tuned with them stays stale.
  out = refresh_unchanged(db, changed, now, compiler);
  ASSERT_EQ(out.size(), 2u);  // the 1024 record is current now
  for (const jitgemm::RecordRefresh& r : out) {
    const TuningRecord* record = db.find(r.key);
    ASSERT_NE(record, nullptr);
    EXPECT_EQ(r.outcome, record->problem.n == 2048 ? RefreshOutcome::KernelChanged : RefreshOutcome::OtherFields)
        << r.key << ": " << r.detail;
    // Neither is refreshed: each keeps the hash it was tuned with.
    EXPECT_EQ(record->environment.template_hash,
              record->problem.n == 2048 ? changed.template_hash(path) : commented.template_hash(path))
        << r.key;
  }
}

}  // namespace
}  // namespace jitgemm
