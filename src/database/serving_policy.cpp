// lookup: the serving policy (serving_policy.hpp).
#include "database/serving_policy.hpp"

#include <fmt/format.h>

#include <optional>

#include "codegen/candidate_space.hpp"
#include "codegen/served_config.hpp"
#include "database/shape_distance.hpp"

namespace jitgemm {
namespace {

ServingDecision served(ServingRule rule, KernelConfig config, const TuningRecord& record,
                       const Environments& environments, std::string why) {
  return {rule, std::move(config), &record, staleness(record, environments),
          fmt::format("{}: {}", to_string(rule), why)};
}

ServingDecision by_default(const ProblemKey& key, std::string why) {
  return {ServingRule::Default, untuned_config(key), nullptr, {}, fmt::format("default: {}", why)};
}

// "tuned 4096x4096x4096, asked 3000x4096x4096"
std::string shapes(const ProblemKey& record, const ProblemKey& asked) {
  return fmt::format("tuned {}x{}x{}, asked {}x{}x{}", record.m, record.n, record.k, asked.m, asked.n, asked.k);
}

ServingDecision nearest(const RecordMatch& match, const ProblemKey& key, const Environments& environments) {
  const TuningRecord& record = *match.record;
  if (!within_factor_of_two(record.problem, key))
    return by_default(key, fmt::format("nearest record {} is more than a factor of two away ({}: {})", record.key(),
                                       shapes(record.problem, key),
                                       fmt::join(dimensions_beyond_factor_of_two(record.problem, key), ", ")));
  std::optional<KernelConfig> config = adapt_record_config(record.config, key);
  if (!config)
    return by_default(key, fmt::format("nearest record {}: its config {} cannot be adapted to this problem",
                                       record.key(), record.config.name()));
  std::string why = fmt::format("{} (distance {:.2f}: {})", record.key(), match.distance, shapes(record.problem, key));
  if (*config != record.config) why += fmt::format(", config adapted from {}", record.config.name());
  return served(ServingRule::Nearest, *std::move(config), record, environments, std::move(why));
}

}  // namespace

std::string_view to_string(ServingRule rule) noexcept {
  switch (rule) {
    case ServingRule::Exact: return "exact";
    case ServingRule::Sibling: return "sibling";
    case ServingRule::Nearest: return "nearest";
    case ServingRule::Default: return "default";
  }
  return "?";
}

ServingDecision lookup(const TuningDatabase& database, const DeviceKey& device, const ProblemKey& key,
                       const Environments& environments) {
  const RecordMatch match = database.match(device, key);
  switch (match.rule) {
    case RecordMatch::Rule::Exact:
      return served(ServingRule::Exact, match.record->config, *match.record, environments, match.record->key());
    case RecordMatch::Rule::Sibling:
      return served(ServingRule::Sibling, match.record->config, *match.record, environments,
                    fmt::format("{} (no record of {} sm{} for this problem; {} is a device of the same sm and {} SMs)",
                                match.record->key(), device.name, device.sm, match.record->device.name,
                                device.sm_count));
    case RecordMatch::Rule::Nearest: return nearest(match, key, environments);
    case RecordMatch::Rule::None: break;
  }
  return by_default(key, fmt::format("no record of this kind for {} sm{} ({} records for this device)", device.name,
                                     device.sm, match.device_records));
}

std::string staleness_text(const ServingDecision& d) {
  return d.record == nullptr ? "- (no record served)" : to_string(d.staleness);
}

}  // namespace jitgemm
