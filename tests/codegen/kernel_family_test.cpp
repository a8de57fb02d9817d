// Each family through the one interface: its candidates and sample are valid and of the
// family, names parse back, the default is a candidate, the JSON field table covers every
// parameter (a config differing in one field differs in its table values), and the template
// of each family is the one it renders.
#include "codegen/kernel_family.hpp"

#include <gtest/gtest.h>

#include <set>

#include "codegen/candidate_space.hpp"
#include "codegen/source_render.hpp"

namespace jitgemm {
namespace {

ProblemKey key_of(Precision p, int64_t m, int64_t n, int64_t k) {
  ProblemKey key;
  key.precision = p;
  key.m = m, key.n = n, key.k = k;
  return key;
}

struct FamilyCase {
  KernelFamily family;
  Precision precision;
  ProblemKey key;
};

std::vector<FamilyCase> cases() {
  return {{KernelFamily::Simt, Precision::FP32, key_of(Precision::FP32, 2048, 2048, 2048)},
          {KernelFamily::MmaSync, Precision::TF32x3, key_of(Precision::TF32x3, 100, 1000, 1000)},
          {KernelFamily::MmaSync, Precision::TF32, key_of(Precision::TF32, 100, 1000, 1000)},
          {KernelFamily::Wgmma, Precision::TF32x3, key_of(Precision::TF32x3, 2048, 2048, 2048)},
          {KernelFamily::Wgmma, Precision::TF32, key_of(Precision::TF32, 2048, 2048, 2048)}};
}

TEST(KernelFamily, EachFamilyThroughTheInterface) {
  for (const FamilyCase& fc : cases()) {
    const KernelFamilyRules& rules = family_rules(fc.family);
    EXPECT_EQ(rules.family(), fc.family);
    EXPECT_TRUE(rules.computes(fc.precision));
    const auto space = rules.candidates(fc.key, StaticLimits{});
    ASSERT_FALSE(space.empty()) << to_string(fc.family);
    std::set<std::string> names;
    for (const KernelConfig& c : space) {
      EXPECT_EQ(c.family(), fc.family) << c.name();
      EXPECT_EQ(c.precision, fc.precision) << c.name();
      EXPECT_EQ(rules.invalid_reason(c, StaticLimits{}), "") << c.name();
      EXPECT_EQ(KernelConfig::parse(c.name()), c) << c.name();
      EXPECT_TRUE(names.insert(c.name()).second) << c.name();
      EXPECT_GT(rules.threads(c), 0);
      EXPECT_GT(rules.shared_memory_bytes(c), 0u);
    }
    const KernelConfig d = rules.default_config(fc.key);
    EXPECT_TRUE(names.count(d.name())) << d.name();
    for (const KernelConfig& c : rules.sample(fc.key)) EXPECT_EQ(rules.invalid_reason(c, StaticLimits{}), "") << c.name();
    // The rendered unit is the family's template with its prologue, for its target.
    const RenderedKernel r = render_kernel(d, KernelSpecialization{});
    EXPECT_EQ(template_path(fc.family), rules.template_path());
    EXPECT_EQ(r.arch, "sm_90a");
    EXPECT_NE(r.source.find(rules.prologue(d, KernelSpecialization{}, r.kernel_name)), std::string::npos);
    // A family does not compute another's precision.
    for (Precision p : {Precision::FP32, Precision::TF32x3, Precision::TF32})
      EXPECT_EQ(rules.computes(p), fc.family == KernelFamily::Simt ? p == Precision::FP32 : p != Precision::FP32);
  }
}

TEST(KernelFamily, TheFieldTableCoversEveryParameter) {
  // Every config of a space differs from its neighbours in the tile or in a table field: the
  // table (what the database stores) misses no parameter the name holds.
  for (const FamilyCase& fc : cases()) {
    const KernelFamilyRules& rules = family_rules(fc.family);
    std::set<std::vector<int>> stored;
    const auto space = rules.candidates(fc.key, StaticLimits{});
    for (const KernelConfig& c : space) {
      std::vector<int> values{c.block_m, c.block_n, c.block_k, c.stages, c.split_k, c.raster_group};
      for (const ConfigField& f : rules.fields()) {
        values.push_back(f.get(c));
        KernelConfig copy = c;
        f.set(copy, f.get(c));
        EXPECT_EQ(copy, c) << f.name;
      }
      EXPECT_TRUE(stored.insert(values).second) << c.name();
    }
  }
}

TEST(KernelFamily, AdaptKeepsTheTilesAndRederivesWhatTheShapeDecides) {
  const ProblemKey tuned = key_of(Precision::FP32, 1000, 64, 1024);
  KernelConfig c = family_rules(KernelFamily::Simt).default_config(tuned);
  const ProblemKey longer = key_of(Precision::FP32, 1000, 64, 8192);
  const auto adapted = family_rules(KernelFamily::Simt).adapt(c, longer);
  ASSERT_TRUE(adapted);
  EXPECT_EQ(adapted->block_m, c.block_m);
  EXPECT_EQ(adapted->split_k, default_split_k(longer, c));
  ProblemKey odd = key_of(Precision::TF32x3, 4000, 4000, 4000);
  odd.vec_a = 1;
  const KernelConfig rs = KernelConfig::parse("wgmma_tf32x3_128x128x32_c2_s3_a32_b1_m0_g8_rs");
  const auto planes = family_rules(KernelFamily::Wgmma).adapt(rs, odd);
  ASSERT_TRUE(planes);
  EXPECT_EQ(planes->wgmma().a, WgmmaA::Planes);
  // 4 stages fit one raw A tile per stage, not A's two planes: nothing of this kind runs.
  EXPECT_FALSE(family_rules(KernelFamily::Wgmma)
                   .adapt(KernelConfig::parse("wgmma_tf32x3_128x128x32_c2_s4_a32_b1_m0_g8_rs"), odd));
}

}  // namespace
}  // namespace jitgemm
