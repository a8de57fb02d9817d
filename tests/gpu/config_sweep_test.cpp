// Every config of the representative sample, for every op combination and both vector
// widths, launched directly (not through the serving policy) on odd shapes and checked
// against float64: the default heuristic alone would leave most tile shapes untested.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "codegen/candidate_space.hpp"
#include "exec/gemm_launch.hpp"
#include "gpu_fixture.hpp"
#include "launch/kernel_cache.hpp"
#include "problem/problem_key.hpp"

namespace jitgemm::testing {
namespace {

TEST(ConfigSweep, SampleConfigsAllOpsBothVectorWidths) {
  JITGEMM_REQUIRE_GPU();
  GpuEnvironment& env = gpu();
  KernelCache kernels(env.compiler(), TemplateStore::active());
  GemmLauncher launcher(env.compiler(), TemplateStore::active(), env.info().sm_count);
  int cases = 0;
  for (int ops = 0; ops < 4; ++ops)
    for (bool unaligned : {false, true})
      for (auto [m, n, k] : {std::tuple{1537, 127, 1000}, std::tuple{64, 1537, 77}}) {
        GemmProblem p;
        p.m = m, p.n = n, p.k = k;
        p.trans_a = (ops & 1) ? Op::T : Op::N;
        p.trans_b = (ops & 2) ? Op::T : Op::N;
        if (unaligned) {
          p.lda = p.effective_lda() + 1;
          p.ldb = p.effective_ldb() + 1;
          p.ldc = p.effective_ldc() + 1;
        } else {
          p.lda = (p.effective_lda() + 3) / 4 * 4;
          p.ldb = (p.effective_ldb() + 3) / 4 * 4;
          p.ldc = (p.effective_ldc() + 3) / 4 * 4;
        }
        p.alpha = -0.5f;
        p.beta = 0.25f;
        const ProblemKey key = make_problem_key(p);
        const KernelSpecialization spec = specialization_of(key);
        for (KernelConfig config : representative_sample(key))
          for (int split : {1, 4}) {
          config.split_k = split;
          ++cases;
          const LoadedKernel& kernel = kernels.get(config, spec);
          cuda::DeviceBuffer workspace(std::max<size_t>(4, launcher.workspace_bytes(config, p)));
          const CaseResult r = env.run_case(p, 40 + cases, RandomKind::SignedNormal,
                                            [&](const float* a, const float* b, float* c) {
                                              launcher.launch(kernel.function, config, p,
                                                              reinterpret_cast<CUdeviceptr>(a),
                                                              reinterpret_cast<CUdeviceptr>(b),
                                                              reinterpret_cast<CUdeviceptr>(c), workspace.get(),
                                                              env.stream());
                                            });
          // Indexing, predication and pipeline bugs give O(1) errors; plain sequential
          // accumulation over a K slice stays within sqrt(K) u. (Whether a config meets the
          // fp32 contract on a shape is the tuner's verification, not this test's.)
          const double bound = std::max(r.tolerance, std::sqrt(static_cast<double>(p.k)) * kUnitRoundoff);
          EXPECT_TRUE(r.ours.passes(bound))
              << fmt::format("{} on {} ({}): error {:.3g} bound {:.3g}, {} unwritten, {} mismatched",
                             config.name(), p.to_string(), spec.suffix(), r.ours.rel_error, bound,
                             r.ours.unwritten, r.ours.mismatched);
          }
      }
  std::printf("[ info ] %d config x problem cases\n", cases);
  EXPECT_GE(cases, 128);
}

}  // namespace
}  // namespace jitgemm::testing
