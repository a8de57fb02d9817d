// Huge K: the wgmma kernels cut K into pieces (split_k > 1, tf32/wgmma_gemm.cu SPLIT_K) whose
// partial sums fp32/split_k_reduce.cu adds in piece order; fp32 splits K in the SIMT family.
// - the untuned Runtime at K = 2^16, 2^19, 2^20 in every mode, against the mode's contract;
// - every sample config with K pieces (and the default, and twice its pieces) on huge-K shapes
//   with partial tiles, transposes and a fill, repeated bit for bit;
// - 20 runs, two streams at once and two processes at once give the same bits.
#include <gtest/gtest.h>

#include <fmt/format.h>
#include <spawn.h>
#include <sys/wait.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <vector>

#include "codegen/candidate_space.hpp"
#include "codegen/wgmma_family.hpp"
#include "exec/gemm_launch.hpp"
#include "gpu_fixture.hpp"
#include "launch/kernel_cache.hpp"
#include "problem/problem_key.hpp"

extern char** environ;

namespace jitgemm::testing {
namespace {

std::string describe(const CaseResult& r) {
  return fmt::format("error {:.3g} (cuBLAS {:.3g}, tolerance {:.3g}), {} unwritten", r.ours.rel_error, r.cublas_error,
                     r.tolerance, r.ours.unwritten);
}

GemmProblem huge_k(Precision precision, int64_t m, int64_t n, int64_t k, Op ta = Op::N, Op tb = Op::N) {
  GemmProblem p;
  p.precision = precision;
  p.m = m, p.n = n, p.k = k, p.trans_a = ta, p.trans_b = tb;
  return p;
}

class HugeK : public ::testing::TestWithParam<Precision> {};

TEST_P(HugeK, UntunedMeetsTheContractAtEveryK) {
  JITGEMM_REQUIRE_GPU();
  GpuEnvironment& env = gpu();
  Runtime runtime(isolated_options(fmt::format("huge-k-{}", to_string(GetParam()))));
  int seed = 0;
  for (int64_t k : {int64_t{1} << 16, int64_t{1} << 19, int64_t{1} << 20}) {
    for (bool scaled : {false, true}) {
      if (scaled && k != (int64_t{1} << 16)) continue;
      GemmProblem p = huge_k(GetParam(), 256, 256, k);
      if (scaled) p.alpha = -1.5f, p.beta = 0.5f;
      const ProblemKey key = make_problem_key(p);
      const CaseResult r = env.run_case(p, 4000 + ++seed, scaled ? RandomKind::SignedNormal : RandomKind::Uniform01,
                                        [&](const float* a, const float* b, float* c) {
                                          runtime.gemm(p, a, b, c, reinterpret_cast<CUstream_st*>(env.stream()));
                                        });
      EXPECT_TRUE(r.ours.passes(r.tolerance)) << p.to_string() << ": " << describe(r);
      EXPECT_EQ(runtime.last_serve_rule(), ServeRule::Default);
      std::printf("[ info ] %s untuned (%s): %s\n", p.to_string().c_str(), untuned_config(key).name().c_str(),
                  describe(r).c_str());
    }
  }
}

// The configs with K pieces a key's sample holds, its default, and the default with twice the pieces.
std::vector<KernelConfig> piece_configs(const ProblemKey& key) {
  std::vector<KernelConfig> out;
  for (const KernelConfig& c : representative_sample(key))
    if (c.split_k > 1 && wgmma_runs_in_place(c, key)) out.push_back(c);
  KernelConfig d = default_config(key);
  if (d.split_k > 1) {
    out.push_back(d);
    d.split_k = std::min(2 * d.split_k, kMaxSplitK);
    out.push_back(d);
  }
  std::sort(out.begin(), out.end(), [](const KernelConfig& a, const KernelConfig& b) { return a.name() < b.name(); });
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

TEST_P(HugeK, SampleConfigsWithPiecesMeetTheContractAndRepeatBitForBit) {
  JITGEMM_REQUIRE_GPU();
  if (GetParam() == Precision::FP32) GTEST_SKIP() << "fp32 splits K in the SIMT family (UntunedMeetsTheContractAtEveryK)";
  GpuEnvironment& env = gpu();
  KernelCache kernels(env.compiler(), TemplateStore::active());
  GemmLauncher launcher(env.compiler(), TemplateStore::active(), env.info().sm_count);
  int cases = 0;
  std::vector<GemmProblem> problems = {huge_k(GetParam(), 256, 256, 65536),
                                       huge_k(GetParam(), 300, 200, 70000, Op::N, Op::T),  // partial tiles
                                       huge_k(GetParam(), 200, 384, 40000, Op::T, Op::N),
                                       huge_k(GetParam(), 256, 256, 30001)};  // unaligned rows: plane-fed only
  GemmProblem filled = huge_k(GetParam(), 256, 256, 40000);
  filled.fill = Fill::Lower, filled.alpha = 0.75f, filled.beta = 1.0f;
  problems.push_back(filled);
  for (const GemmProblem& p : problems) {
    const ProblemKey key = make_problem_key(p);
    const KernelSpecialization spec = specialization_of(key);
    for (const KernelConfig& config : piece_configs(key)) {
      const LoadedKernel& kernel = kernels.get(config, spec);
      cuda::DeviceBuffer workspace(launcher.workspace_bytes(config, p));
      TwoRunsFromOneC runs(sizeof(float) * static_cast<size_t>(p.m * p.effective_ldc()));
      ++cases;
      const CaseResult r = env.run_case(p, 5000 + cases, RandomKind::SignedNormal, [&](const float* a, const float* b,
                                                                                      float* c) {
        auto run = [&] {
          launcher.launch(kernel.function, config, p, reinterpret_cast<CUdeviceptr>(a), reinterpret_cast<CUdeviceptr>(b),
                          reinterpret_cast<CUdeviceptr>(c), workspace.get(), env.stream());
        };
        runs.run(reinterpret_cast<CUdeviceptr>(c), env.stream(), run, run);
      });
      const std::string what = fmt::format("{} on {}", config.name(), p.to_string());
      EXPECT_TRUE(r.ours.passes(r.tolerance)) << what << ": " << describe(r);
      JITGEMM_CU(cuda::driver().cuStreamSynchronize(env.stream()), "sync");
      EXPECT_TRUE(runs.same_bits()) << what << ": a repeated launch differs";
      std::printf("[ info ] %s: %s\n", what.c_str(), describe(r).c_str());
    }
  }
  EXPECT_GE(cases, 10);
}

INSTANTIATE_TEST_SUITE_P(AllModes, HugeK, ::testing::Values(Precision::FP32, Precision::TF32x3, Precision::TF32),
                         [](const auto& info) { return std::string(to_string(info.param)); });

// ---- determinism: runs, streams, processes ------------------------------------------------

constexpr int64_t kDeterminismK = int64_t{1} << 19;

// The bits of C = A B (256 x 256 x 2^19, the untuned Runtime) for fixed inputs, on `streams`
// streams at once (each its own C), `runs` times each; every result is returned.
std::vector<std::vector<unsigned>> products(Precision precision, int streams, int runs, const std::string& tag) {
  GpuEnvironment& env = gpu();
  const GemmProblem p = huge_k(precision, 256, 256, kDeterminismK);
  SupportKernels support(env.compiler(), TemplateStore::active());
  cuda::DeviceBuffer a(4 * p.m * p.k), b(4 * p.k * p.n);
  support.fill_random(a.get(), p.m, p.k, p.k, 77, RandomKind::SignedNormal, false, 0.0f, env.stream());
  support.fill_random(b.get(), p.k, p.n, p.n, 78, RandomKind::SignedNormal, false, 0.0f, env.stream());
  JITGEMM_CU(cuda::driver().cuStreamSynchronize(env.stream()), "inputs");
  Runtime runtime(isolated_options(tag));
  std::vector<cuda::Stream> on;
  std::vector<cuda::DeviceBuffer> c;
  for (int s = 0; s < streams; ++s) on.emplace_back(), c.emplace_back(4 * p.m * p.n);
  std::vector<std::vector<unsigned>> out;
  for (int run = 0; run < runs; ++run) {
    for (int s = 0; s < streams; ++s)  // issued back to back: the streams overlap
      runtime.gemm(p, a.as<float>(), b.as<float>(), c[s].as<float>(), reinterpret_cast<CUstream_st*>(on[s].get()));
    for (int s = 0; s < streams; ++s) {
      on[s].synchronize();
      out.push_back(c[s].to_host_vector<unsigned>(static_cast<size_t>(p.m * p.n)));
    }
  }
  return out;
}

// A child process (started by the test below) writes its product's bits to $JITGEMM_HUGE_K_OUT.
TEST(HugeKChild, WritesTheProductOfTheFixedInputs) {
  const char* path = std::getenv("JITGEMM_HUGE_K_OUT");
  const char* mode = std::getenv("JITGEMM_HUGE_K_MODE");
  if (path == nullptr || mode == nullptr) GTEST_SKIP() << "runs only as the child of HugeKBits (JITGEMM_HUGE_K_OUT)";
  JITGEMM_REQUIRE_GPU();
  const std::vector<unsigned> bits = products(parse_precision(mode), 1, 1, fmt::format("huge-k-child-{}", path)).front();
  std::ofstream file(path, std::ios::binary);
  file.write(reinterpret_cast<const char*>(bits.data()), static_cast<std::streamsize>(bits.size() * sizeof(unsigned)));
  ASSERT_TRUE(file.good()) << path;
}

// Starts this test binary running HugeKChild for `mode`, writing to `out`.
pid_t start_child(Precision mode, const std::string& out) {
  std::vector<std::string> env_strings;
  for (char** e = environ; *e != nullptr; ++e) env_strings.emplace_back(*e);
  env_strings.push_back("JITGEMM_HUGE_K_OUT=" + out);
  env_strings.push_back(fmt::format("JITGEMM_HUGE_K_MODE={}", to_string(mode)));
  std::vector<char*> envp;
  for (std::string& e : env_strings) envp.push_back(e.data());
  envp.push_back(nullptr);
  std::string exe = "/proc/self/exe", filter = "--gtest_filter=HugeKChild.*";
  char* argv[] = {exe.data(), filter.data(), nullptr};
  pid_t pid = 0;
  const int rc = posix_spawn(&pid, exe.c_str(), nullptr, nullptr, argv, envp.data());
  EXPECT_EQ(rc, 0) << "posix_spawn: " << std::strerror(rc);
  return rc == 0 ? pid : -1;
}

class HugeKBits : public ::testing::TestWithParam<Precision> {};

TEST_P(HugeKBits, TwentyRunsTwoStreamsAndTwoProcessesGiveTheSameBits) {
  JITGEMM_REQUIRE_GPU();
  const std::string mode(to_string(GetParam()));
  const std::vector<std::vector<unsigned>> runs = products(GetParam(), 1, 20, "huge-k-runs-" + mode);
  ASSERT_EQ(runs.size(), 20u);
  for (size_t i = 1; i < runs.size(); ++i) EXPECT_TRUE(runs[i] == runs[0]) << "run " << i << " differs from run 0";
  const std::vector<std::vector<unsigned>> streams = products(GetParam(), 2, 3, "huge-k-streams-" + mode);
  for (size_t i = 0; i < streams.size(); ++i)
    EXPECT_TRUE(streams[i] == runs[0]) << "stream " << i % 2 << ", round " << i / 2 << " differs";
  // Two processes at once, each with its own context and binary cache.
  const std::string dir = temp_dir("huge-k-processes-" + mode);
  const std::string outs[2] = {dir + "/first.bin", dir + "/second.bin"};
  const pid_t children[2] = {start_child(GetParam(), outs[0]), start_child(GetParam(), outs[1])};
  for (int i = 0; i < 2; ++i) {
    ASSERT_GT(children[i], 0);
    int status = 0;
    ASSERT_EQ(waitpid(children[i], &status, 0), children[i]);
    ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "child " << i << " status " << status;
    std::ifstream file(outs[i], std::ios::binary);
    std::vector<char> bytes((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
    ASSERT_EQ(bytes.size(), runs[0].size() * sizeof(unsigned)) << outs[i];
    EXPECT_EQ(std::memcmp(bytes.data(), runs[0].data(), bytes.size()), 0) << "process " << i << " differs";
  }
  std::printf("[ info ] %s 256x256x%lld: 20 runs, 2 streams x 3, 2 processes: the same bits\n", mode.c_str(),
              static_cast<long long>(kDeterminismK));
}

INSTANTIATE_TEST_SUITE_P(AllModes, HugeKBits, ::testing::Values(Precision::FP32, Precision::TF32x3, Precision::TF32),
                         [](const auto& info) { return std::string(to_string(info.param)); });

}  // namespace
}  // namespace jitgemm::testing
