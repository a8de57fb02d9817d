// Crash-isolated tuning on the GPU: the tuner meets planted candidates (tests/gpu/planted/
// simt_gemm.cu, standing in for the SIMT template) that write out of bounds, __trap, hang,
// ask for too much shared memory, compute a wrong result, skip a tile, do not compile or
// store misaligned. Every round finishes, names each outcome and picks a correct winner, and
// this process's own CUDA context still computes a normal product afterwards.
// JITGEMM_PLANTED_ROUNDS sets the number of rounds (default 3; bench/device-run.sh
// reliability runs 20).
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <map>

#include "codegen/candidate_space.hpp"
#include "codegen/kernel_family.hpp"
#include "gpu_fixture.hpp"
#include "jitgemm/runtime.hpp"
#include "problem/problem_key.hpp"
#include "tune/tuner.hpp"

namespace jitgemm::testing {
namespace {

// The real templates with fp32/simt_gemm.cu replaced by the planted one.
TemplateStore planted_templates() {
  namespace fs = std::filesystem;
  const fs::path root = fs::path(temp_dir("planted-templates"));
  fs::copy(fs::path(JITGEMM_SOURCE_DIR) / "kernel_templates", root, fs::copy_options::recursive);
  fs::copy_file(fs::path(JITGEMM_SOURCE_DIR) / "tests/gpu/planted/simt_gemm.cu", root / "fp32/simt_gemm.cu",
                fs::copy_options::overwrite_existing);
  return TemplateStore::from_directory(root);
}

// What each plant (the config's raster_group) must be recorded as.
const std::map<int, CandidateOutcome> kExpected = {
    {1, CandidateOutcome::Ok},          {2, CandidateOutcome::Faulted},      {3, CandidateOutcome::Faulted},
    {4, CandidateOutcome::TimedOut},    {5, CandidateOutcome::LaunchFailed}, {6, CandidateOutcome::WrongResult},
    {7, CandidateOutcome::WrongResult}, {8, CandidateOutcome::CompileFailed}, {9, CandidateOutcome::Faulted},
    {10, CandidateOutcome::Ok},
};

int rounds() {
  const char* text = std::getenv("JITGEMM_PLANTED_ROUNDS");
  return text != nullptr ? std::max(1, std::atoi(text)) : 3;
}

TEST(IsolatedTuning, PlantedCandidatesNeverEndTheRun) {
  JITGEMM_REQUIRE_GPU();
  GpuEnvironment& env = gpu();
  const TemplateStore planted = planted_templates();
  GemmProblem p;
  p.m = p.n = p.k = 256;
  // A SIMT config whose dynamic shared memory fits the 48 KiB default but not beside plant
  // 5's 40 KiB static array.
  std::optional<KernelConfig> base;
  for (const KernelConfig& c : tuning_candidates(make_problem_key(p))) {
    const size_t smem = launch_geometry(c, p.m, p.n, p.k, env.info().sm_count).smem_bytes;
    if (c.family() == KernelFamily::Simt && c.split_k == 1 && smem > 9 * 1024 && smem <= 48 * 1024) {
      base = c;
      break;
    }
  }
  ASSERT_TRUE(base.has_value());
  TuneSettings settings;
  for (const auto& [plant, outcome] : kExpected) {
    KernelConfig c = *base;
    c.raster_group = plant;
    settings.candidates.push_back(c);
  }
  settings.timing_runs = 20;
  settings.finalists = 2;
  // Every plant must be measured: the budgeted search (the default), with room for a fresh
  // worker after each fault and the hang's watchdog.
  settings.budget_s = 120;

  const int n = rounds();
  for (int round = 0; round < n; ++round) {
    const auto start = std::chrono::steady_clock::now();
    const TuneResult result = tune_problem(p, env.info(), env.compiler(), planted, settings);
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    ASSERT_EQ(result.candidates.size(), kExpected.size());
    for (const CandidateMeasurement& m : result.candidates) {
      const CandidateOutcome expected = kExpected.at(m.config.raster_group);
      EXPECT_EQ(m.outcome, expected) << "round " << round << ", plant " << m.config.raster_group << ": got "
                                     << to_string(m.outcome) << " (" << m.detail << "), expected "
                                     << to_string(expected);
      if (m.outcome != CandidateOutcome::Ok) EXPECT_FALSE(m.detail.empty()) << "plant " << m.config.raster_group;
      if (round == 0)
        std::printf("[ info ] plant %2d  %-14s %s\n", m.config.raster_group, std::string(to_string(m.outcome)).c_str(),
                    m.detail.substr(0, 150).c_str());
    }
    const CandidateMeasurement* best = result.best();
    ASSERT_NE(best, nullptr) << "round " << round;
    EXPECT_TRUE(best->config.raster_group == 1 || best->config.raster_group == 10) << best->config.name();
    EXPECT_LE(best->rel_error, result.tolerance);
    std::printf("[ info ] round %d: %.1f s, winner %s (%.4f ms, error %.2e)\n", round, seconds,
                best->config.name().c_str(), best->timing.median_ms, best->rel_error);
  }

  // This process never ran a candidate: its context computes a normal product.
  Runtime runtime(isolated_options("after-planted"));
  const CaseResult r = env.run_case(p, 77, RandomKind::Uniform01, [&](const float* a, const float* b, float* c) {
    runtime.gemm(p, a, b, c, reinterpret_cast<CUstream_st*>(env.stream()));
  });
  EXPECT_TRUE(r.ours.passes(r.tolerance)) << "error " << r.ours.rel_error << ", tolerance " << r.tolerance;
}

}  // namespace
}  // namespace jitgemm::testing
