// family_checks.hpp — rules more than one family applies: the families that launch one CTA
// per tile and slice K along gridDim.y (SIMT and mma.sync), and the resource checks against
// StaticLimits.
#pragma once

#include <string>

#include "codegen/kernel_family.hpp"

namespace jitgemm {

// Empty when split_k is in 1..kMaxSplitK (the slices are a launch parameter: any count).
std::string split_k_problem(const KernelConfig& c);
// Threads, shared memory and the register estimate of `rules` against `limits`, in that order.
std::string resource_problem(const KernelFamilyRules& rules, const KernelConfig& c, const StaticLimits& limits);
// The config a split-K family compiles: the K split is a launch parameter (gridDim.y), so
// configs that differ only in split_k share one kernel.
KernelConfig compiled_config(KernelConfig c);

// SIMT and mma.sync: one CTA per output tile, split_k slices of K along gridDim.y (added by
// fp32/split_k_reduce.cu), operands read in place in any layout. The kernel is specialized for
// the problem's transposes and vector widths; the split is a launch parameter.
class SplitKFamilyRules : public KernelFamilyRules {
 public:
  std::string kernel_name(const KernelConfig& c, const KernelSpecialization& s) const override {
    return "jitgemm_" + compiled_config(c).name() + "_" + s.suffix();
  }
  bool runs_in_place(const KernelConfig&, const ProblemKey&) const override { return true; }
  // The tuned tiles with the split re-derived: the split is what keeps the accuracy contract,
  // and it depends on K and the output size.
  std::optional<KernelConfig> adapt(const KernelConfig& tuned, const ProblemKey& key) const override;
  // ceil(M/block_m) * ceil(N/block_n) CTAs along x, split_k slices along y.
  LaunchGeometry geometry(const KernelConfig& c, int64_t m, int64_t n, int64_t k, int sm_count) const override;
};

}  // namespace jitgemm
