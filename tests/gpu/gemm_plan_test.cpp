// Runtime::plan and GemmPlan::run on the GPU: a plan computes what Runtime::gemm computes
// (the mode's contract against float64) for each kernel family, structured products, K
// pieces and operands at addresses the plan did not assume (served through Runtime::gemm's
// path); and one plan run from 8 threads at once, each on its own stream, gives every thread
// the bits a single run gives, while Runtime::gemm serves the same problem on other threads.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <cstring>
#include <thread>
#include <vector>

#include "cuda/context.hpp"
#include "cuda/device_buffer.hpp"
#include "cuda/driver_api.hpp"
#include "cuda/stream.hpp"
#include "gpu_fixture.hpp"
#include "jitgemm/error.hpp"
#include "jitgemm/runtime.hpp"

namespace jitgemm::testing {
namespace {

struct PlanCase {
  const char* what;
  GemmProblem problem;
};

GemmProblem make(int64_t m, int64_t n, int64_t k, Precision precision, Op ta = Op::N, Op tb = Op::N) {
  GemmProblem p;
  p.m = m, p.n = n, p.k = k, p.precision = precision, p.trans_a = ta, p.trans_b = tb;
  return p;
}

std::vector<PlanCase> plan_cases() {
  std::vector<PlanCase> cases;
  cases.push_back({"fp32 SIMT 64^3", make(64, 64, 64, Precision::FP32)});
  cases.push_back({"tf32x3 mma.sync 64^3", make(64, 64, 64, Precision::TF32x3)});
  GemmProblem wg = make(512, 384, 256, Precision::TF32x3, Op::T, Op::N);
  wg.alpha = -0.5f, wg.beta = 0.25f;
  cases.push_back({"tf32x3 wgmma, alpha and beta", wg});
  cases.push_back({"tf32 wgmma", make(256, 256, 512, Precision::TF32)});
  cases.push_back({"fp32 K pieces", make(128, 128, 65536, Precision::FP32)});
  cases.push_back({"tf32x3 K pieces", make(256, 256, 65536, Precision::TF32x3)});
  GemmProblem tri = make(384, 256, 384, Precision::TF32x3);
  tri.structure_a = Structure::Lower, tri.fill = Fill::Lower;
  tri.n = 384;
  cases.push_back({"tf32x3 lower A, lower fill", tri});
  GemmProblem sym = make(256, 256, 256, Precision::FP32);
  sym.structure_a = sym.structure_b = Structure::SymmetricUpper;
  cases.push_back({"fp32 symmetric upper-stored", sym});
  return cases;
}

TEST(GemmPlan, RunsEveryFamilyWithinTheContract) {
  JITGEMM_REQUIRE_GPU();
  Runtime runtime(isolated_options("gemm-plan"));
  uint64_t seed = 11;
  for (const PlanCase& c : plan_cases()) {
    SCOPED_TRACE(fmt::format("{}: {}", c.what, c.problem.to_string()));
    const GemmPlan plan = runtime.plan(c.problem);
    ASSERT_TRUE(plan);
    EXPECT_FALSE(plan.kernel().empty());
    for (int64_t offset : {0, 1}) {  // 1: 4-byte aligned operands, which the plan did not assume
      SCOPED_TRACE(fmt::format("base offset {} floats", offset));
      const CaseResult r = gpu().run_case(
          c.problem, ++seed, RandomKind::Uniform01,
          [&](const float* a, const float* b, float* out) { plan.run(a, b, out, gpu().stream()); }, offset);
      EXPECT_TRUE(r.ours.passes(r.tolerance)) << "error " << r.ours.rel_error << " tolerance " << r.tolerance << ", "
                                              << r.ours.unwritten << " unwritten, " << r.ours.mismatched
                                              << " NaN/Inf mismatches";
    }
  }
}

TEST(GemmPlan, EmptyAndScaleOnlyProblems) {
  JITGEMM_REQUIRE_GPU();
  Runtime runtime(isolated_options("gemm-plan-empty"));
  GemmProblem k0 = make(96, 80, 0, Precision::TF32x3);  // C = beta * C, A and B not read (BLAS)
  k0.beta = 0.5f;
  const GemmPlan plan = runtime.plan(k0);
  EXPECT_EQ(plan.kernel(), "");
  std::vector<float> host(96 * 80);
  for (size_t i = 0; i < host.size(); ++i) host[i] = static_cast<float>(i % 97) - 48.0f;
  cuda::DeviceBuffer c(sizeof(float) * host.size());
  c.copy_from_host(host.data(), c.size());
  plan.run(nullptr, nullptr, c.as<float>(), gpu().stream());
  JITGEMM_CU(cuda::driver().cuStreamSynchronize(gpu().stream()), "K = 0");
  std::vector<float> out(host.size());
  c.copy_to_host(out.data(), c.size());
  for (size_t i = 0; i < host.size(); ++i) ASSERT_EQ(out[i], 0.5f * host[i]) << "element " << i;
  const GemmPlan empty = runtime.plan(make(0, 80, 64, Precision::FP32));  // M = 0: touches nothing
  EXPECT_NO_THROW(empty.run(nullptr, nullptr, nullptr, gpu().stream()));
  EXPECT_THROW(GemmPlan().run(nullptr, nullptr, nullptr), InvalidArgument);
  const GemmPlan p64 = runtime.plan(make(64, 64, 64, Precision::FP32));
  EXPECT_THROW(p64.run(nullptr, c.as<const float>(), c.as<float>()), InvalidArgument);
}

// C of `p` (beta = 0) from one plan run, as host floats.
std::vector<float> host_c(const cuda::DeviceBuffer& c, const GemmProblem& p) {
  std::vector<float> v(static_cast<size_t>(p.m * p.effective_ldc()));
  c.copy_to_host(v.data(), sizeof(float) * v.size());
  return v;
}

TEST(GemmPlan, EightThreadsAtOnceGetTheSingleRunBits) {
  JITGEMM_REQUIRE_GPU();
  Runtime runtime(isolated_options("gemm-plan-threads"));
  for (const PlanCase& c : plan_cases()) {
    const GemmProblem& p = c.problem;
    if (p.beta != 0.0f) continue;  // every run must write the same C from the same A and B
    SCOPED_TRACE(fmt::format("{}: {}", c.what, p.to_string()));
    const GemmPlan plan = runtime.plan(p);
    const StoredShape sa = stored_shape_a(p), sb = stored_shape_b(p);
    cuda::DeviceBuffer a(sizeof(float) * sa.rows * p.effective_lda()), b(sizeof(float) * sb.rows * p.effective_ldb());
    {
      std::vector<float> host(std::max(a.size(), b.size()) / sizeof(float));
      for (size_t i = 0; i < host.size(); ++i) host[i] = static_cast<float>((i * 2654435761u) % 1000) / 1000.0f;
      a.copy_from_host(host.data(), a.size());
      b.copy_from_host(host.data(), b.size());
    }
    const size_t c_bytes = sizeof(float) * p.m * p.effective_ldc();
    cuda::DeviceBuffer expected_c(c_bytes);
    plan.run(a.as<const float>(), b.as<const float>(), expected_c.as<float>(), gpu().stream());
    JITGEMM_CU(cuda::driver().cuStreamSynchronize(gpu().stream()), "single run");
    const std::vector<float> expected = host_c(expected_c, p);

    constexpr int kThreads = 8, kRuns = 25;
    std::vector<std::vector<float>> results(kThreads);
    std::vector<std::string> errors(kThreads);
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t)
      threads.emplace_back([&, t] {
        try {
          JITGEMM_CU(cuda::driver().cuCtxSetCurrent(nullptr), "no context yet");  // the plan sets its own
          const GemmPlan copy = plan;  // copies share the plan
          cuda::PrimaryContext context(0);
          cuda::Stream stream;
          cuda::DeviceBuffer out(c_bytes);
          for (int r = 0; r < kRuns; ++r) {
            if (t % 2 == 0)
              copy.run(a.as<const float>(), b.as<const float>(), out.as<float>(), reinterpret_cast<CUstream_st*>(stream.get()));
            else
              runtime.gemm(p, a.as<const float>(), b.as<const float>(), out.as<float>(),
                           reinterpret_cast<CUstream_st*>(stream.get()));
          }
          stream.synchronize();
          results[t] = host_c(out, p);
        } catch (const std::exception& e) {
          errors[t] = e.what();
        }
      });
    for (auto& th : threads) th.join();
    for (int t = 0; t < kThreads; ++t) {
      ASSERT_EQ(errors[t], "") << "thread " << t;
      ASSERT_EQ(results[t].size(), expected.size());
      size_t differing = 0;
      for (size_t i = 0; i < expected.size(); ++i)
        differing += std::memcmp(&results[t][i], &expected[i], sizeof(float)) != 0;
      EXPECT_EQ(differing, 0u) << "thread " << t << (t % 2 == 0 ? " (GemmPlan::run)" : " (Runtime::gemm)");
    }
  }
}

}  // namespace
}  // namespace jitgemm::testing
