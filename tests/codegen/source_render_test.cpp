// render_kernel: the prologue of constants in front of the expanded template.
#include "codegen/source_render.hpp"

#include <gtest/gtest.h>

#include <cctype>
#include <set>

#include "codegen/candidate_space.hpp"
#include "codegen/mma_sync_family.hpp"
#include "common/hash.hpp"
#include "exec/launch_plan.hpp"
#include "codegen/kernel_family.hpp"
#include "jitgemm/error.hpp"
#include "support/test_support.hpp"

namespace jitgemm {
namespace {

bool contains(const std::string& text, const std::string& what) { return text.find(what) != std::string::npos; }

TEST(SourceRender, PrologueCarriesEveryConstant) {
  const KernelConfig c = KernelConfig::parse("simt_fp32_256x64x16_w4x1_t8x16_s3_k1_g8");
  const RenderedKernel r = render_kernel(c, KernelSpecialization{Op::T, Op::N, 4, 1, 4});
  EXPECT_EQ(r.kernel_name, "jitgemm_simt_fp32_256x64x16_w4x1_t8x16_s3_k1_g8_TN_v4v1v4");
  for (const char* line : {"#define KERNEL_NAME jitgemm_simt_fp32_256x64x16_w4x1_t8x16_s3_k1_g8_TN_v4v1v4\n",
                           "constexpr int BLOCK_M = 256, BLOCK_N = 64, BLOCK_K = 16;\n",
                           "constexpr int WARPS_M = 4, WARPS_N = 1;\n", "constexpr int THREAD_M = 8, THREAD_N = 16;\n",
                           "constexpr int STAGES = 3, SPLIT_K = 1, RASTER_GROUP = 8;\n",
                           "constexpr int TRANS_A = 1, TRANS_B = 0;\n", "constexpr int VEC_A = 4, VEC_B = 1, VEC_C = 4;\n"})
    EXPECT_TRUE(contains(r.source, line)) << line;
  EXPECT_TRUE(contains(r.source, "constexpr int SMEM_BYTES = " + std::to_string(shared_memory_bytes(c)) + ";\n"));
  EXPECT_EQ(r.threads, 128);
  EXPECT_EQ(r.smem_bytes, shared_memory_bytes(c));
  // The prologue comes first and the template (with the includes inlined) after it.
  EXPECT_LT(r.source.find("#define KERNEL_NAME"), r.source.find("#line 1 \"fp32/simt_gemm.cu\""));
  EXPECT_FALSE(contains(r.source, "#include"));
  EXPECT_TRUE(contains(r.source, "cp.async.cg.shared.global"));
}

// A symmetric operand reaches the SIMT kernel as an aligned dense copy: the kernel reads A as if
// stored K x M and B as stored K x N (16-byte copies along M and N), whatever op and alignment
// the caller gave, and its name says so.
TEST(SourceRender, SimtReadsSymmetricCopiesAlongMAndN) {
  ProblemKey key;
  key.m = key.n = key.k = 1001;
  key.trans_a = Op::N, key.trans_b = Op::T, key.vec_a = key.vec_b = key.vec_c = 1;
  key.structure_a = Structure::SymmetricUpper, key.structure_b = Structure::Symmetric;
  const KernelConfig c = KernelConfig::parse("simt_fp32_64x128x16_w1x4_t8x8_s3_k1_g8");
  const RenderedKernel both = render_kernel(c, specialization_of(key));
  EXPECT_EQ(both.kernel_name, "jitgemm_simt_fp32_64x128x16_w1x4_t8x8_s3_k1_g8_TN_v4v4v1");
  EXPECT_TRUE(contains(both.source, "constexpr int TRANS_A = 1, TRANS_B = 0;\n"));
  EXPECT_TRUE(contains(both.source, "constexpr int VEC_A = 4, VEC_B = 4, VEC_C = 1;\n"));
  // Only B symmetric: A stays as the caller stores it.
  key.structure_a = Structure::General;
  const RenderedKernel b_only = render_kernel(c, specialization_of(key));
  EXPECT_TRUE(contains(b_only.source, "constexpr int TRANS_A = 0, TRANS_B = 0;\n"));
  EXPECT_TRUE(contains(b_only.source, "constexpr int VEC_A = 1, VEC_B = 4, VEC_C = 1;\n"));
  // The tensor-core families read their own copies: their kernels are the general ones.
  key.precision = Precision::TF32x3;
  const KernelConfig mma = mma_representative_sample(key).front();
  ProblemKey general = key;
  general.structure_b = Structure::General;
  EXPECT_EQ(render_kernel(mma, specialization_of(key)).source, render_kernel(mma, specialization_of(general)).source);
}

// A large product's operand stored K-contiguous reaches the SIMT kernel as a transposed copy,
// and an unaligned one of a product from 2048 on as a copy with aligned rows.
TEST(SourceRender, SimtReadsSimtCopiesOfLargeOperands) {
  ProblemKey key;
  key.m = key.n = key.k = 4096;
  key.trans_a = Op::N, key.trans_b = Op::T, key.vec_a = key.vec_b = key.vec_c = 1;
  const KernelConfig c = KernelConfig::parse("simt_fp32_128x128x16_w2x4_t8x8_s2_k1_g8");
  const RenderedKernel large = render_kernel(c, specialization_of(key));
  EXPECT_EQ(large.kernel_name, "jitgemm_simt_fp32_128x128x16_w2x4_t8x8_s2_k1_g8_TN_v4v4v1");
  key.m = key.n = 2048;
  EXPECT_EQ(render_kernel(c, specialization_of(key)).kernel_name, "jitgemm_simt_fp32_128x128x16_w2x4_t8x8_s2_k1_g8_TN_v4v4v1");
  key.vec_a = key.vec_b = key.vec_c = 4;
  EXPECT_EQ(render_kernel(c, specialization_of(key)).kernel_name, "jitgemm_simt_fp32_128x128x16_w2x4_t8x8_s2_k1_g8_NT_v4v4v4");
  key.m = key.n = 512, key.vec_a = key.vec_b = key.vec_c = 1;
  EXPECT_EQ(render_kernel(c, specialization_of(key)).kernel_name, "jitgemm_simt_fp32_128x128x16_w2x4_t8x8_s2_k1_g8_NT_v1v1v1");
}

// PDL (programmatic dependent launch of the main kernel after its pre-pass): only tf32 work
// lists with a pre-pass; the launch plan launches exactly those kernels that way.
TEST(SourceRender, DependentLaunchOnlyForTf32WorkListsAfterAPrePass) {
  ProblemKey key;
  key.precision = Precision::TF32;
  key.m = key.n = key.k = 4096;
  key.structure_a = Structure::Lower, key.structure_b = Structure::Lower, key.fill = Fill::Lower;
  ProblemKey dense = key;
  dense.structure_a = dense.structure_b = Structure::General, dense.fill = Fill::Full;
  auto pdl = [](const KernelConfig& c, const ProblemKey& k) {
    const std::string source = render_kernel(c, specialization_of(k)).source;
    const bool on = source.find("PDL = 1;") != std::string::npos;
    EXPECT_NE(source.find(on ? "PDL = 1;" : "PDL = 0;"), std::string::npos) << c.name();
    EXPECT_EQ(make_launch_plan(c, k, {132, 0}).main_dependent, on) << c.name();
    return on;
  };
  const KernelConfig planes_b = KernelConfig::parse("wgmma_tf32_128x256x32_c2_s4_a0_b1_m0_g8_rs_swap");
  EXPECT_TRUE(pdl(planes_b, key));
  EXPECT_FALSE(pdl(planes_b, dense));  // no work list
  EXPECT_FALSE(pdl(KernelConfig::parse("wgmma_tf32_128x256x32_c2_s4_a0_b1_m0_g8_rs_swap_rb"), key));  // no pre-pass
  ProblemKey x3 = key;
  x3.precision = Precision::TF32x3;
  EXPECT_FALSE(pdl(KernelConfig::parse("wgmma_tf32x3_128x128x32_c2_s3_a32_b1_m0_g8_rs_swap"), x3));
  int on = 0;
  for (const KernelConfig& c : tuning_candidates(key)) on += c.family() == KernelFamily::Wgmma && pdl(c, key);
  EXPECT_GT(on, 0);
}

// A family renders only the specialization fields it reads: a plane-fed wgmma kernel gets a
// symmetric operand as a dense copy and the SIMT transposed-copy flags are the SIMT family's,
// so these pairs render one kernel (and KernelCache loads one module for them), while a field
// the family reads changes the source.
TEST(SourceRender, SpecializationsAFamilyIgnoresRenderOneKernel) {
  const KernelConfig c = KernelConfig::parse("wgmma_tf32x3_128x128x32_c2_s3_a32_b1_m0_g8");
  KernelSpecialization plain;
  KernelSpecialization flagged = plain;
  flagged.a_symmetric = Triangle::Lower, flagged.b_symmetric = Triangle::Upper;
  flagged.a_aligned_copy = true;
  const RenderedKernel a = render_kernel(c, plain), b = render_kernel(c, flagged);
  EXPECT_EQ(a.kernel_name, b.kernel_name);
  EXPECT_TRUE(a.source == b.source);
  KernelSpecialization filled = plain;  // a fill is the kernel's to apply
  filled.fill = Triangle::Lower;
  EXPECT_TRUE(render_kernel(c, filled).source != a.source);
}

// The template hash covers the family's template and its support kernels' (the pre-pass, the
// split-K reduction, the edge strips), not the prologue: a change to any of those templates
// changes it, a change of config or specialization does not.
TEST(SourceRender, TemplateHashCoversTheTemplatesNotThePrologue) {
  const RenderedKernel a = render_kernel(KernelConfig{}, KernelSpecialization{});
  const RenderedKernel b = render_kernel(default_config(ProblemKey{}), KernelSpecialization{Op::T, Op::T, 1, 1, 1});
  EXPECT_EQ(a.template_hash.size(), 32u);
  EXPECT_EQ(a.template_hash, b.template_hash);
  EXPECT_NE(a.source, b.source);
  EXPECT_EQ(a.template_hash, family_template_hash(TemplateStore::active(), KernelFamily::Simt));
  const std::string simt = TemplateStore::active().expand_includes(template_path(KernelFamily::Simt));
  EXPECT_NE(a.template_hash, hash_hex(simt));
  // Each support template of each family moves its hash.
  for (KernelFamily family : kKernelFamilies) {
    const std::string base = family_template_hash(TemplateStore::active(), family);
    for (std::string_view support : family_rules(family).support_template_paths()) {
      const TemplateStore edited =
          testing::templates_with_edit("source_render", support, [](std::string text) { return text + "\n// an edit\n"; });
      EXPECT_NE(family_template_hash(edited, family), base) << to_string(family) << " " << support;
      EXPECT_EQ(legacy_template_hash(edited, family), legacy_template_hash(TemplateStore::active(), family));
    }
  }
}

TEST(SourceRender, EveryKernelNameIsUniqueAndAnIdentifier) {
  ProblemKey key;
  key.m = key.n = key.k = 4096;
  std::set<std::string> names;
  for (const KernelConfig& c : candidate_space(key)) {
    if (c.split_k != 1) continue;  // split variants share their tile's kernel (SplitK tests)
    const std::string name = render_kernel(c, KernelSpecialization{}).kernel_name;
    EXPECT_TRUE(names.insert(name).second) << name;
    for (char ch : name) EXPECT_TRUE(std::isalnum(static_cast<unsigned char>(ch)) || ch == '_') << name;
  }
}

TEST(SourceRender, RejectsInvalidConfigsAndSpecializations) {
  KernelConfig bad;
  bad.simt().thread_n = 16;  // 128x128 over 2x4 warps with 8x16 threads leaves 16 lanes idle
  try {
    render_kernel(bad, KernelSpecialization{});
    FAIL();
  } catch (const InvalidArgument& e) {
    EXPECT_TRUE(contains(e.what(), bad.name())) << e.what();
    EXPECT_TRUE(contains(e.what(), "32 lanes")) << e.what();
  }
  EXPECT_THROW(render_kernel(KernelConfig{}, KernelSpecialization{Op::N, Op::N, 2, 4, 4}), InvalidArgument);
}

TEST(SourceRender, TemplatePathPerFamily) { EXPECT_EQ(template_path(KernelFamily::Simt), "fp32/simt_gemm.cu"); }

}  // namespace
}  // namespace jitgemm
