// tf32/mma_sync_gemm.cu through NVRTC for sm_90a: the representative sample of both mma.sync
// families, for every transpose with all-16-byte and all-4-byte accesses (between them every
// loader path, K-major and MN-major, and both epilogues), compiles with no spills, no stack
// and within the register cap; with JITGEMM_FULL_SWEEP=1 every candidate does, for every
// specialization.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <thread>

#include "codegen/candidate_space.hpp"
#include "codegen/mma_sync_family.hpp"
#include "codegen/source_render.hpp"
#include "compile/compiler.hpp"
#include "compile_all.hpp"

namespace jitgemm {
namespace {

// __launch_bounds__(THREADS, 1) with at most 256 threads: ptxas may use every register a
// thread can address, and a spill is the failure that matters.
constexpr int kRegisterCap = 255;

using testing::compile_all;
using testing::CompileResult;
using testing::expect_clean;

struct MmaCompileCase {
  Precision precision;
  KernelSpecialization spec;
};

ProblemKey key_for(Precision p) {
  ProblemKey key;
  key.m = key.n = 4096, key.k = 8192;  // every tile and, with the long K, every split
  key.precision = p;
  return key;
}

std::vector<RenderedKernel> render_all(const std::vector<KernelConfig>& configs, const KernelSpecialization& spec) {
  std::vector<RenderedKernel> kernels;
  for (KernelConfig c : configs) {
    c.split_k = 1;  // a launch parameter: one kernel per tile
    const RenderedKernel r = render_kernel(c, spec);
    if (std::none_of(kernels.begin(), kernels.end(), [&](const RenderedKernel& k) { return k.kernel_name == r.kernel_name; }))
      kernels.push_back(r);
  }
  return kernels;
}

void print(const std::vector<CompileResult>& results) {
  for (const CompileResult& r : results)
    std::cout << fmt::format("  {}: {} ({:.0f} ms)\n", r.name, r.resources.to_string(), r.compile_ms);
}

std::vector<MmaCompileCase> every_code_path() {
  std::vector<MmaCompileCase> cases;
  for (Precision p : {Precision::TF32x3, Precision::TF32})
    for (int vec : {4, 1})
      for (Op ta : {Op::N, Op::T})
        for (Op tb : {Op::N, Op::T}) cases.push_back({p, {ta, tb, vec, vec, vec}});
  return cases;
}

std::string case_name(const ::testing::TestParamInfo<MmaCompileCase>& info) {
  return std::string(to_string(info.param.precision)) + "_" + info.param.spec.suffix();
}

class MmaSampleCompiles : public ::testing::TestWithParam<MmaCompileCase> {};

TEST_P(MmaSampleCompiles, NoSpillsNoStackWithinTheCap) {
  const auto results =
      compile_all(render_all(mma_representative_sample(key_for(GetParam().precision)), GetParam().spec), 1);
  expect_clean(results, kRegisterCap);
  print(results);
}

INSTANTIATE_TEST_SUITE_P(EveryCodePath, MmaSampleCompiles, ::testing::ValuesIn(every_code_path()), case_name);

class MmaFullSweep : public ::testing::TestWithParam<MmaCompileCase> {};

TEST_P(MmaFullSweep, EveryCandidateCompilesWithoutSpills) {
  const ProblemKey key = key_for(GetParam().precision);
  const char* flag = std::getenv("JITGEMM_FULL_SWEEP");
  if (flag == nullptr || std::string(flag) != "1")
    GTEST_SKIP() << "compiles all " << render_all(mma_candidate_space(key), GetParam().spec).size()
                 << " mma.sync kernels of this specialization (minutes); set JITGEMM_FULL_SWEEP=1 to run it";
  const auto results = compile_all(render_all(mma_candidate_space(key), GetParam().spec),
                                   static_cast<int>(std::max(1u, std::thread::hardware_concurrency())));
  expect_clean(results, kRegisterCap);
  print(results);
}

INSTANTIATE_TEST_SUITE_P(EveryCodePath, MmaFullSweep, ::testing::ValuesIn(every_code_path()), case_name);

TEST(MmaTemplateCompiles, OnItsOwnWithTheDefaults) {
  // Kernel development: the template without a generated prologue uses its own defaults.
  const std::string unit = TemplateStore::active().expand_includes("tf32/mma_sync_gemm.cu");
  const CompileOutcome out = Compiler(std::nullopt).compile(unit, "mma_sync_gemm_tf32x3", CompileOptions{});
  ASSERT_TRUE(out.ok) << out.log;
  EXPECT_FALSE(out.kernel.resources.spills()) << out.kernel.resources.to_string();
}

}  // namespace
}  // namespace jitgemm
