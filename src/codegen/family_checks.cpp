#include "codegen/family_checks.hpp"

#include <fmt/format.h>

#include "codegen/split_k_policy.hpp"

namespace jitgemm {

std::string split_k_problem(const KernelConfig& c) {
  if (c.split_k < 1 || c.split_k > kMaxSplitK) return fmt::format("split_k={} is not in 1..{}", c.split_k, kMaxSplitK);
  return {};
}

std::string resource_problem(const KernelFamilyRules& rules, const KernelConfig& c, const StaticLimits& limits) {
  const int threads = rules.threads(c);
  if (threads > limits.max_threads) return fmt::format("{} threads exceed {}", threads, limits.max_threads);
  const size_t smem = rules.shared_memory_bytes(c);
  if (smem > limits.max_smem_bytes) return fmt::format("shared memory {} B exceeds {} B", smem, limits.max_smem_bytes);
  const int regs = rules.estimated_registers(c);
  if (regs > limits.max_registers_per_thread)
    return fmt::format("about {} registers per thread exceed {}", regs, limits.max_registers_per_thread);
  if (static_cast<int64_t>(regs) * threads > limits.registers_per_sm)
    return fmt::format("about {} registers x {} threads exceed the SM's {}", regs, threads, limits.registers_per_sm);
  return {};
}

KernelConfig compiled_config(KernelConfig c) {
  c.split_k = 1;
  return c;
}

std::optional<KernelConfig> SplitKFamilyRules::adapt(const KernelConfig& tuned, const ProblemKey& key) const {
  return with_default_split_k(tuned, key);
}

LaunchGeometry SplitKFamilyRules::geometry(const KernelConfig& c, int64_t m, int64_t n, int64_t, int) const {
  LaunchGeometry g;
  g.grid_x = static_cast<unsigned>(c.output_tiles(m, n));
  g.grid_y = static_cast<unsigned>(c.split_k);  // K slices (split_k_reduce.cu adds them)
  g.block_x = static_cast<unsigned>(threads(c));
  g.smem_bytes = shared_memory_bytes(c);
  return g;
}

}  // namespace jitgemm
