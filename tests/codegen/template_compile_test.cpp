// The kernel template through NVRTC for sm_90a: the representative sample of every
// transpose and vector-width code path compiles with no spills and no stack; with
// JITGEMM_FULL_SWEEP=1, every candidate of every distinct specialization does.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <mutex>
#include <thread>

#include "codegen/candidate_space.hpp"
#include "codegen/source_render.hpp"
#include "compile/compiler.hpp"
#include "compile_all.hpp"

namespace jitgemm {
namespace {

ProblemKey key_for(const KernelSpecialization& s) {
  ProblemKey key;
  key.m = key.n = key.k = 4096;  // the largest candidate space; smaller problems get subsets
  key.trans_a = s.trans_a, key.trans_b = s.trans_b;
  key.vec_a = s.vec_a, key.vec_b = s.vec_b, key.vec_c = s.vec_c;
  return key;
}

using testing::compile_all;
using testing::CompileResult;
using testing::render_all;

void expect_clean(const std::vector<CompileResult>& results) { testing::expect_clean(results, 255); }

std::string summary(const std::vector<CompileResult>& results) {
  double total = 0, worst = 0;
  int max_regs = 0;
  for (const CompileResult& r : results) {
    total += r.compile_ms, worst = std::max(worst, r.compile_ms);
    max_regs = std::max(max_regs, r.resources.registers);
  }
  return fmt::format("{} kernels, {:.0f} ms per compile on average, {:.0f} ms the slowest, at most {} registers",
                     results.size(), results.empty() ? 0.0 : total / results.size(), worst, max_regs);
}

// 4 transposes x {all 16-byte, all scalar}: between them every loader path (transposing,
// 16-byte, 4-byte) of A and of B and both epilogues.
class SampleCompiles : public ::testing::TestWithParam<KernelSpecialization> {};

TEST_P(SampleCompiles, NoSpillsNoStack) {
  const KernelSpecialization spec = GetParam();
  const auto results = compile_all(render_all(representative_sample(key_for(spec)), spec), 1);
  expect_clean(results);
  std::cout << spec.suffix() << ": " << summary(results) << "\n";
  for (const CompileResult& r : results) std::cout << "  " << r.name << ": " << r.resources.to_string() << "\n";
}

std::string spec_name(const ::testing::TestParamInfo<KernelSpecialization>& info) { return info.param.suffix(); }

INSTANTIATE_TEST_SUITE_P(EveryCodePath, SampleCompiles,
                         ::testing::Values(KernelSpecialization{Op::N, Op::N, 4, 4, 4},
                                           KernelSpecialization{Op::N, Op::T, 4, 4, 4},
                                           KernelSpecialization{Op::T, Op::N, 4, 4, 4},
                                           KernelSpecialization{Op::T, Op::T, 4, 4, 4},
                                           KernelSpecialization{Op::N, Op::N, 1, 1, 1},
                                           KernelSpecialization{Op::N, Op::T, 1, 1, 1},
                                           KernelSpecialization{Op::T, Op::N, 1, 1, 1},
                                           KernelSpecialization{Op::T, Op::T, 1, 1, 1}),
                         spec_name);

// Every specialization that yields different code: the vector width of an operand read
// through the transposing loader (A stored M x K, B stored N x K) changes nothing.
std::vector<KernelSpecialization> distinct_specializations() {
  std::vector<KernelSpecialization> out;
  for (Op ta : {Op::N, Op::T})
    for (Op tb : {Op::N, Op::T})
      for (int va : {4, 1})
        for (int vb : {4, 1})
          for (int vc : {4, 1}) {
            if ((ta == Op::N && va == 1) || (tb == Op::T && vb == 1)) continue;
            out.push_back({ta, tb, va, vb, vc});
          }
  return out;
}

class FullSweep : public ::testing::TestWithParam<KernelSpecialization> {};

TEST_P(FullSweep, EveryCandidateCompilesWithoutSpills) {
  const char* flag = std::getenv("JITGEMM_FULL_SWEEP");
  if (flag == nullptr || std::string(flag) != "1")
    GTEST_SKIP() << "compiles all " << candidate_space(key_for(GetParam())).size()
                 << " candidates of this specialization (minutes); set JITGEMM_FULL_SWEEP=1 to run it";
  const KernelSpecialization spec = GetParam();
  const auto results = compile_all(render_all(candidate_space(key_for(spec)), spec),
                                   static_cast<int>(std::max(1u, std::thread::hardware_concurrency())));
  expect_clean(results);
  std::cout << spec.suffix() << ": " << summary(results) << "\n";
}

INSTANTIATE_TEST_SUITE_P(DistinctSpecializations, FullSweep, ::testing::ValuesIn(distinct_specializations()),
                         spec_name);

// NVRTC gave different PTX for one SIMT source from compile to compile while the fragment reads
// were C++ float4 loads: NVVM sometimes split one of them into a partly used ld.shared.v4
// (".pragma used_bytes_mask") and an ld.shared.v2 (largeK's record kernel: 6 of 16 compiles), so
// a machine ran whichever its binary cache got first. Read through lds_v4 (inline PTX), every
// compile gives the same PTX with no split.
TEST(TemplateCompiles, SimtFragmentReadsAreTheSameWholeLoadsEveryCompile) {
  const std::filesystem::path dir = std::filesystem::path(::testing::TempDir()) / "jitgemm-simt-ptx";
  std::filesystem::remove_all(dir);
  ASSERT_EQ(setenv("JITGEMM_DUMP_DIR", dir.c_str(), 1), 0);
  const Compiler compiler(std::nullopt);  // reads JITGEMM_DUMP_DIR; no binary cache: every call compiles
  unsetenv("JITGEMM_DUMP_DIR");
  const RenderedKernel k = render_kernel(KernelConfig::parse("simt_fp32_64x256x16_w1x8_t8x8_s3_k1_g8"),
                                         KernelSpecialization{Op::N, Op::N, 4, 4, 4});
  std::string first;
  for (int i = 0; i < 8; ++i) {
    ASSERT_TRUE(compiler.compile(k.source, k.kernel_name, CompileOptions{}).ok);
    std::string ptx;
    for (const auto& entry : std::filesystem::directory_iterator(dir))
      if (entry.path().extension() == ".ptx") {
        std::ifstream in(entry.path(), std::ios::binary);
        ptx.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
      }
    ASSERT_FALSE(ptx.empty()) << "no PTX dumped in " << dir;
    EXPECT_EQ(ptx.find("used_bytes_mask"), std::string::npos) << "compile " << i << ": a split fragment read";
    EXPECT_EQ(ptx.find("ld.shared.v2"), std::string::npos) << "compile " << i << ": a split fragment read";
    if (i == 0) first = ptx;
    EXPECT_TRUE(ptx == first) << "compile " << i << " gave other PTX than compile 0";
  }
  std::filesystem::remove_all(dir);
}

TEST(TemplateCompiles, OnItsOwnWithTheDefaults) {
  // Kernel development: the template without a generated prologue uses its own defaults.
  const std::string unit = TemplateStore::active().expand_includes(template_path(KernelFamily::Simt));
  const CompileOutcome out = Compiler(std::nullopt).compile(unit, "simt_gemm_fp32", CompileOptions{});
  ASSERT_TRUE(out.ok) << out.log;
  EXPECT_FALSE(out.kernel.resources.spills()) << out.kernel.resources.to_string();
}

TEST(TemplateCompiles, TheEdgeStripsKernel) {
  // fp32/edge_strips.cu, beside the SIMT kernel of an EDGE_STRIPS specialization: one kernel for
  // every op (the layout is in its arguments), its chains in registers.
  const std::string unit = TemplateStore::active().expand_includes("fp32/edge_strips.cu");
  const CompileOutcome out = Compiler(std::nullopt).compile(unit, "edge_strips", CompileOptions{});
  ASSERT_TRUE(out.ok) << out.log;
  EXPECT_FALSE(out.kernel.resources.spills()) << out.kernel.resources.to_string();
  EXPECT_LE(out.kernel.resources.registers, 64) << out.kernel.resources.to_string();
}

}  // namespace
}  // namespace jitgemm
