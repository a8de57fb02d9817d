// What the NVRTC compile tests of every kernel family share: compile a list of rendered
// kernels on several threads, and check each came out clean.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <string>
#include <thread>
#include <vector>

#include "codegen/source_render.hpp"
#include "compile/compiler.hpp"

namespace jitgemm::testing {

struct CompileResult {
  std::string name;
  bool ok = false;
  ResourceUsage resources;
  double compile_ms = 0;
  std::string log;
  int threads = 0;  // of the rendered kernel
};

// Registers a thread may hold when one CTA of `threads` threads owns the 64K-register file
// (what __launch_bounds__(threads, 1) lets ptxas use): 168 at 384 threads, 255 at 256.
constexpr int entry_register_cap(int threads) { return std::min(255, 65536 / std::max(threads, 1) / 8 * 8); }

// Compiles every kernel on `jobs` threads (NVRTC is thread-safe), without a binary cache.
inline std::vector<CompileResult> compile_all(const std::vector<RenderedKernel>& kernels, int jobs) {
  const Compiler compiler(std::nullopt);
  std::vector<CompileResult> results(kernels.size());
  std::atomic<size_t> next{0};
  auto work = [&] {
    for (size_t i; (i = next++) < kernels.size();) {
      const CompileOutcome out = compiler.compile(kernels[i].source, kernels[i].kernel_name, CompileOptions{});
      results[i] = {kernels[i].kernel_name, out.ok, out.kernel.resources, out.kernel.compile_ms, out.log,
                    kernels[i].threads};
    }
  };
  std::vector<std::thread> threads;
  for (int t = 0; t < std::max(jobs, 1); ++t) threads.emplace_back(work);
  for (auto& t : threads) t.join();
  return results;
}

inline std::vector<RenderedKernel> render_all(const std::vector<KernelConfig>& configs,
                                              const KernelSpecialization& spec = {}) {
  std::vector<RenderedKernel> kernels;
  for (const KernelConfig& c : configs) kernels.push_back(render_kernel(c, spec));
  return kernels;
}

// Compiled, with a parsed ptxas report, no spills, no stack frame, at most `max_registers`,
// and no wgmma serialized by ptxas.
inline void expect_clean(const std::vector<CompileResult>& results, int max_registers) {
  for (const CompileResult& r : results) {
    ASSERT_TRUE(r.ok) << r.name << "\n" << r.log;
    EXPECT_TRUE(r.resources.parsed) << r.name << "\n" << r.log;
    EXPECT_EQ(r.resources.spill_store_bytes, 0) << r.name << ": " << r.resources.to_string();
    EXPECT_EQ(r.resources.spill_load_bytes, 0) << r.name << ": " << r.resources.to_string();
    EXPECT_EQ(r.resources.stack_bytes, 0) << r.name << ": " << r.resources.to_string();
    EXPECT_LE(r.resources.registers, max_registers) << r.name;
    // ptxas keeps wgmmas asynchronous only when it can prove their registers untouched in
    // flight; otherwise it serializes them and says so.
    EXPECT_EQ(r.log.find("serialized"), std::string::npos) << r.name << "\n" << r.log;
  }
}

}  // namespace jitgemm::testing
