// compile_candidates: what is a candidate's outcome (an unrenderable config, a compile
// error, spills) and what aborts the list (anything the compiler throws: a broken NVRTC).
// The compiler is faked where an error path must be forced; one test compiles for real.
#include "tune/candidate_compiler.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "codegen/candidate_space.hpp"
#include "codegen/template_store.hpp"
#include "jitgemm/error.hpp"
#include "support/test_support.hpp"

namespace jitgemm {
namespace {

namespace fs = std::filesystem;

const char* const kBrokenNvrtc =
    "nvrtcCompileProgram(gemm.cu, options: --gpu-architecture=sm_90a) failed: NVRTC_ERROR_BUILTIN_OPERATION_FAILURE";

// `count` configs that render distinct kernels (no split-K siblings).
std::vector<KernelConfig> distinct_kernels(size_t count) {
  ProblemKey key;
  key.m = key.n = key.k = 4096;
  std::vector<KernelConfig> out;
  for (const KernelConfig& c : candidate_space(key))
    if (c.split_k == 1 && out.size() < count) out.push_back(c);
  EXPECT_EQ(out.size(), count) << "the candidate space has fewer distinct kernels than the test needs";
  return out;
}

// A config that codegen refuses to render (InvalidArgument), as in source_render_test.
KernelConfig unrenderable_config() {
  KernelConfig bad;
  bad.simt().thread_n = 16;  // 128x128 over 2x4 warps with 8x16 threads leaves 16 lanes idle
  return bad;
}

CompileOutcome compiled_ok(const RenderedKernel& kernel) {
  CompileOutcome out;
  out.ok = true;
  out.kernel.kernel_name = kernel.kernel_name;
  return out;
}

TEST(CandidateCompiler, AnEnvironmentFailureAbortsWithItsMessage) {
  const std::vector<KernelConfig> configs = distinct_kernels(6);
  std::atomic<int> calls{0};
  const CompileKernel broken = [&](const RenderedKernel&) -> CompileOutcome {
    ++calls;
    throw CompileError(kBrokenNvrtc, "");
  };
  try {
    compile_candidates(configs, KernelSpecialization{}, broken, TemplateStore::active(), 1);
    FAIL() << "a throwing compiler became " << configs.size() << " candidate outcomes";
  } catch (const CompileError& e) {
    EXPECT_EQ(std::string(e.what()), kBrokenNvrtc);
  }
  EXPECT_EQ(calls, 1) << "kernels were still handed out after the compiler threw";
}

TEST(CandidateCompiler, AfterAFailureNoThreadStartsAnotherKernel) {
  const std::vector<KernelConfig> configs = distinct_kernels(12);
  std::atomic<int> calls{0};
  const CompileKernel broken = [&](const RenderedKernel&) -> CompileOutcome {
    ++calls;
    throw CompileError(kBrokenNvrtc, "");
  };
  EXPECT_THROW(compile_candidates(configs, KernelSpecialization{}, broken, TemplateStore::active(), 3), CompileError);
  EXPECT_GE(calls, 1);
  EXPECT_LE(calls, 3) << "each of the 3 threads may start one kernel before it sees the failure, no more";
}

TEST(CandidateCompiler, AThrowingProgressCallbackAbortsToo) {
  const std::vector<KernelConfig> configs = distinct_kernels(4);
  const CompileProgress disk_full = [](size_t, size_t, const CompiledCandidate&) {
    throw Error("progress log: write(/tmp/log) failed: No space left on device");
  };
  EXPECT_THROW(compile_candidates(configs, KernelSpecialization{}, CompileKernel(compiled_ok),
                                  TemplateStore::active(), 2, disk_full),
               Error);
}

TEST(CandidateCompiler, AnUnrenderableConfigIsAnOutcome) {
  std::vector<KernelConfig> configs = distinct_kernels(2);
  configs.insert(configs.begin() + 1, unrenderable_config());
  std::atomic<int> calls{0};
  const CompileKernel counting = [&](const RenderedKernel& kernel) {
    ++calls;
    return compiled_ok(kernel);
  };
  const auto results = compile_candidates(configs, KernelSpecialization{}, counting, TemplateStore::active(), 2);
  ASSERT_EQ(results.size(), 3u);
  EXPECT_TRUE(results[0].outcome.ok);
  EXPECT_FALSE(results[1].outcome.ok);
  EXPECT_EQ(results[1].config, configs[1]);
  EXPECT_NE(results[1].outcome.log.find("is not valid"), std::string::npos) << results[1].outcome.log;
  EXPECT_TRUE(results[2].outcome.ok);
  EXPECT_EQ(calls, 2) << "the unrenderable config must not reach the compiler";
}

TEST(CandidateCompiler, ACompileErrorIsAnOutcomeSharedBySplitKSiblings) {
  KernelConfig tile = distinct_kernels(1).front();
  KernelConfig split = tile;
  split.split_k = 2;  // launch parameter only: the same kernel
  const CompileKernel failing = [](const RenderedKernel& kernel) {
    CompileOutcome out;
    out.log = kernel.kernel_name + ".cu(12): error: too much shared data";
    return out;
  };
  const auto results =
      compile_candidates({tile, split}, KernelSpecialization{}, failing, TemplateStore::active(), 1);
  ASSERT_EQ(results.size(), 2u);
  for (const CompiledCandidate& c : results) {
    EXPECT_FALSE(c.outcome.ok);
    EXPECT_FALSE(c.usable());
    EXPECT_NE(c.outcome.log.find("too much shared data"), std::string::npos) << c.outcome.log;
  }
}

// The real Compiler treats a binary cache it cannot write as a warning: the kernel still
// compiles, so a bad cache directory is neither an abort nor a compile failure.
TEST(CandidateCompiler, AnUnwritableCacheStillCompilesForReal) {
  const fs::path file = fs::path(testing::temp_dir("candidate-cache-is-a-file")) / "cache";
  std::ofstream(file) << "not a directory";
  const Compiler compiler(file);
  const auto results = compile_candidates({KernelConfig{}}, KernelSpecialization{}, compiler, TemplateStore::active(), 1);
  ASSERT_EQ(results.size(), 1u);
  EXPECT_TRUE(results[0].outcome.ok) << results[0].outcome.log;
  EXPECT_FALSE(results[0].outcome.kernel.cubin.empty());
  EXPECT_TRUE(fs::is_regular_file(file));
}

}  // namespace
}  // namespace jitgemm
