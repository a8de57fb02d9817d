// adapt_record_config: a tuned config carried over to a nearby problem (served_config.hpp).
#include "codegen/served_config.hpp"

#include "codegen/candidate_space.hpp"
#include "codegen/wgmma_candidates.hpp"

namespace jitgemm {
namespace {

// The operands are read through the pre-pass's K-major planes, nothing in place.
void read_operands_through_prepass(KernelConfig& config) {
  config.a_in_registers = 0, config.a_round = 1, config.swap_ab = 0, config.convert_b = 0, config.transform_b = 0;
}

}  // namespace

std::optional<KernelConfig> adapt_record_config(const KernelConfig& tuned, const ProblemKey& key) {
  KernelConfig config = tuned;
  if (!is_wgmma(config.family)) config.split_k = default_split_k(key, config);
  if (!wgmma_runs_in_place(config, key)) read_operands_through_prepass(config);
  if (!statically_valid(config, StaticLimits{}, nullptr)) return std::nullopt;
  return config;
}

}  // namespace jitgemm
