#include "launch/kernel_selector.hpp"

#include "codegen/candidate_space.hpp"

namespace jitgemm {

Selection select_kernel(const TuningDatabase& database, const DeviceKey& device, const ProblemKey& key,
                        const EnvironmentKey& environment) {
  const auto found = database.lookup(device, key, environment);
  switch (found.rule) {
    case LookupResult::Rule::Exact: return {found.record->config, ServeRule::Exact, found.stale};
    case LookupResult::Rule::Nearest: return {found.record->config, ServeRule::Nearest, found.stale};
    case LookupResult::Rule::None: break;
  }
  return {default_config(key), ServeRule::Default, false};
}

}  // namespace jitgemm
