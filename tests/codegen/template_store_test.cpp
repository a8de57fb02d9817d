// TemplateStore: the embedded templates, a template directory, #include expansion.
#include "codegen/template_store.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>

#include "codegen/candidate_space.hpp"
#include "codegen/source_render.hpp"
#include "common/hash.hpp"
#include "jitgemm/error.hpp"
#include "support/test_support.hpp"

namespace jitgemm {
namespace {

namespace fs = std::filesystem;

size_t count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t pos = text.find(what); pos != std::string::npos; pos = text.find(what, pos + 1)) ++n;
  return n;
}

void write(const fs::path& path, const std::string& text) {
  fs::create_directories(path.parent_path());
  std::ofstream(path) << text;
}

TEST(TemplateStore, EmbedsTheKernelTemplates) {
  const TemplateStore& store = TemplateStore::embedded();
  EXPECT_EQ(store.origin(), "embedded");
  EXPECT_TRUE(store.contains("fp32/simt_gemm.cu"));
  EXPECT_TRUE(store.contains("common/cp_async.cuh"));
  EXPECT_NE(store.text("fp32/simt_gemm.cu").find("KERNEL_NAME"), std::string::npos);
}

TEST(TemplateStore, EmbeddedMatchesTheSourceTree) {
  const TemplateStore disk = TemplateStore::from_directory(fs::path(JITGEMM_SOURCE_DIR) / "kernel_templates");
  for (const char* path : {"fp32/simt_gemm.cu", "common/cp_async.cuh", "common/address.cuh"})
    EXPECT_EQ(disk.text(path), TemplateStore::embedded().text(path)) << path << ": rebuild to re-embed";
}

TEST(TemplateStore, ExpandsIncludesOnceAndKeepsNoIncludeOrPragmaOnce) {
  const std::string unit = TemplateStore::embedded().expand_includes("fp32/simt_gemm.cu");
  EXPECT_EQ(unit.find("#include"), std::string::npos);
  EXPECT_EQ(unit.find("#pragma once"), std::string::npos);
  EXPECT_EQ(count(unit, "void cp_async_commit()"), 1u);
  EXPECT_EQ(count(unit, "const float* add_rows("), 1u);
  EXPECT_TRUE(unit.starts_with("#line 1 \"fp32/simt_gemm.cu\"\n")) << unit.substr(0, 80);
  EXPECT_NE(unit.find("#line 1 \"common/cp_async.cuh\""), std::string::npos);
}

TEST(TemplateStore, MissingTemplateNamesThePath) {
  try {
    TemplateStore::embedded().text("fp32/nope.cu");
    FAIL();
  } catch (const InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find("fp32/nope.cu"), std::string::npos) << e.what();
  }
}

TEST(TemplateStore, DirectoryWithNestedAndRepeatedIncludes) {
  const fs::path root = testing::temp_dir("template-store");
  write(root / "common/a.cuh", "#pragma once\nint a_value();\n");
  write(root / "common/b.cuh", "#pragma once\n  #  include \"common/a.cuh\"\nint b_value();\n");
  write(root / "k/main.cu", "#include \"common/b.cuh\"\n#include \"common/a.cuh\"\n#include <cuda_fp16.h>\nbody\n");
  write(root / "k/notes.txt", "not a template\n");
  const TemplateStore store = TemplateStore::from_directory(root);
  EXPECT_EQ(store.origin(), root.string());
  EXPECT_FALSE(store.contains("k/notes.txt"));
  const std::string unit = store.expand_includes("k/main.cu");
  EXPECT_EQ(count(unit, "int a_value();"), 1u);
  EXPECT_EQ(count(unit, "int b_value();"), 1u);
  EXPECT_LT(unit.find("int a_value();"), unit.find("int b_value();"));
  EXPECT_NE(unit.find("#include <cuda_fp16.h>"), std::string::npos);  // angle includes stay
  EXPECT_NE(unit.find("#line 2 \"k/main.cu\""), std::string::npos) << unit;  // after b.cuh
  EXPECT_NE(unit.find("#line 3 \"common/b.cuh\""), std::string::npos) << unit;  // after a.cuh
  EXPECT_NE(unit.find("body"), std::string::npos);
}

