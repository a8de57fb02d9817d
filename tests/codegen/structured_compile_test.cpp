// Structured products compile in every family: the work-list walk and the fill epilogue
// (WORK_LIST = 1, FILL = 1 or 2) of the SIMT, mma.sync and wgmma templates, on a sample of
// each mode's candidates for lowertri-like keys (both operands triangular, a fill), with no
// spills and within the register caps the unstructured kernels keep.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <iostream>

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

}  // namespace
}  // namespace jitgemm
