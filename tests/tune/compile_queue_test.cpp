// CompileQueue: ranked delivery, shared split-K kernels, stopping, and the errors that abort.
#include "tune/compile_queue.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <future>
#include <set>

#include "codegen/candidate_space.hpp"
#include "codegen/template_store.hpp"
#include "jitgemm/error.hpp"
#include "tune/fake_tuning.hpp"

namespace jitgemm {
namespace {

using testing::FakeClock;
using testing::fake_compile;

ProblemKey square(int64_t size) {
  ProblemKey key;
  key.m = key.n = key.k = size;
  return key;
}

// Every config, taken as delivered.
std::vector<size_t> drain(CompileQueue& queue) {
  std::vector<size_t> taken;
  while (!queue.done())
    if (auto i = queue.next(0.05)) taken.push_back(*i);
  return taken;
}

TEST(CompileQueue, DeliversEveryConfigOnceInRankOrderAndSharesSplitKernels) {
  const std::vector<KernelConfig> configs = tuning_candidates(square(1000));  // tiles with split-K siblings
  std::set<std::string> kernels;  // one per compiled kernel: the splits of a tile share one (or two: simt_can_finish_split_k)
  for (const KernelConfig& c : configs) kernels.insert(rules_of(c).kernel_name(c, KernelSpecialization{}));
  ASSERT_LT(kernels.size(), configs.size());
  std::vector<size_t> order(configs.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = order.size() - 1 - i;  // last first
  FakeClock clock;
  std::atomic<int> calls{0};
  CompileQueue queue(configs, order, KernelSpecialization{}, fake_compile(clock, 0.1, &calls),
                     TemplateStore::active(), 1, clock.clock());
  const std::vector<size_t> taken = drain(queue);
  EXPECT_EQ(calls, static_cast<int>(kernels.size()));
  EXPECT_EQ(std::set<size_t>(taken.begin(), taken.end()).size(), configs.size());
  EXPECT_EQ(taken.size(), configs.size());
  EXPECT_EQ(taken.front(), configs.size() - 1) << "the best ranked is compiled and taken first";
  for (size_t i : taken) {
    EXPECT_TRUE(queue.candidate(i).outcome.ok);
    EXPECT_EQ(queue.candidate(i).config, configs[i]);
    EXPECT_TRUE(queue.started(i));
  }
  const CompileQueueStats stats = queue.stats();
  EXPECT_EQ(stats.kernels, kernels.size());
  EXPECT_EQ(stats.finished, kernels.size());
  EXPECT_NEAR(stats.mean_compile_s, 0.1, 1e-9);
}

TEST(CompileQueue, AfterStopStartingNothingMoreStarts) {
  std::vector<KernelConfig> configs;
  for (const KernelConfig& c : candidate_space(square(4096)))
    if (c.split_k == 1 && configs.size() < 20) configs.push_back(c);
  std::vector<size_t> order(configs.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  FakeClock clock;
  std::atomic<int> calls{0};
  std::promise<void> stopped;
  std::shared_future<void> released = stopped.get_future().share();
  const CompileKernel gated = [&](const RenderedKernel& kernel) {  // the second compile waits for the stop
    if (++calls == 2) released.wait();
    CompileOutcome out;
    out.ok = true;
    out.kernel.kernel_name = kernel.kernel_name;
    return out;
  };
  CompileQueue queue(configs, order, KernelSpecialization{}, gated, TemplateStore::active(), 1, clock.clock());
  std::optional<size_t> first;
  while (!first) first = queue.next(0.05);
  queue.stop_starting();
  stopped.set_value();
  const std::vector<size_t> rest = drain(queue);
  EXPECT_LE(rest.size(), 1u) << "at most the compile under way when it stopped";
  EXPECT_LE(calls.load(), 2);
  EXPECT_FALSE(queue.started(configs.size() - 1));
  EXPECT_TRUE(queue.done());
  EXPECT_FALSE(queue.next(0.0).has_value());
}

TEST(CompileQueue, ACompilerExceptionComesOutOfNext) {
  const std::vector<KernelConfig> configs = candidate_space(square(512));
  std::vector<size_t> order(configs.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::atomic<int> calls{0};
  const CompileKernel broken = [&](const RenderedKernel&) -> CompileOutcome {
    ++calls;
    throw CompileError("nvrtcCompileProgram(...) failed: NVRTC_ERROR_BUILTIN_OPERATION_FAILURE", "");
  };
  FakeClock clock;
  CompileQueue queue(configs, order, KernelSpecialization{}, broken, TemplateStore::active(), 3, clock.clock());
  EXPECT_THROW(drain(queue), CompileError);
  EXPECT_LE(calls.load(), 3);
}

TEST(CompileQueue, AThrowingProgressReportAbortsToo) {
  const std::vector<KernelConfig> configs = candidate_space(square(512));
  FakeClock clock;
  const CompileProgress disk_full = [](size_t, size_t, const CompiledCandidate&) { throw Error("progress: disk full"); };
  CompileQueue queue(configs, {0, 1, 2}, KernelSpecialization{}, fake_compile(clock, 0.1), TemplateStore::active(), 1,
                     clock.clock(), disk_full);
  EXPECT_THROW(drain(queue), Error);
}

TEST(CompileQueue, AnUnrenderableConfigIsDeliveredAsACompileFailure) {
  KernelConfig bad;
  bad.simt().thread_n = 16;  // 128x128 over 2x4 warps with 8x16 threads leaves lanes idle
  std::vector<KernelConfig> configs{KernelConfig{}, bad};
  FakeClock clock;
  std::atomic<int> calls{0};
  CompileQueue queue(configs, {1, 0}, KernelSpecialization{}, fake_compile(clock, 0.1, &calls),
                     TemplateStore::active(), 2, clock.clock());
  const std::vector<size_t> taken = drain(queue);
  ASSERT_EQ(taken.size(), 2u);
  EXPECT_FALSE(queue.candidate(1).outcome.ok);
  EXPECT_NE(queue.candidate(1).outcome.log.find("is not valid"), std::string::npos);
  EXPECT_TRUE(queue.candidate(0).outcome.ok);
  EXPECT_EQ(calls, 1);
}

TEST(CompileQueue, ConfigsLeftOutOfTheOrderAreNeverCompiled) {
  const std::vector<KernelConfig> configs = candidate_space(square(512));
  ASSERT_GE(configs.size(), 4u);
  FakeClock clock;
  CompileQueue queue(configs, {3, 0}, KernelSpecialization{}, fake_compile(clock, 0.1), TemplateStore::active(), 2,
                     clock.clock());
  const std::vector<size_t> taken = drain(queue);
  EXPECT_EQ(std::set<size_t>(taken.begin(), taken.end()), (std::set<size_t>{0, 3}));
  EXPECT_FALSE(queue.started(1));
}

}  // namespace
}  // namespace jitgemm
