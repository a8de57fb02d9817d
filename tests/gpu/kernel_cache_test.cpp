// KernelCache on the GPU: (config, specialization) pairs that render one kernel share one loaded
// module (a plane-fed wgmma kernel never sees a symmetric or transposed-copy flag), and a pair
// that renders another kernel loads its own; threads asking for new kernels at once each get the
// one module of each.
#include <gtest/gtest.h>

#include <string>
#include <thread>
#include <vector>

#include "codegen/kernel_config.hpp"
#include "codegen/template_store.hpp"
#include "compile/compiler.hpp"
#include "cuda/context.hpp"
#include "gpu_fixture.hpp"
#include "launch/kernel_cache.hpp"

namespace jitgemm::testing {
namespace {

TEST(KernelCacheModules, PairsThatRenderOneKernelShareItsModule) {
  JITGEMM_REQUIRE_GPU();
  GpuEnvironment& env = gpu();
  KernelCache kernels(env.compiler(), TemplateStore::active());
  const KernelConfig c = KernelConfig::parse("wgmma_tf32x3_128x128x32_c2_s3_a32_b1_m0_g8");
  KernelSpecialization plain;
  KernelSpecialization symmetric = plain;
  symmetric.a_symmetric = symmetric.b_symmetric = Triangle::Lower;
  KernelSpecialization filled = plain;
  filled.fill = Triangle::Lower;

  const LoadedKernel& first = kernels.get(c, plain);
  const LoadedKernel& shared = kernels.get(c, symmetric);
  EXPECT_EQ(&first, &shared);
  EXPECT_EQ(first.function.handle, shared.function.handle);
  EXPECT_EQ(kernels.size(), 1u);
  EXPECT_EQ(kernels.pairs(), 2u);

  const LoadedKernel& other = kernels.get(c, filled);
  EXPECT_NE(&other, &first);
  EXPECT_EQ(kernels.size(), 2u);
  EXPECT_EQ(kernels.pairs(), 3u);
  EXPECT_EQ(&kernels.get(c, symmetric), &first);  // a hit on the typed key
}

TEST(KernelCacheModules, ThreadsAskingAtOnceShareOneModulePerKernel) {
  JITGEMM_REQUIRE_GPU();
  const Compiler uncached(std::nullopt);  // every module a real NVRTC compile, so they overlap
  KernelCache kernels(uncached, TemplateStore::active());
  const KernelConfig c = KernelConfig::parse("wgmma_tf32x3_128x128x32_c2_s3_a32_b1_m0_g8");
  std::vector<KernelSpecialization> pairs(4);
  pairs[1].a_symmetric = pairs[1].b_symmetric = Triangle::Lower;  // renders pairs[0]'s kernel
  pairs[2].fill = Triangle::Lower;
  pairs[3].fill = Triangle::Upper;

  constexpr int kThreads = 8;
  std::vector<std::vector<const LoadedKernel*>> got(kThreads, std::vector<const LoadedKernel*>(pairs.size()));
  std::vector<std::string> errors(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] {
      try {
        cuda::PrimaryContext context(0);
        context.make_current();
        for (size_t i = 0; i < pairs.size(); ++i) {  // each thread in another order
          const size_t p = (i + t) % pairs.size();
          got[t][p] = &kernels.get(c, pairs[p]);
        }
      } catch (const std::exception& e) {
        errors[t] = e.what();
      }
    });
  for (auto& th : threads) th.join();
  for (int t = 0; t < kThreads; ++t) {
    ASSERT_EQ(errors[t], "") << "thread " << t;
    for (size_t p = 0; p < pairs.size(); ++p) EXPECT_EQ(got[t][p], got[0][p]) << "thread " << t << ", pair " << p;
  }
  EXPECT_EQ(got[0][0], got[0][1]);
  EXPECT_NE(got[0][2], got[0][0]);
  EXPECT_NE(got[0][3], got[0][2]);
  EXPECT_EQ(kernels.size(), 3u);
  EXPECT_EQ(kernels.pairs(), 4u);
}

}  // namespace
}  // namespace jitgemm::testing