TEST(TemplateStore, UnknownIncludeNamesTheIncludingFileAndLine) {
  const fs::path root = testing::temp_dir("template-store-missing");
  write(root / "k.cu", "// first\n#include \"common/missing.cuh\"\n");
  const TemplateStore store = TemplateStore::from_directory(root);
  try {
    store.expand_includes("k.cu");
    FAIL();
  } catch (const InvalidArgument& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("k.cu:2"), std::string::npos) << what;
    EXPECT_NE(what.find("common/missing.cuh"), std::string::npos) << what;
  }
}

TEST(TemplateStore, IncludeCycleTerminates) {
  const fs::path root = testing::temp_dir("template-store-cycle");
  write(root / "x.cuh", "#include \"y.cuh\"\nint x;\n");
  write(root / "y.cuh", "#include \"x.cuh\"\nint y;\n");
  const std::string unit = TemplateStore::from_directory(root).expand_includes("x.cuh");
  EXPECT_EQ(count(unit, "int x;"), 1u);
  EXPECT_EQ(count(unit, "int y;"), 1u);
}

TEST(TemplateStore, MissingDirectoryIsAnInvalidArgument) {
  EXPECT_THROW(TemplateStore::from_directory("/nonexistent/jitgemm/templates"), InvalidArgument);
}

// The template hash a record's environment is compared with comes from the store, without
// rendering a kernel: it must be the hash render_kernel gives every kernel of the family.
TEST(TemplateStore, TemplateHashIsWhatRenderKernelRecordsForEveryFamily) {
  const TemplateStore& store = TemplateStore::embedded();
  std::map<KernelFamily, KernelConfig> one_of_each;
  for (Precision p : {Precision::FP32, Precision::TF32x3, Precision::TF32})
    for (int64_t size : {64, 1000, 4096}) {
      ProblemKey key;
      key.m = key.n = key.k = size;
      key.precision = p;
      for (const KernelConfig& c : tuning_sample(key)) one_of_each.emplace(c.family(), c);
    }
  ASSERT_EQ(one_of_each.size(), std::size(kKernelFamilies));
  for (const auto& [family, config] : one_of_each) {
    const std::string hash = family_template_hash(store, family);
    EXPECT_EQ(hash.size(), 32u);
    EXPECT_EQ(render_kernel(config, KernelSpecialization{}, store).template_hash, hash) << config.name();
    // The family's template alone is the hash of records stamped before session 45.
    EXPECT_EQ(legacy_template_hash(store, family), store.template_hash(template_path(family)));
    EXPECT_NE(legacy_template_hash(store, family), hash);
  }
  EXPECT_THROW(store.template_hash("no/such.cu"), InvalidArgument);
}

// joined_hash: the first template as template_hash has it, each further one behind a "// ----"
// line naming it (the records' hashes depend on this form); the same value when asked again
// (memoized), and a missing template throws every time.
TEST(TemplateStore, JoinedHashIsTheTemplatesInOrderEachNamed) {
  const TemplateStore& store = TemplateStore::embedded();
  const std::string_view one[] = {"fp32/simt_gemm.cu"};
  EXPECT_EQ(store.joined_hash(one), store.template_hash("fp32/simt_gemm.cu"));
  const std::string_view two[] = {"fp32/simt_gemm.cu", "fp32/split_k_reduce.cu"};
  const std::string expected = hash_hex(store.expand_includes("fp32/simt_gemm.cu") + "\n// ---- fp32/split_k_reduce.cu\n" +
                                        store.expand_includes("fp32/split_k_reduce.cu"));
  EXPECT_EQ(store.joined_hash(two), expected);
  EXPECT_EQ(store.joined_hash(two), expected);
  const std::string_view swapped[] = {"fp32/split_k_reduce.cu", "fp32/simt_gemm.cu"};
  EXPECT_NE(store.joined_hash(swapped), expected);
  const std::string_view missing[] = {"fp32/simt_gemm.cu", "no/such.cu"};
  EXPECT_THROW(store.joined_hash(missing), InvalidArgument);
  EXPECT_THROW(store.joined_hash(missing), InvalidArgument);
}

}  // namespace
}  // namespace jitgemm
