// Compiler: NVRTC behind the binary cache, compile errors as data, threads, dumps.
#include "compile/compiler.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <thread>

#include "compile/test_kernels.hpp"
#include "support/test_support.hpp"

namespace jitgemm {
namespace {

namespace fs = std::filesystem;

TEST(Compiler, NvrtcVersionIsReadable) {
  EXPECT_GE(nvrtc_version(), 12000);
  const int v = nvrtc_version();
  EXPECT_EQ(nvrtc_version_string(), std::to_string(v / 1000) + "." + std::to_string(v % 1000 / 10));
}

TEST(Compiler, CompilesWithoutACache) {
  const Compiler compiler(std::nullopt);
  const CompileOutcome out = compiler.compile(test_kernels::kTf32MmaProbe, "tf32_mma_probe", CompileOptions{});
  ASSERT_TRUE(out.ok) << out.log;
  EXPECT_FALSE(out.kernel.from_cache);
  EXPECT_EQ(out.kernel.kernel_name, "tf32_mma_probe");
  EXPECT_EQ(out.kernel.lowered_name, "tf32_mma_probe");
  EXPECT_EQ(std::string(out.kernel.cubin.data(), 4), "\x7f" "ELF");
  EXPECT_TRUE(out.kernel.resources.parsed) << out.log;
  EXPECT_GT(out.kernel.compile_ms, 0.0);
  EXPECT_EQ(out.kernel.log, out.log);
}

TEST(Compiler, TemplateKernelsAreLoweredAndReported) {
  const Compiler compiler(std::nullopt);
  const CompileOutcome out = compiler.compile(test_kernels::kScaleWithSmem, "probe::add_constant<7>", {});
  ASSERT_TRUE(out.ok) << out.log;
  EXPECT_TRUE(out.kernel.lowered_name.starts_with("_Z")) << out.kernel.lowered_name;
  EXPECT_TRUE(out.kernel.resources.parsed) << out.log;
}

TEST(Compiler, SyntaxErrorIsDataNotAnException) {
  const Compiler compiler(testing::temp_dir("compiler-error"));
  for (int attempt = 0; attempt < 2; ++attempt) {  // failures are not cached
    const CompileOutcome out = compiler.compile(test_kernels::kSyntaxError, "broken", {});
    EXPECT_FALSE(out.ok);
    EXPECT_NE(out.log.find("error"), std::string::npos) << out.log;
    EXPECT_NE(out.log.find("broken.cu"), std::string::npos) << out.log;
    EXPECT_TRUE(out.kernel.cubin.empty());
    EXPECT_FALSE(out.kernel.from_cache);
  }
}

TEST(Compiler, SecondCompileHitsTheCache) {
  const Compiler compiler(testing::temp_dir("compiler-cache"));
  const CompileOutcome first = compiler.compile(test_kernels::kTf32MmaProbe, "tf32_mma_probe", {});
  ASSERT_TRUE(first.ok) << first.log;
  EXPECT_FALSE(first.kernel.from_cache);
  const CompileOutcome second = compiler.compile(test_kernels::kTf32MmaProbe, "tf32_mma_probe", {});
  ASSERT_TRUE(second.ok);
  EXPECT_TRUE(second.kernel.from_cache);
  EXPECT_EQ(second.kernel.cubin, first.kernel.cubin);
  EXPECT_EQ(second.kernel.resources, first.kernel.resources);
  EXPECT_EQ(second.kernel.lowered_name, first.kernel.lowered_name);
  EXPECT_EQ(second.log, first.log);

  CompileOptions other;  // different options: a different entry
  other.max_registers = 64;
  EXPECT_FALSE(compiler.compile(test_kernels::kTf32MmaProbe, "tf32_mma_probe", other).kernel.from_cache);
}

TEST(Compiler, SurvivesACorruptedCacheEntry) {
  const Compiler compiler(testing::temp_dir("compiler-corrupt"));
  const CompileOutcome first = compiler.compile(test_kernels::kTf32MmaProbe, "tf32_mma_probe", {});
  ASSERT_TRUE(first.ok) << first.log;
  const fs::path entry =
      compiler.cache()->entry_path(Compiler::cache_key(test_kernels::kTf32MmaProbe, "tf32_mma_probe", {}));
  ASSERT_TRUE(fs::exists(entry));
  fs::resize_file(entry, fs::file_size(entry) / 3);

  ::testing::internal::CaptureStderr();
  const CompileOutcome again = compiler.compile(test_kernels::kTf32MmaProbe, "tf32_mma_probe", {});
  const std::string warning = ::testing::internal::GetCapturedStderr();
  ASSERT_TRUE(again.ok) << again.log;
  EXPECT_FALSE(again.kernel.from_cache);
  EXPECT_EQ(again.kernel.cubin, first.kernel.cubin);
  EXPECT_NE(warning.find("damaged"), std::string::npos) << warning;
  EXPECT_TRUE(compiler.compile(test_kernels::kTf32MmaProbe, "tf32_mma_probe", {}).kernel.from_cache);
}

TEST(Compiler, FourThreadsCompilingTheSameSourceAllSucceed) {
  const Compiler compiler(testing::temp_dir("compiler-threads"));
  std::vector<CompileOutcome> outcomes(4);
  std::vector<std::thread> threads;
  for (std::size_t i = 0; i < outcomes.size(); ++i)
    threads.emplace_back([&, i] {
      outcomes[i] = compiler.compile(test_kernels::kTf32MmaProbe, "tf32_mma_probe", {});
    });
  for (auto& t : threads) t.join();
  for (const CompileOutcome& out : outcomes) {
    ASSERT_TRUE(out.ok) << out.log;
    EXPECT_EQ(out.kernel.cubin, outcomes[0].kernel.cubin);
  }
  EXPECT_TRUE(compiler.compile(test_kernels::kTf32MmaProbe, "tf32_mma_probe", {}).kernel.from_cache);
}

TEST(Compiler, DumpDirReceivesSourcePtxAndLog) {
  const fs::path dump = testing::temp_dir("compiler-dump");
  ::setenv("JITGEMM_DUMP_DIR", dump.c_str(), 1);
  const Compiler compiler(std::nullopt);
  ::unsetenv("JITGEMM_DUMP_DIR");
  ASSERT_EQ(compiler.dump_dir(), dump);
  ASSERT_TRUE(compiler.compile(test_kernels::kTf32MmaProbe, "tf32_mma_probe", {}).ok);
  ASSERT_FALSE(compiler.compile(test_kernels::kSyntaxError, "broken", {}).ok);
  int cu = 0, ptx = 0, log = 0;
  for (const auto& entry : fs::directory_iterator(dump)) {
    cu += entry.path().extension() == ".cu";
    ptx += entry.path().extension() == ".ptx";
    log += entry.path().extension() == ".log";
  }
  EXPECT_EQ(cu, 2);
  EXPECT_EQ(log, 2);
  EXPECT_EQ(ptx, 1);  // only the kernel that compiled has PTX
}

}  // namespace
}  // namespace jitgemm
