// The tf32 templates through NVRTC for sm_90a: the representative samples of both wgmma
// families and the eight pre-pass variants compile with no spills and no stack, the main
// kernel within the 168 registers that __launch_bounds__(384, 1) leaves at entry; with
// JITGEMM_FULL_SWEEP=1 every tf32x3 and tf32 candidate does too.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <thread>

#include "codegen/candidate_space.hpp"
#include "codegen/source_render.hpp"
#include "codegen/split_operand_render.hpp"
#include "problem/operand_structure.hpp"
#include "compile/compiler.hpp"
#include "compile/nvrtc_program.hpp"
#include "compile_all.hpp"

namespace jitgemm {
namespace {


using testing::compile_all;
using testing::CompileResult;
using testing::expect_clean;
using testing::render_all;

void print(const std::vector<CompileResult>& results) {
  for (const CompileResult& r : results)
    std::cout << fmt::format("  {}: {} ({:.0f} ms)\n", r.name, r.resources.to_string(), r.compile_ms);
}

ProblemKey key_for(Precision p, int64_t k) {
  ProblemKey key;
  key.m = key.n = 4096;
  key.k = k;
  key.precision = p;
  return key;
}

class WgmmaSampleCompiles : public ::testing::TestWithParam<Precision> {};

// At most the registers a thread gets at one CTA per SM (entry_register_cap of its threads).
void expect_clean_at_entry_cap(const std::vector<CompileResult>& results) {
  for (const CompileResult& r : results) {
    SCOPED_TRACE(r.name);
    expect_clean({r}, testing::entry_register_cap(r.threads));
  }
}

TEST_P(WgmmaSampleCompiles, NoSpillsNoStackEntryRegisters) {
  const auto results = compile_all(render_all(representative_sample(key_for(GetParam(), 4096))), 1);
  expect_clean_at_entry_cap(results);
  print(results);
}

INSTANTIATE_TEST_SUITE_P(BothModes, WgmmaSampleCompiles, ::testing::Values(Precision::TF32x3, Precision::TF32),
                         [](const auto& info) { return std::string(to_string(info.param)); });

// The sample renders for op N/N, where B is MN-major but A is not: the transform-warp configs
// again for A.T @ B, where both are (A in registers MN-major, and the swapped ones too).
TEST_P(WgmmaSampleCompiles, TransformWarpsWithBothOperandsMnMajor) {
  ProblemKey key = key_for(GetParam(), 4096);
  key.trans_a = Op::T;
  std::vector<KernelConfig> transforms;
  for (const KernelConfig& c : representative_sample(key))
    if (c.wgmma().b == WgmmaB::Transformed) transforms.push_back(c);
  ASSERT_EQ(transforms.size(), 4u);  // with the K-pieces one
  const auto results = compile_all(render_all(transforms, KernelSpecialization{Op::T, Op::N, 4, 4, 4}), 1);
  expect_clean_at_entry_cap(results);
  print(results);
}

// A in registers read MN-major (A.T @ B unswapped, or A @ B swapped: the kernel's A is then
// op(B)^T): the sample's register-A configs rendered so, whose finite split takes the branch
// (SPLIT_BRANCH, tf32/a_fragments.cuh): no wgmma of theirs may be serialized for it.
TEST_P(WgmmaSampleCompiles, RegisterAReadMnMajor) {
  ProblemKey key = key_for(GetParam(), 4096);
  key.trans_a = Op::T;
  std::vector<KernelConfig> mn_major;
  for (const KernelConfig& c : representative_sample(key))
    if (c.wgmma().a_in_registers() && !c.wgmma().swap_ab && c.wgmma().b != WgmmaB::Transformed) mn_major.push_back(c);
  ASSERT_GE(mn_major.size(), 2u);
  const auto results = compile_all(render_all(mn_major, KernelSpecialization{Op::T, Op::N, 4, 4, 4}), 1);
  for (const CompileResult& r : results) EXPECT_NE(r.name.find("_mn"), std::string::npos) << r.name;
  expect_clean_at_entry_cap(results);
  print(results);
}

TEST(SplitOperandCompiles, EveryVariantWithoutSpills) {
  std::vector<RenderedKernel> kernels;
  for (int planes : {0, 1, 2})
    for (bool transpose : {false, true})
      for (int vec : {1, 4}) kernels.push_back(render_split_operand(planes, transpose, vec));
  // Structured sources: symmetric ones read from either stored triangle, triangular ones
  // masked (with and without a unit diagonal), straight and transposed.
  for (int planes : {0, 1, 2})
    for (Structure s : {Structure::Symmetric, Structure::SymmetricUpper, Structure::Lower, Structure::Upper,
                        Structure::LowerUnit, Structure::UpperUnit})
      for (bool transpose : {false, true}) {
        if (transpose && (is_symmetric(s) || planes == 0)) continue;  // mirrored / raw copies read rows
        kernels.push_back(render_split_operand(planes, transpose, 4, s));
      }
  kernels.push_back(render_split_operand(2, false, 4, Structure::General, SplitPlanes::SmallOnly));
  // Planes in the main kernel's permuted K order (transposed sources, triangular ones too).
  for (int planes : {1, 2})
    for (Structure s : {Structure::General, Structure::Lower})
      kernels.push_back(render_split_operand(planes, true, 4, s, SplitPlanes::All, /*permute_k=*/true));
  const auto results = compile_all(kernels, 1);
  expect_clean(results, 255);
  print(results);
}

// Counts the lines of `ptx` that start (after indentation) with `opcode` followed by a space
// or a tab ("st.global.f32" does not count "st.global.f32x"...; "st.global.v4.f32" is its own).
int count_instructions(const std::string& ptx, const std::string& opcode) {
  int n = 0;
  for (size_t at = ptx.find(opcode); at != std::string::npos; at = ptx.find(opcode, at + 1)) {
    const size_t line = ptx.rfind('\n', at) + 1;
    const bool first_on_line = ptx.find_first_not_of(" \t", line) == at;
    const char after = at + opcode.size() < ptx.size() ? ptx[at + opcode.size()] : '\0';
    if (first_on_line && (after == ' ' || after == '\t')) ++n;
  }
  return n;
}

// The PTX of `config` rendered for `spec`: how many `opcode` instructions it holds.
int instructions_in(const char* config, const KernelSpecialization& spec, const std::string& opcode) {
  const RenderedKernel k = render_kernel(KernelConfig::parse(config), spec);
  NvrtcProgram program(k.source, k.kernel_name + ".cu");
  program.add_name_expression(k.kernel_name);
  EXPECT_TRUE(program.compile(CompileOptions{}.to_strings())) << program.log();
  return count_instructions(program.ptx(), opcode);
}

// tf32x3 pairs the rows of an unmasked MN-major A in registers (a_rows_paired of
// tf32/a_fragments.cuh): each k of a fragment step is one 8-byte shared load of two adjacent
// rows. A K-major A, tf32 mode and the stream-K tail keep the 4-byte loads of rows 8 apart.
TEST(WgmmaRegisterA, MnMajorRowsArePairedInTf32x3WithoutStreamK) {
  const KernelSpecialization tn{Op::T, Op::N, 4, 4, 4}, nn{Op::N, Op::N, 4, 4, 4};
  const std::string v2 = "ld.shared.v2.f32";
  // transA's record, swapped: its A' = B^T, B stored K x N (MN-major).
  EXPECT_GT(instructions_in("wgmma_tf32x3_128x128x32_c2_s4_a64_b1_m0_g8_rs_swap", nn, v2), 0);
  EXPECT_GT(instructions_in("wgmma_tf32x3_128x128x32_c2_s4_a64_b1_m0_g8_rs", tn, v2), 0);
  EXPECT_EQ(instructions_in("wgmma_tf32x3_128x128x32_c2_s4_a64_b1_m0_g8_rs", nn, v2), 0);  // K-major
  EXPECT_EQ(instructions_in("wgmma_tf32_128x256x32_c2_s4_a0_b1_m0_g4_rs_swap", nn, v2), 0);
  EXPECT_EQ(instructions_in("wgmma_tf32x3_128x192x32_c2_s3_a16_b1_m0_g8_rs_sk", tn, v2), 0);
}

// The aligned pre-pass writes its planes in 16-byte stores only. The compiler once split half
// of the transposing pass's float4 stores into four 4-byte ones (the pass then ran L2-bound at
// 2.4 TB/s on the H200, against 3.5 for the row pass): no 4-byte global store may come back.
// The 16-byte global stores of a pre-pass kernel's PTX, after checking that it has no narrower one.
int v4_stores_only(const RenderedKernel& k) {
  NvrtcProgram program(k.source, k.kernel_name + ".cu");
  program.add_name_expression(k.kernel_name);
  EXPECT_TRUE(program.compile(CompileOptions{}.to_strings())) << program.log();
  const std::string ptx = program.ptx();
  EXPECT_EQ(count_instructions(ptx, "st.global.f32"), 0);
  EXPECT_EQ(count_instructions(ptx, "st.global.v2.f32"), 0);
  return count_instructions(ptx, "st.global.v4.f32");
}

TEST(SplitOperandCompiles, AlignedVariantsStorePlanesIn16ByteVectors) {
  for (int planes : {0, 1, 2})
    for (bool transpose : {false, true}) {
      const RenderedKernel k = render_split_operand(planes, transpose, 4);
      SCOPED_TRACE(k.kernel_name);
      // Four float4 a thread for each plane (one plane for the raw copy).
      EXPECT_GE(v4_stores_only(k), 4 * std::max(planes, 1));
    }
  // The small plane alone: four float4 a thread, and nothing else stored.
  EXPECT_EQ(v4_stores_only(render_split_operand(2, false, 4, Structure::General, SplitPlanes::SmallOnly)), 4);
  // Permuted K blocks: the same 16-byte stores, gathered from the transposing tile.
  for (int planes : {1, 2})
    EXPECT_GE(v4_stores_only(render_split_operand(planes, true, 4, Structure::General, SplitPlanes::All, true)),
              4 * planes);
}

class WgmmaFullSweep : public ::testing::TestWithParam<Precision> {};

TEST_P(WgmmaFullSweep, EveryCandidateCompilesWithoutSpills) {
  // A long K gets the largest space (the two-level sum, tf32 blocks of 256 and 1024).
  const ProblemKey key = key_for(GetParam(), 16384);
  const char* flag = std::getenv("JITGEMM_FULL_SWEEP");
  if (flag == nullptr || std::string(flag) != "1")
    GTEST_SKIP() << "compiles all " << candidate_space(key).size() << " " << to_string(GetParam())
                 << " candidates (minutes); set JITGEMM_FULL_SWEEP=1 to run it";
  const auto results =
      compile_all(render_all(candidate_space(key)), static_cast<int>(std::max(1u, std::thread::hardware_concurrency())));
  expect_clean_at_entry_cap(results);
  print(results);
}

INSTANTIATE_TEST_SUITE_P(BothModes, WgmmaFullSweep, ::testing::Values(Precision::TF32x3, Precision::TF32),
                         [](const auto& info) { return std::string(to_string(info.param)); });

}  // namespace
}  // namespace jitgemm
