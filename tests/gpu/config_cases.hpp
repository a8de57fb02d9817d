// Launching chosen configs directly (not through the serving policy) on fresh data and
// checking them against float64: what the config sweeps of the GPU tests share.
#pragma once

#include <fmt/format.h>

#include <algorithm>
#include <string>
#include <vector>

#include "codegen/candidate_space.hpp"
#include "codegen/kernel_family.hpp"
#include "codegen/mma_sync_family.hpp"
#include "codegen/split_k_policy.hpp"
#include "exec/gemm_launch.hpp"
#include "gpu_fixture.hpp"
#include "launch/kernel_cache.hpp"
#include "problem/problem_key.hpp"

namespace jitgemm::testing {

// Every code path of a problem's mode: the CI sample (tuning_sample), the untuned default,
// in the tensor-core modes an mma.sync config with and without a K split (the reduction
// applies the fill), and in fp32 the SIMT tiles with the K split served on small outputs
// (the split that keeps the fp32 contract: shorter FMA chains, the slices added in double),
// plus a split of 4 where that split is 1 (so the reduction runs on every problem).
inline std::vector<KernelConfig> code_path_configs(const ProblemKey& key) {
  std::vector<KernelConfig> configs = tuning_sample(key);
  configs.push_back(untuned_config(key));
  if (key.precision != Precision::FP32) {
    KernelConfig mma = mma_representative_sample(key).front();
    configs.push_back(mma);
    mma.split_k = 4;
    configs.push_back(mma);
  }
  for (KernelConfig& c : configs)
    if (c.family() == KernelFamily::Simt) c.split_k = default_split_k(key, c);
  if (key.precision == Precision::FP32 && configs.front().split_k == 1) {
    KernelConfig split = configs.front();
    split.split_k = 4;
    configs.push_back(split);
  }
  return configs;
}

// Compiles (once, through the kernel cache), launches and checks configs one at a time.
class ConfigRunner {
 public:
  explicit ConfigRunner(GpuEnvironment& env)
      : env_(env),
        kernels_(env.compiler(), TemplateStore::active()),
        launcher_(env.compiler(), TemplateStore::active(), env.info().sm_count) {}

  // Runs `config` on fresh data of `p` with a NaN-filled workspace; nullopt when the launcher
  // would refuse it (alignment).
  std::optional<CaseResult> run(const KernelConfig& config, const GemmProblem& p, uint64_t seed, RandomKind kind) {
    const ProblemKey key = make_problem_key(p);
    if (!rules_of(config).runs_in_place(config, key)) return std::nullopt;
    const LoadedKernel& kernel = kernels_.get(config, specialization_of(key));
    cuda::DeviceBuffer workspace(std::max<size_t>(4, launcher_.workspace_bytes(config, p)));
    // NaN everywhere: a kernel that reads what no pre-pass wrote (e.g. planes past a skip band)
    // fails instead of reading a fresh allocation's zeros.
    workspace.fill_bytes_async(0xFF, env_.stream());
    return env_.run_case(p, seed, kind, [&](const float* a, const float* b, float* c) {
      launcher_.launch(kernel.function, config, p, reinterpret_cast<CUdeviceptr>(a), reinterpret_cast<CUdeviceptr>(b),
                       reinterpret_cast<CUdeviceptr>(c), workspace.get(), env_.stream());
    });
  }

 private:
  GpuEnvironment& env_;
  KernelCache kernels_;
  GemmLauncher launcher_;
};

// The failure message of a config case.
inline std::string describe_failure(const KernelConfig& config, const GemmProblem& p, const CaseResult& r) {
  return fmt::format(
      "{} on {}: error {:.3g} (cuBLAS {:.3g}, tolerance {:.3g}), {} unwritten, {} NaN/Inf mismatches, {} padding "
      "writes",
      config.name(), p.to_string(), r.ours.rel_error, r.cublas_error, r.tolerance, r.ours.unwritten, r.ours.mismatched,
      r.ours.padding_written);
}

}  // namespace jitgemm::testing
