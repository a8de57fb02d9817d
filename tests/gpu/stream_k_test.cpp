// The stream-K tail of the wgmma kernels (stream_k = 1, tf32/tile_schedule.cuh): the stream-K
// configs of the samples on shapes where every tile is cut between CTAs (fewer tiles than
// SMs) and where whole waves come first (more than two waves of tiles, a partial last one).
// Each result must meet the mode's contract and come out bit for bit the same when the
// launch is repeated (the partial sums are added in a fixed order).
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <vector>

#include "codegen/candidate_space.hpp"
#include "codegen/wgmma_family.hpp"
#include "exec/gemm_launch.hpp"
#include "gpu_fixture.hpp"
#include "launch/kernel_cache.hpp"
#include "problem/problem_key.hpp"

namespace jitgemm::testing {
namespace {

class StreamKTail : public ::testing::TestWithParam<Precision> {};

TEST_P(StreamKTail, MeetsTheContractAndRepeatsBitForBit) {
  JITGEMM_REQUIRE_GPU();
  GpuEnvironment& env = gpu();
  KernelCache kernels(env.compiler(), TemplateStore::active());
  const int sms = env.info().sm_count;
  GemmLauncher launcher(env.compiler(), TemplateStore::active(), sms);
  int cases = 0, with_whole_waves = 0;
  struct Shape {
    int64_t m, n, k;
    Op ta, tb;
  };
  // 4096^3: 1024 tiles of 128 x 128, the last 100 of them cut into 5 pieces on 132 SMs.
  for (const Shape& s : {Shape{1000, 777, 1000, Op::T, Op::N}, Shape{2000, 2600, 520, Op::N, Op::N},
                         Shape{2000, 2600, 520, Op::N, Op::T}, Shape{4096, 4096, 4096, Op::N, Op::N}}) {
    GemmProblem p;
    p.precision = GetParam();
    p.m = s.m, p.n = s.n, p.k = s.k, p.trans_a = s.ta, p.trans_b = s.tb;
    p.alpha = 1.5f;
    const ProblemKey key = make_problem_key(p);
    const KernelSpecialization spec = specialization_of(key);
    for (const KernelConfig& config : representative_sample(key)) {
      if (config.wgmma().schedule != TileSchedule::StreamK || !wgmma_runs_in_place(config, key)) continue;
      const LoadedKernel& kernel = kernels.get(config, spec);
      cuda::DeviceBuffer workspace(launcher.workspace_bytes(config, p));
      const int64_t tiles = ((p.m + config.block_m - 1) / config.block_m) * ((p.n + config.block_n - 1) / config.block_n);
      with_whole_waves += tiles > 2 * sms && tiles % sms != 0;
      const size_t c_bytes = sizeof(float) * static_cast<size_t>(p.m * p.effective_ldc());
      cuda::DeviceBuffer first(c_bytes), second(c_bytes);
      ++cases;
      const CaseResult r = env.run_case(p, 900 + cases, RandomKind::SignedNormal, [&](const float* a, const float* b,
                                                                                     float* c) {
        auto run = [&] {
          launcher.launch(kernel.function, config, p, reinterpret_cast<CUdeviceptr>(a), reinterpret_cast<CUdeviceptr>(b),
                          reinterpret_cast<CUdeviceptr>(c), workspace.get(), env.stream());
        };
        const CUdeviceptr out = reinterpret_cast<CUdeviceptr>(c);
        run();  // beta = 0: C is write-only, so the launch can be repeated
        JITGEMM_CU(cuda::driver().cuMemcpyDtoDAsync(first.get(), out, c_bytes, env.stream()), "C -> first");
        run();
        JITGEMM_CU(cuda::driver().cuMemcpyDtoDAsync(second.get(), out, c_bytes, env.stream()), "C -> second");
      });
      const std::string what = fmt::format("{} on {} ({} tiles, {} SMs)", config.name(), p.to_string(), tiles, sms);
      EXPECT_TRUE(r.ours.passes(r.tolerance))
          << fmt::format("{}: error {:.3g} (cuBLAS {:.3g}, tolerance {:.3g}), {} unwritten", what, r.ours.rel_error,
                         r.cublas_error, r.tolerance, r.ours.unwritten);
      JITGEMM_CU(cuda::driver().cuStreamSynchronize(env.stream()), "sync");
      const std::vector<unsigned> x = first.to_host_vector<unsigned>(c_bytes / 4),
                                  y = second.to_host_vector<unsigned>(c_bytes / 4);
      const auto diff = std::mismatch(x.begin(), x.end(), y.begin());
      EXPECT_TRUE(diff.first == x.end()) << what << ": a repeated launch differs at element " << (diff.first - x.begin());
    }
  }
  std::printf("[ info ] %s: %d stream-K cases, %d with whole waves before the split ones\n",
              std::string(to_string(GetParam())).c_str(), cases, with_whole_waves);
  EXPECT_GE(cases, 6);
  EXPECT_GE(with_whole_waves, 1);
}

INSTANTIATE_TEST_SUITE_P(BothModes, StreamKTail, ::testing::Values(Precision::TF32x3, Precision::TF32),
                         [](const auto& info) { return std::string(to_string(info.param)); });

}  // namespace
}  // namespace jitgemm::testing
