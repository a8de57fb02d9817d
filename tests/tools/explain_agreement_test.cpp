// jitgemm-db explain and the Runtime's selection agree: on 200 random problems (M, N, K over
// several orders of magnitude, every precision and transpose pair, tight / padded / unaligned
// leading dimensions) against a generated database with several records of each kind,
// including shapes just inside and just outside the factor-of-two bound, the serving policy
// (lookup), MemoizedSelector (what Runtime::gemm runs) and, for every tenth problem, the
// built jitgemm-db binary make the same decision: rule, record, config, staleness.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <filesystem>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "codegen/candidate_space.hpp"
#include "codegen/template_store.hpp"
#include "compile/compiler.hpp"
#include "database/record_samples.hpp"
#include "database/serving_policy.hpp"
#include "jitgemm/runtime.hpp"
#include "launch/memoized_selector.hpp"
#include "tools/run_tool.hpp"

namespace jitgemm {
namespace {

const std::string kBinary = JITGEMM_BINARY_DIR "/jitgemm-db";
const DeviceKey kDevice = testing::kH100;
constexpr int kDriver = 12090;  // given to explain with --driver, so the environments agree anywhere
constexpr Precision kPrecisions[] = {Precision::FP32, Precision::TF32x3, Precision::TF32};
constexpr int64_t kShapes[][3] = {{512, 512, 512}, {1024, 4096, 2048}, {4096, 4096, 4096}, {96, 64, 8192}};

ProblemKey key_of(int64_t m, int64_t n, int64_t k, Precision p, Op ta, Op tb, LdClass ld) {
  GemmProblem problem = problem_for_key(testing::sample_problem(m, n, k, p));
  problem.trans_a = ta, problem.trans_b = tb;
  ProblemKey key = make_problem_key(problem);
  key.ld_a = key.ld_b = key.ld_c = ld;
  return make_problem_key(problem_for_key(key));  // the vector widths that follow from ld
}

// A record of each kind at each of kShapes, its config one of the tuner's sample for that
// shape (register-A wgmma configs among them: the in-place fallback), plus another device's.
TuningDatabase fixture_database() {
  TuningDatabase db;
  int index = 0;
  for (Precision p : kPrecisions)
    for (Op ta : {Op::N, Op::T})
      for (Op tb : {Op::N, Op::T})
        for (const auto& s : kShapes) {
          const ProblemKey key = key_of(s[0], s[1], s[2], p, ta, tb, LdClass::Tight);
          TuningRecord r = testing::sample_record(key, kDevice);
          const std::vector<KernelConfig> sample = tuning_sample(key);
          r.config = sample[index++ % sample.size()];
          db.upsert(r);
        }
  db.upsert(testing::sample_record(key_of(4096, 4096, 4096, Precision::FP32, Op::N, Op::N, LdClass::Tight),
                                   testing::kH200));
  return db;
}

// Around a record's shape (just inside or outside the bound, or exactly it) or anywhere.
ProblemKey random_problem(std::mt19937& rng) {
  auto pick = [&](int n) { return std::uniform_int_distribution<int>(0, n - 1)(rng); };
  const Precision p = kPrecisions[pick(3)];
  const Op ta = pick(2) ? Op::T : Op::N, tb = pick(2) ? Op::T : Op::N;
  const LdClass ld = std::array{LdClass::Tight, LdClass::Padded, LdClass::Unaligned}[pick(3)];
  const auto& s = kShapes[pick(4)];
  int64_t dims[3];
  for (int d = 0; d < 3; ++d) {
    switch (pick(5)) {
      case 0: dims[d] = s[d]; break;
      case 1: dims[d] = 2 * s[d] + pick(2); break;              // at the bound, or one past it
      case 2: dims[d] = s[d] / 2 - pick(2); break;              // at the bound, or one past it
      case 3: dims[d] = s[d] * (60 + pick(80)) / 100; break;    // inside
      default: dims[d] = int64_t{1} << pick(15); break;          // 1 .. 16384
    }
    dims[d] = std::max<int64_t>(dims[d], 1);
  }
  if (pick(4) == 0) return key_of(s[0], s[1], s[2], p, ta, tb, LdClass::Tight);  // exact
  return key_of(dims[0], dims[1], dims[2], p, ta, tb, ld);
}

Environments this_machine() {
  return machine_environments(TemplateStore::active(), kDriver, nvrtc_version(), std::string(version()));
}

std::string stale_text(const ServingDecision& d) {
  if (d.record == nullptr) return "- (no record served)";
  std::vector<std::string> lines;
  for (const StaleField& f : d.staleness) lines.push_back(to_string(f));
  return lines.empty() ? "no" : fmt::format("{}", fmt::join(lines, ", "));
}

// The value of the line starting with `label` in explain's output.
std::string line_after(const std::string& out, const std::string& label) {
  const std::string text = "\n" + out;
  const size_t at = text.find("\n" + label);
  if (at == std::string::npos) return "<no " + label + " line>";
  const size_t from = at + 1 + label.size();
  return text.substr(from, text.find('\n', from) - from);
}

std::vector<std::string> explain_args(const std::string& db, const ProblemKey& key) {
  const GemmProblem p = problem_for_key(key);
  return {"--db", db, "explain", "--m", std::to_string(p.m), "--n", std::to_string(p.n), "--k", std::to_string(p.k),
          "--trans-a", std::string(to_string(p.trans_a)), "--trans-b", std::string(to_string(p.trans_b)),
          "--lda", std::to_string(p.lda), "--ldb", std::to_string(p.ldb), "--ldc", std::to_string(p.ldc),
          "--precision", std::string(to_string(p.precision)), "--device", kDevice.name,
          "--sm", std::to_string(kDevice.sm), "--driver", std::to_string(kDriver)};
}


TEST(ExplainAgreement, LookupMemoizedSelectorAndJitgemmDbExplainAgreeOn200RandomProblems) {
  ASSERT_TRUE(std::filesystem::exists(kBinary)) << kBinary << " is not built";
  const TuningDatabase db = fixture_database();
  const std::string path = testing::temp_dir("explain_agreement") + "/db.json";
  db.save(path);
  const Environments env = this_machine();
  MemoizedSelector selector(TuningDatabase::load(path), kDevice, env);
  std::mt19937 rng(20250611);
  std::map<ServingRule, int> rules;
  int too_far = 0, adapted = 0;
  for (int i = 0; i < 200; ++i) {
    const ProblemKey key = random_problem(rng);
    SCOPED_TRACE(key.canonical());
    const ServingDecision d = lookup(db, kDevice, key, env);
    const ServingDecision& s = selector.select(key);
    ++rules[d.rule];
    too_far += d.rule == ServingRule::Default && db.match(kDevice, key).rule == RecordMatch::Rule::Nearest;
    adapted += d.rule == ServingRule::Nearest && d.config != d.record->config;
    EXPECT_EQ(s.rule, d.rule);
    EXPECT_EQ(s.config, d.config);
    EXPECT_EQ(s.record == nullptr, d.record == nullptr);
    if (s.record != nullptr && d.record != nullptr) EXPECT_EQ(s.record->key(), d.record->key());
    EXPECT_EQ(s.staleness, d.staleness);
    EXPECT_EQ(s.explanation, d.explanation);
    if (i % 10 != 0) continue;
    const testing::ToolResult r = testing::run_tool(kBinary, explain_args(path, key));
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(line_after(r.out, "problem:  "), key.canonical());
    EXPECT_EQ(line_after(r.out, "decision: "), d.explanation) << r.out;
    EXPECT_EQ(line_after(r.out, "config:   "), d.config.name()) << r.out;
    EXPECT_EQ(line_after(r.out, "stale:    "), stale_text(d)) << r.out;
  }
  // The sample covers every rule, records beyond the bound and adapted configs.
  EXPECT_GE(rules[ServingRule::Exact], 20);
  EXPECT_GE(rules[ServingRule::Nearest], 20);
  EXPECT_GE(rules[ServingRule::Default], 20);
  EXPECT_GE(too_far, 10);
  EXPECT_GE(adapted, 5);
}

}  // namespace
}  // namespace jitgemm
