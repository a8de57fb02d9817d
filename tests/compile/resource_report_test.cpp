// parse_ptxas_log on fixture logs (several formats) and on real NVRTC 13 output.
#include "compile/resource_report.hpp"

#include <gtest/gtest.h>

#include "compile/compile_options.hpp"
#include "compile/nvrtc_program.hpp"
#include "compile/test_kernels.hpp"

namespace jitgemm {
namespace {

// NVRTC 13 format: two kernels and a non-inlined device function, one kernel spilling.
constexpr const char* kTwoKernels = R"(ptxas info    : 0 bytes gmem
ptxas info    : Function properties for _Z6helperPf
ptxas         .     16 bytes stack frame, 4 bytes spill stores, 4 bytes spill loads
ptxas info    : Compiling entry function 'gemm_a' for 'sm_90a'
ptxas info    : Function properties for gemm_a
ptxas         .     672 bytes stack frame, 784 bytes spill stores, 952 bytes spill loads
ptxas info    : Used 24 registers, used 1 barriers, 672 bytes cumulative stack size, 4096 bytes smem
ptxas info    : Compile time = 86.507 ms
ptxas info    : Compiling entry function 'gemm_b' for 'sm_90a'
ptxas info    : Function properties for gemm_b
ptxas         .     0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
ptxas info    : Used 168 registers, used 0 barriers
ptxas info    : Compile time = 1.651 ms
)";

// Older ptxas format: cmem banks listed, no barrier count.
constexpr const char* kOldFormat = R"(ptxas info    : Compiling entry function 'k' for 'sm_80'
ptxas info    : Function properties for k
    8 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
ptxas info    : Used 40 registers, 16384 bytes smem, 380 bytes cmem[0], 8 bytes cmem[2]
)";

TEST(ResourceReport, ReadsTheSpillingKernelOfAFixture) {
  const ResourceUsage a = parse_ptxas_log(kTwoKernels, "gemm_a");
  ASSERT_TRUE(a.parsed);
  EXPECT_EQ(a.registers, 24);
  EXPECT_EQ(a.barriers, 1);
  EXPECT_EQ(a.shared_bytes, 4096);
  EXPECT_EQ(a.stack_bytes, 672);
  EXPECT_EQ(a.spill_store_bytes, 784);
  EXPECT_EQ(a.spill_load_bytes, 952);
  EXPECT_TRUE(a.spills());
  EXPECT_EQ(a.to_string(), "24 registers, 4096 B smem, 672 B stack, 784 B spill stores, 952 B spill loads");
}

TEST(ResourceReport, KeepsKernelsApart) {
  const ResourceUsage b = parse_ptxas_log(kTwoKernels, "gemm_b");
  ASSERT_TRUE(b.parsed);
  EXPECT_EQ(b.registers, 168);
  EXPECT_EQ(b.shared_bytes, 0);
  EXPECT_EQ(b.stack_bytes, 0);
  EXPECT_FALSE(b.spills());
  EXPECT_EQ(b.to_string(), "168 registers, 0 B smem, 0 B stack, no spills");
}

TEST(ResourceReport, ReadsTheOlderFormatWithConstantBanks) {
  const ResourceUsage k = parse_ptxas_log(kOldFormat, "k");
  ASSERT_TRUE(k.parsed);
  EXPECT_EQ(k.registers, 40);
  EXPECT_EQ(k.shared_bytes, 16384);
  EXPECT_EQ(k.const_bytes, 388);
  EXPECT_EQ(k.stack_bytes, 8);
}

TEST(ResourceReport, AbsentKernelIsNotParsed) {
  EXPECT_FALSE(parse_ptxas_log(kTwoKernels, "gemm").parsed);  // a prefix of a name is not a match
  EXPECT_FALSE(parse_ptxas_log("", "gemm_a").parsed);
  EXPECT_EQ(parse_ptxas_log("garbage\nUsed registers\n", "x").registers, -1);
}

std::string compile_log(const char* source, const char* name, int max_registers) {
  NvrtcProgram program(source, std::string(name) + ".cu");
  program.add_name_expression(name);
  CompileOptions options;
  options.max_registers = max_registers;
  EXPECT_TRUE(program.compile(options.to_strings())) << program.log();
  return program.log();
}

TEST(ResourceReport, ReadsRealNvrtcOutputWithoutSpills) {
  const std::string log = compile_log(test_kernels::kTf32MmaProbe, "tf32_mma_probe", 0);
  const ResourceUsage r = parse_ptxas_log(log, "tf32_mma_probe");
  ASSERT_TRUE(r.parsed) << log;
  EXPECT_GT(r.registers, 0);
  EXPECT_LE(r.registers, 255);
  EXPECT_EQ(r.shared_bytes, (16 * 8 + 8 * 8) * 4) << log;
  EXPECT_FALSE(r.spills()) << log;
}

TEST(ResourceReport, ReadsRealNvrtcOutputWithSpills) {
  const std::string log = compile_log(test_kernels::kSpills, "spill_probe", 24);
  const ResourceUsage r = parse_ptxas_log(log, "spill_probe");
  ASSERT_TRUE(r.parsed) << log;
  EXPECT_LE(r.registers, 24) << log;
  EXPECT_TRUE(r.spills()) << log;
  EXPECT_GT(r.spill_store_bytes, 0);
  EXPECT_GT(r.spill_load_bytes, 0);
  EXPECT_GT(r.stack_bytes, 0);
}

}  // namespace
}  // namespace jitgemm
