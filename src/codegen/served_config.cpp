// adapt_record_config: a tuned config carried over to a nearby problem (served_config.hpp).
#include "codegen/served_config.hpp"

#include "codegen/kernel_family.hpp"

namespace jitgemm {

// The family knows what a shape decides (KernelFamilyRules::adapt); the result is checked once
// more here, since the serving policy launches it untried.
std::optional<KernelConfig> adapt_record_config(const KernelConfig& tuned, const ProblemKey& key) {
  std::optional<KernelConfig> config = rules_of(tuned).adapt(tuned, key);
  if (!config || !statically_valid(*config, StaticLimits{}, nullptr) || !rules_of(*config).runs_in_place(*config, key))
    return std::nullopt;
  return config;
}

}  // namespace jitgemm
