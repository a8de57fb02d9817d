// KernelCache on the GPU: (config, specialization) pairs that render one kernel share one loaded
// module (a plane-fed wgmma kernel never sees a symmetric or transposed-copy flag), and a pair
// that renders another kernel loads its own.
#include <gtest/gtest.h>

#include "codegen/kernel_config.hpp"
#include "codegen/template_store.hpp"
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

}  // namespace
}  // namespace jitgemm::testing
