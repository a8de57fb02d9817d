// support_templates.hpp — where the support kernels' templates lie under kernel_templates/: the
// pre-pass of the tensor-core families, the split-K reduction and the SIMT edge strips. The
// families list them (KernelFamilyRules::support_template_paths, which their template hash
// covers), the launcher renders them, and the record refresh compares what they compile to.
#pragma once

#include <string_view>

namespace jitgemm {

inline constexpr std::string_view kSplitOperandTemplate = "tf32/split_operand.cu";
inline constexpr std::string_view kSplitKReduceTemplate = "fp32/split_k_reduce.cu";
inline constexpr std::string_view kEdgeStripsTemplate = "fp32/edge_strips.cu";

}  // namespace jitgemm
