// Environments and staleness (environments.hpp).
#include "database/environments.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "codegen/source_render.hpp"

namespace jitgemm {
namespace {

// Appends a StaleField when `now` is known and differs from `recorded`.
template <typename T>
void compare(std::vector<StaleField>& out, EnvironmentField field, const T& recorded, const std::optional<T>& now) {
  if (now.has_value() && *now != recorded) out.push_back({field, fmt::format("{}", recorded), fmt::format("{}", *now)});
}

std::optional<std::string> hash_of(const Environments& environments, KernelFamily family) {
  const auto it = environments.template_hashes.find(family);
  return it == environments.template_hashes.end() ? std::nullopt : std::optional<std::string>(it->second);
}

}  // namespace

std::string_view to_string(EnvironmentField field) noexcept {
  switch (field) {
    case EnvironmentField::DriverVersion: return "driver_version";
    case EnvironmentField::NvrtcVersion: return "nvrtc_version";
    case EnvironmentField::TemplateHash: return "template_hash";
    case EnvironmentField::JitgemmVersion: return "jitgemm_version";
  }
  return "?";
}

bool Environments::known(EnvironmentField field, KernelFamily family) const {
  switch (field) {
    case EnvironmentField::DriverVersion: return driver_version.has_value();
    case EnvironmentField::NvrtcVersion: return nvrtc_version.has_value();
    case EnvironmentField::TemplateHash: return template_hashes.contains(family);
    case EnvironmentField::JitgemmVersion: return jitgemm_version.has_value();
  }
  return false;
}

Environments machine_environments(const TemplateStore& templates, std::optional<int> driver_version,
                                  std::optional<int> nvrtc_version, std::string jitgemm_version) {
  Environments out{driver_version, nvrtc_version, std::move(jitgemm_version), {}};
  for (KernelFamily family : kKernelFamilies) out.template_hashes[family] = family_template_hash(templates, family);
  return out;
}

std::string to_string(const StaleField& f) { return fmt::format("{} {} -> {}", to_string(f.field), f.recorded, f.current); }

std::string to_string(const std::vector<StaleField>& fields) {
  if (fields.empty()) return "no";
  std::vector<std::string> lines;
  for (const StaleField& f : fields) lines.push_back(to_string(f));
  return fmt::format("{}", fmt::join(lines, ", "));
}

std::vector<StaleField> staleness(const TuningRecord& record, const Environments& now) {
  const EnvironmentKey& was = record.environment;
  std::vector<StaleField> out;
  compare(out, EnvironmentField::DriverVersion, was.driver_version, now.driver_version);
  compare(out, EnvironmentField::NvrtcVersion, was.nvrtc_version, now.nvrtc_version);
  compare(out, EnvironmentField::TemplateHash, was.template_hash, hash_of(now, record.config.family()));
  compare(out, EnvironmentField::JitgemmVersion, was.jitgemm_version, now.jitgemm_version);
  return out;
}

std::vector<StaleRecord> stale_records(const std::vector<TuningRecord>& records, const DeviceKey& device,
                                       const Environments& now) {
  std::vector<StaleRecord> out;
  for (const TuningRecord& r : records) {
    if (!(r.device == device)) continue;
    if (std::vector<StaleField> fields = staleness(r, now); !fields.empty()) out.push_back({r.problem, std::move(fields)});
  }
  return out;
}

}  // namespace jitgemm
