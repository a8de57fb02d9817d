// tf32x3 products whose pre-pass writes only the small plane (LaunchPlan::a_big_in_place /
// b_big_in_place): the main kernel reads the caller's K-major matrix as the big plane through a
// TFLOAT32 tensor map, whose copy rounds to nearest even, and the pre-pass split x as
// x - rne(x). If the two roundings ever differ (a driver or GPU that rounds the copy another
// way), big + small is x off by one TF32 unit wherever x lies halfway: A * I == A would then
// fail on the ties below, which random data meets too rarely to show.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <cstring>
#include <vector>

#include "codegen/kernel_config.hpp"
#include "cuda/device_buffer.hpp"
#include "exec/gemm_launch.hpp"
#include "gpu_fixture.hpp"
#include "launch/kernel_cache.hpp"
#include "problem/problem_key.hpp"

namespace jitgemm::testing {
namespace {

float from_bits(uint32_t bits) {
  float x;
  std::memcpy(&x, &bits, sizeof x);
  return x;
}
uint32_t to_bits(float x) {
  uint32_t bits;
  std::memcpy(&bits, &x, sizeof bits);
  return bits;
}

// Element i of A: mostly exact ties (the 13 bits a TF32 copy drops are 0x1000) with an even
// and an odd last kept bit, of both signs and many exponents; every 7th value off a tie (it
// rounds up either way). Each value's small part x - rne(x) is a single bit, so the product is
// exact.
float tie_value(int64_t i) {
  const uint32_t exponent = 100 + static_cast<uint32_t>(i % 50);      // 2^-27 .. 2^22
  const uint32_t kept = static_cast<uint32_t>((i * 2654435761u) >> 22) & 0x3ffu;  // 10 kept mantissa bits
  const uint32_t low = i % 7 == 6 ? 0x1800u : 0x1000u;
  const uint32_t sign = (i / 3) % 2 ? 0x80000000u : 0u;
  return from_bits(sign | exponent << 23 | kept << 13 | low);
}

TEST(BigPlaneInPlace, ACopyRoundedToNearestEvenPlusThePrePassSmallPlaneIsExact) {
  JITGEMM_REQUIRE_GPU();
  GpuEnvironment& env = gpu();
  KernelCache kernels(env.compiler(), TemplateStore::active());
  GemmLauncher launcher(env.compiler(), TemplateStore::active(), env.info().sm_count);
  constexpr int64_t kM = 300, kK = 256;  // C = A (M x K) times the K x K identity
  std::vector<float> a(kM * kK), identity(kK * kK, 0.0f);
  for (int64_t i = 0; i < kM * kK; ++i) a[i] = tie_value(i);
  for (int64_t i = 0; i < kK; ++i) identity[i * kK + i] = 1.0f;
  cuda::DeviceBuffer a_mem(4 * a.size()), b_mem(4 * identity.size()), c_mem(4 * kM * kK);
  a_mem.copy_from_host(a.data(), 4 * a.size());
  b_mem.copy_from_host(identity.data(), 4 * identity.size());
  // A with its rows unaligned (lda = K + 1, the same values): both planes from the pre-pass
  // (rna), in a workspace sized by workspace_bytes, which must hold the larger layout.
  constexpr int64_t kLdUnaligned = kK + 1;
  std::vector<float> a_unaligned(kM * kLdUnaligned, 0.0f);
  for (int64_t r = 0; r < kM; ++r)
    for (int64_t k = 0; k < kK; ++k) a_unaligned[r * kLdUnaligned + k] = a[r * kK + k];
  cuda::DeviceBuffer a_unaligned_mem(4 * a_unaligned.size());
  a_unaligned_mem.copy_from_host(a_unaligned.data(), 4 * a_unaligned.size());
  // NN: A's big plane in place; NT (the identity is its own transpose): both operands'.
  int checked = 0;
  for (bool aligned : {true, false})
    for (Op trans_b : {Op::N, Op::T})
      for (const char* name : {"wgmma_tf32x3_128x128x32_c2_s3_a32_b1_m0_g8", "wgmma_tf32x3_128x192x16_c2_s4_a32_b1_m0_g8"}) {
        GemmProblem p;
        p.m = kM, p.n = kK, p.k = kK, p.trans_b = trans_b, p.precision = Precision::TF32x3;
        if (!aligned) p.lda = kLdUnaligned;
        const CUdeviceptr a_ptr = aligned ? a_mem.get() : a_unaligned_mem.get();
        const KernelConfig config = KernelConfig::parse(name);
        const ProblemKey key = make_problem_key(p);
        const LoadedKernel& kernel = kernels.get(config, specialization_of(key));
        const LaunchPlan plan = launcher.plan(kernel.function, config, key);
        ASSERT_EQ(plan.a_big_in_place, aligned) << name;
        ASSERT_EQ(plan.b_big_in_place, trans_b == Op::T) << name;
        ASSERT_GE(launcher.workspace_bytes(config, p), plan.workspace.total_bytes) << name;
        cuda::DeviceBuffer workspace(launcher.workspace_bytes(config, p));
        workspace.fill_bytes_async(0xFF, env.stream());  // NaN: a plane read where nothing was written fails
        c_mem.fill_bytes_async(0xFF, env.stream());
        launcher.launch(kernel.function, config, p, a_ptr, b_mem.get(), c_mem.get(), workspace.get(), env.stream());
        std::vector<float> c(kM * kK);
        c_mem.copy_to_host(c.data(), 4 * c.size());
        int wrong = 0;
        for (int64_t i = 0; i < kM * kK; ++i)
          if (to_bits(c[i]) != to_bits(a[i]) && ++wrong <= 5)
            ADD_FAILURE() << fmt::format("{} {} lda {}: C[{}] = {:#010x}, A = {:#010x}", name, to_string(trans_b),
                                         p.effective_lda(), i, to_bits(c[i]), to_bits(a[i]));
        EXPECT_EQ(wrong, 0) << name << " " << to_string(trans_b);
        ++checked;
      }
  EXPECT_EQ(checked, 8);
}

}  // namespace
}  // namespace jitgemm::testing
