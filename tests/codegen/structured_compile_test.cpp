// Structured products compile in every family: the work-list walk and the fill epilogue
// (WORK_LIST = 1, FILL = 1 or 2) of the SIMT, mma.sync and wgmma templates, on a sample of
// each mode's candidates for lowertri-like keys (both operands triangular, a fill), with no
// spills and within the register caps the unstructured kernels keep; the wgmma kernels that
// read both triangular operands raw and mask them; and those that read a symmetric operand in
// registers from its stored triangle.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <iostream>
#include <string_view>
#include <tuple>
#include <vector>

#include "codegen/candidate_space.hpp"
#include "codegen/mma_sync_family.hpp"
#include "codegen/source_render.hpp"
#include "compile_all.hpp"
#include "problem/operand_structure.hpp"

namespace jitgemm {
namespace {

using testing::compile_all;
using testing::CompileResult;

ProblemKey structured_key(Precision p, Fill fill, Op trans_a) {
  ProblemKey key;
  key.m = key.n = key.k = 4096;
  key.precision = p;
  key.trans_a = trans_a;
  key.structure_a = Structure::Lower, key.structure_b = Structure::UpperUnit, key.fill = fill;
  return key;
}

class StructuredCompiles : public ::testing::TestWithParam<Precision> {};

TEST_P(StructuredCompiles, WorkListAndFillInEveryFamily) {
  std::vector<RenderedKernel> kernels;
  for (auto [fill, trans_a] : {std::pair{Fill::Lower, Op::N}, std::pair{Fill::Upper, Op::T}}) {
    const ProblemKey key = structured_key(GetParam(), fill, trans_a);
    const KernelSpecialization spec = specialization_of(key);
    ASSERT_TRUE(spec.work_list);
    std::vector<KernelConfig> configs = tuning_sample(key);
    if (configs.size() > 6) configs.resize(6);  // the paths, not every tile: CI compiles these on 2 cores
    if (GetParam() != Precision::FP32) configs.push_back(mma_representative_sample(key).front());
    configs.push_back(untuned_config(key));
    // Both triangular operands read raw and masked by the kernel (tf32/operand_triangle.cuh): A
    // in registers with B transformed, and swapped with B' = op(A) rounded in shared memory.
    if (GetParam() != Precision::FP32 && trans_a == Op::N) {
      const bool x3 = GetParam() == Precision::TF32x3;
      for (std::string_view name : x3 ? std::vector<std::string_view>{"wgmma_tf32x3_128x96x32_c2_s3_a32_b1_m0_g8_rst_tw",
                                                                        "wgmma_tf32x3_128x96x32_c2_s5_a32_b1_m0_g8_rs_swap_rb"}
                                      : std::vector<std::string_view>{"wgmma_tf32_128x192x32_c2_s3_a0_b1_m0_g8_rs_tw",
                                                                        "wgmma_tf32_128x256x32_c2_s4_a0_b1_m0_g8_rs_swap_rb"}) {
        const KernelConfig c = KernelConfig::parse(name);
        const RenderedKernel k = render_kernel(c, spec);
        // The prologue's line (the template's defaults follow it).
        const size_t at = k.source.find("constexpr int A_KEEP = ");
        const std::string line = k.source.substr(at, k.source.find('\n', at) - at);
        EXPECT_EQ(line.find("KEEP = 0"), std::string::npos) << k.kernel_name << ": " << line;
        kernels.push_back(k);
      }
    }
    for (const KernelConfig& c : configs) {
      const RenderedKernel k = render_kernel(c, spec);
      EXPECT_NE(k.source.find(fmt::format("constexpr int FILL = ")), std::string::npos) << k.kernel_name;
      EXPECT_NE(k.source.find("WORK_LIST = 1;"), std::string::npos) << k.kernel_name;
      kernels.push_back(k);
    }
  }
  const std::vector<CompileResult> results = compile_all(kernels, 1);
  for (const CompileResult& r : results) {
    SCOPED_TRACE(r.name);
    testing::expect_clean({r}, testing::entry_register_cap(r.threads));
    std::cout << fmt::format("  {}: {}\n", r.name, r.resources.to_string());
  }
}

INSTANTIATE_TEST_SUITE_P(AllModes, StructuredCompiles,
                         ::testing::Values(Precision::FP32, Precision::TF32x3, Precision::TF32),
                         [](const auto& info) { return std::string(to_string(info.param)); });

// A symmetric A' in registers read from its stored triangle (A_SYM): symmetric_both with A
// lower-stored (A' = op(A)), and swapped with B upper-stored (A' = op(B)^T), in both tensor-core
// modes, B' from the pre-pass and transformed in the kernel, blocks of 32 and of 64.
TEST(StructuredCompiles, SymmetricOperandInRegistersReadFromItsTriangle) {
  std::vector<RenderedKernel> kernels;
  for (auto [precision, name, swap] :
       {std::tuple{Precision::TF32, "wgmma_tf32_128x256x32_c2_s4_a0_b1_m0_g8_rs", false},
        std::tuple{Precision::TF32, "wgmma_tf32_128x256x32_c2_s4_a0_b1_m0_g8_rs_swap", true},
        std::tuple{Precision::TF32x3, "wgmma_tf32x3_128x128x32_c2_s3_a32_b1_m0_g8_rst_tw", false},
        std::tuple{Precision::TF32x3, "wgmma_tf32x3_128x128x32_c2_s3_a32_b1_m0_g8_rs_swap", true},
        // Blocks of 64 over two stages of 32, each stage from its own side of the diagonal.
        std::tuple{Precision::TF32x3, "wgmma_tf32x3_128x128x32_c2_s4_a64_b1_m0_g8_rst", false}}) {
    ProblemKey key;
    key.m = key.n = key.k = 4096;
    key.precision = precision;
    key.trans_b = Op::N;  // B stored K x N: MN-major, what B transformed reads
    (swap ? key.structure_b : key.structure_a) = swap ? Structure::SymmetricUpper : Structure::Symmetric;
    const RenderedKernel k = render_kernel(KernelConfig::parse(name), specialization_of(key));
    EXPECT_NE(k.source.find(fmt::format("constexpr int A_SYM = {};", swap ? 2 : 1)), std::string::npos) << k.kernel_name;
    EXPECT_TRUE(k.kernel_name.ends_with(swap ? "_sau" : "_sal")) << k.kernel_name;
    kernels.push_back(k);
  }
  for (const CompileResult& r : compile_all(kernels, 1)) {
    SCOPED_TRACE(r.name);
    testing::expect_clean({r}, testing::entry_register_cap(r.threads));
    std::cout << fmt::format("  {}: {}\n", r.name, r.resources.to_string());
  }
}

}  // namespace
}  // namespace jitgemm
