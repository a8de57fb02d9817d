// NvrtcProgram and CompileOptions: real NVRTC compiles for sm_90a (no GPU needed).
#include "compile/nvrtc_program.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <type_traits>

#include "compile/compile_options.hpp"
#include "compile/test_kernels.hpp"
#include "jitgemm/error.hpp"

namespace jitgemm {
namespace {

static_assert(!std::is_copy_constructible_v<NvrtcProgram> && !std::is_copy_assignable_v<NvrtcProgram>);
static_assert(std::is_nothrow_move_constructible_v<NvrtcProgram> && std::is_nothrow_move_assignable_v<NvrtcProgram>);
static_assert(std::is_nothrow_destructible_v<NvrtcProgram>);

bool contains(const std::vector<std::string>& v, const std::string& s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}

TEST(CompileOptions, DefaultsTargetSm90aCubinWithVerbosePtxas) {
  const std::vector<std::string> flags = CompileOptions{}.to_strings();
  ASSERT_GE(flags.size(), 3u);
  EXPECT_EQ(flags[0], "--gpu-architecture=sm_90a");
  EXPECT_TRUE(contains(flags, "-std=c++17"));
  EXPECT_TRUE(contains(flags, "--ptxas-options=-v"));
  EXPECT_FALSE(contains(flags, "-lineinfo"));
  EXPECT_FALSE(contains(flags, "--use_fast_math"));
  if (CompileOptions::nvrtc_has_no_cache_option()) {
    EXPECT_TRUE(contains(flags, "--no-cache"));
  }
}

TEST(CompileOptions, SpellsEveryField) {
  CompileOptions o;
  o.max_registers = 128;
  o.fast_math = true;
  o.line_info = true;
  o.ptxas_verbose = false;
  o.nvrtc_cache = true;
  o.defines = {"BLOCK_M=128", "USE_TMA"};
  o.include_dirs = {"/opt/include"};
  o.extra = {"--extra-device-vectorization"};
  const std::vector<std::string> flags = o.to_strings();
  for (const char* f : {"--maxrregcount=128", "--use_fast_math", "-lineinfo", "-DBLOCK_M=128", "-DUSE_TMA",
                        "--include-path=/opt/include", "--extra-device-vectorization"})
    EXPECT_TRUE(contains(flags, f)) << f;
  EXPECT_FALSE(contains(flags, "--ptxas-options=-v"));
  EXPECT_FALSE(contains(flags, "--no-cache"));
}

TEST(CompileOptions, RejectsVirtualArchAndBadRegisterCap) {
  CompileOptions o;
  o.arch = "compute_90a";
  try {
    o.to_strings();
    FAIL() << "expected InvalidArgument";
  } catch (const InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find("arch=compute_90a"), std::string::npos) << e.what();
  }
  o.arch = "sm_90a";
  o.max_registers = 300;
  EXPECT_THROW(o.to_strings(), InvalidArgument);
}

TEST(NvrtcProgram, CompilesInlinePtxTensorCoreKernelToCubin) {
  NvrtcProgram program(test_kernels::kTf32MmaProbe, "tf32_mma_probe.cu");
  program.add_name_expression("tf32_mma_probe");
  ASSERT_TRUE(program.compile(CompileOptions{}.to_strings())) << program.log();
  const std::vector<char> cubin = program.cubin();
  ASSERT_GT(cubin.size(), 4u);
  EXPECT_EQ(std::string(cubin.data(), 4), "\x7f" "ELF");
  const std::string ptx = program.ptx();
  EXPECT_NE(ptx.find("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32"), std::string::npos);
  EXPECT_NE(ptx.find("cp.async.cg.shared.global"), std::string::npos);
  EXPECT_NE(ptx.find(".target sm_90a"), std::string::npos);
  EXPECT_EQ(program.lowered_name("tf32_mma_probe"), "tf32_mma_probe");
  EXPECT_NE(program.log().find("Compiling entry function 'tf32_mma_probe' for 'sm_90a'"), std::string::npos)
      << program.log();
}

// Where a driver is installed, NVRTC 13 can answer a repeated compile from the driver's
// cache with an empty log; the default options must keep the ptxas report coming.
TEST(NvrtcProgram, RepeatedCompilesStillReportResources) {
  for (int attempt = 0; attempt < 3; ++attempt) {
    NvrtcProgram program(test_kernels::kScaleWithSmem, "scale.cu");
    ASSERT_TRUE(program.compile(CompileOptions{}.to_strings())) << program.log();
    EXPECT_NE(program.log().find("Used "), std::string::npos) << "attempt " << attempt << ": " << program.log();
  }
}

TEST(NvrtcProgram, LowersTemplateNameExpressions) {
  NvrtcProgram program(test_kernels::kScaleWithSmem, "scale.cu");
  program.add_name_expression("probe::add_constant<3>");
  ASSERT_TRUE(program.compile(CompileOptions{}.to_strings())) << program.log();
  const std::string lowered = program.lowered_name("probe::add_constant<3>");
  EXPECT_NE(lowered.find("add_constant"), std::string::npos) << lowered;
  EXPECT_TRUE(lowered.starts_with("_Z")) << lowered;
}

TEST(NvrtcProgram, SyntaxErrorIsAResultWithTheLog) {
  NvrtcProgram program(test_kernels::kSyntaxError, "broken.cu");
  EXPECT_FALSE(program.compile(CompileOptions{}.to_strings()));
  const std::string log = program.log();
  EXPECT_NE(log.find("broken.cu"), std::string::npos) << log;
  EXPECT_NE(log.find("error"), std::string::npos) << log;
  EXPECT_THROW(program.cubin(), CompileError);
}

TEST(NvrtcProgram, MissingKernelNameFailsTheCompile) {
  NvrtcProgram program(test_kernels::kScaleWithSmem, "scale.cu");
  program.add_name_expression("no_such_kernel");
  EXPECT_FALSE(program.compile(CompileOptions{}.to_strings()));
  EXPECT_NE(program.log().find("no_such_kernel"), std::string::npos) << program.log();
}

TEST(NvrtcProgram, InvalidOptionThrowsCompileErrorNamingTheCall) {
  NvrtcProgram program(test_kernels::kScaleWithSmem, "scale.cu");
  try {
    program.compile({"--gpu-architecture=sm_90a", "--no-such-option"});
    FAIL() << "expected CompileError";
  } catch (const CompileError& e) {
    EXPECT_NE(std::string(e.what()).find("nvrtcCompileProgram(scale.cu"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("--no-such-option"), std::string::npos) << e.what();
  }
}

TEST(NvrtcProgram, InMemoryHeadersAreIncluded) {
  const std::vector<SourceHeader> headers = {{"tile.cuh", "#define TILE 64\n"}};
  NvrtcProgram program("#include \"tile.cuh\"\nextern \"C\" __global__ void k(float* x) { x[0] = TILE; }\n",
                       "with_header.cu", headers);
  EXPECT_TRUE(program.compile(CompileOptions{}.to_strings())) << program.log();
}

TEST(NvrtcProgram, MoveEmptiesTheSource) {
  NvrtcProgram a(test_kernels::kScaleWithSmem, "scale.cu");
  NvrtcProgram b(std::move(a));
  EXPECT_EQ(a.get(), nullptr);  // NOLINT(bugprone-use-after-move): documented moved-from state
  EXPECT_NE(b.get(), nullptr);
  EXPECT_THROW(a.compile({}), CompileError);
  a = std::move(b);
  EXPECT_NE(a.get(), nullptr);
  EXPECT_EQ(b.get(), nullptr);  // NOLINT(bugprone-use-after-move)
}

}  // namespace
}  // namespace jitgemm
