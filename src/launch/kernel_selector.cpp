#include "launch/kernel_selector.hpp"

#include <algorithm>

#include "codegen/candidate_space.hpp"
#include "codegen/wgmma_candidates.hpp"

namespace jitgemm {
namespace {

// A nearest record serves only shapes within a factor of two of its own in each of M, N
// and K: further away its tiles say little (a 4096^3 tile on 512^3 leaves most SMs idle).
bool close_enough(const ProblemKey& a, const ProblemKey& b) {
  auto within = [](int64_t x, int64_t y) { return std::max(x, y) <= 2 * std::min(x, y); };
  return within(a.m, b.m) && within(a.n, b.n) && within(a.k, b.k);
}

}  // namespace

Selection select_kernel(const TuningDatabase& database, const DeviceKey& device, const ProblemKey& key,
                        const Environments& environments) {
  const auto found = database.lookup(device, key, environments.at(KernelFamily::SimtFp32));
  // A record is stale when its environment differs from this machine's for its own family.
  const bool stale = found.record != nullptr && !(found.record->environment ==
                                                   environments.at(found.record->config.family));
  if (found.rule == LookupResult::Rule::Exact) return {found.record->config, ServeRule::Exact, stale};
  if (found.rule == LookupResult::Rule::Nearest && close_enough(found.record->problem, key)) {
    // The record's tiles, with the K split re-derived for this shape: the split is what
    // keeps the accuracy contract, and it depends on K and the output size.
    KernelConfig config = found.record->config;
    if (!is_wgmma(config.family)) config.split_k = default_split_k(key, config);
    if (!wgmma_runs_in_place(config, key)) {
      // The record reads an operand in place that this problem's memory does not allow
      // (alignment): the same tiles fed by the pre-pass, when they fit.
      config.a_in_registers = 0, config.a_round = 1, config.swap_ab = 0, config.convert_b = 0, config.transform_b = 0;
      if (!statically_valid(config, StaticLimits{}, nullptr)) return {untuned_config(key), ServeRule::Default, false};
    }
    return {config, ServeRule::Nearest, stale};
  }
  return {untuned_config(key), ServeRule::Default, false};
}

}  // namespace jitgemm
