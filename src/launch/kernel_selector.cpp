#include "launch/kernel_selector.hpp"

#include <algorithm>

#include "codegen/candidate_space.hpp"

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
  const auto found = database.lookup(device, key, environments.at(KernelFamily::Simt));
  // A record is stale when its environment differs from this machine's for its own family.
  const bool stale = found.record != nullptr && !(found.record->environment ==
                                                   environments.at(found.record->config.family()));
  if (found.rule == LookupResult::Rule::Exact) return {found.record->config, ServeRule::Exact, stale};
  if (found.rule == LookupResult::Rule::Nearest && close_enough(found.record->problem, key)) {
    // The record's config made right for this shape by its family (the K split re-derived, an
    // operand read in place that this problem's memory does not allow fed by the pre-pass).
    const std::optional<KernelConfig> adapted = rules_of(found.record->config).adapt(found.record->config, key);
    if (!adapted) return {untuned_config(key), ServeRule::Default, false};
    const KernelConfig& config = *adapted;
    return {config, ServeRule::Nearest, stale};
  }
  return {untuned_config(key), ServeRule::Default, false};
}

}  // namespace jitgemm
