// compile_module: a source that does not compile is a CompileError naming the kernel and
// the source and carrying the NVRTC log; one that compiles is loaded with its kernel.
#include "exec/compiled_module.hpp"

#include <gtest/gtest.h>

#include "cuda/context.hpp"
#include "jitgemm/error.hpp"
#include "support/test_support.hpp"

namespace jitgemm {
namespace {

constexpr const char* kBroken = R"(extern "C" __global__ void broken(float* out) { out[0] = undeclared_value; })";
constexpr const char* kScale = R"(extern "C" __global__ void scale(float* out, float s) { out[threadIdx.x] *= s; })";

TEST(CompiledModule, CompileFailureNamesTheKernelAndSourceAndCarriesTheLog) {
  const Compiler compiler(std::nullopt);
  try {
    compile_module(compiler, kBroken, "broken", CompileOptions{}, "support/broken.cu");
    FAIL() << "expected CompileError";
  } catch (const CompileError& e) {
    EXPECT_STREQ(e.what(), "NVRTC failed to compile kernel broken of support/broken.cu");
    EXPECT_NE(e.log().find("undeclared_value"), std::string::npos) << e.log();
  }
  try {
    compile_module(compiler, kBroken, "broken", CompileOptions{});
    FAIL() << "expected CompileError";
  } catch (const CompileError& e) {
    EXPECT_STREQ(e.what(), "NVRTC failed to compile kernel broken");
  }
}

TEST(CompiledModule, LoadsTheCompiledKernel) {
  JITGEMM_REQUIRE_GPU();
  cuda::PrimaryContext context(0);
  context.make_current();
  const Compiler compiler(std::nullopt);
  const CompiledModule compiled = compile_module(compiler, kScale, "scale", CompileOptions{});
  EXPECT_TRUE(compiled.module);
  EXPECT_EQ(compiled.module.label(), "scale");
  EXPECT_NE(compiled.function.handle, nullptr);
}

}  // namespace
}  // namespace jitgemm
