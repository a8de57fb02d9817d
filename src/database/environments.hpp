// environments.hpp — this machine's software environment for records of each kernel family,
// and staleness(), the one comparison of a record's environment with it.
//
// A record remembers the driver, NVRTC, template hash and jitgemm version it was tuned with
// (EnvironmentKey). The template hash differs per family (each family has its template), so
// "this machine's environment" is one per family. A field this machine cannot know (the
// driver version where no CUDA driver loads: jitgemm-db on a machine without a GPU) is left
// empty and not compared: it never makes a record stale, and explain says it is not known.
//
//   Environments now = machine_environments(TemplateStore::active(), driver, nvrtc_version(), "0.1.0");
//   for (const StaleField& f : staleness(record, now)) log(to_string(f));  // "nvrtc_version 12080 -> 13000"
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "codegen/kernel_config.hpp"
#include "codegen/template_store.hpp"
#include "database/tuning_record.hpp"

namespace jitgemm {

// The fields of an EnvironmentKey, in its order.
enum class EnvironmentField { DriverVersion, NvrtcVersion, TemplateHash, JitgemmVersion };

std::string_view to_string(EnvironmentField field) noexcept;  // "driver_version", ... (the JSON names)

struct Environments {
  std::optional<int> driver_version;           // cuDriverGetVersion; empty: not known here
  std::optional<int> nvrtc_version;            // nvrtcVersion; empty: not known here
  std::optional<std::string> jitgemm_version;  // empty: not known here
  std::map<KernelFamily, std::string> template_hashes;  // a family absent: its hash not known

  // Whether `field` is compared for a record of `family`.
  bool known(EnvironmentField field, KernelFamily family) const;

  friend bool operator==(const Environments&, const Environments&) = default;
};

// This machine's: the given driver and NVRTC versions (empty: none loaded) and jitgemm version
// for every family, and for each family of kKernelFamilies
// family_template_hash(templates, family), the hash render_kernel gives its kernels (no kernel is
// rendered).
Environments machine_environments(const TemplateStore& templates, std::optional<int> driver_version,
                                  std::optional<int> nvrtc_version, std::string jitgemm_version);

// One field in which a record's environment differs from this machine's.
struct StaleField {
  EnvironmentField field = EnvironmentField::DriverVersion;
  std::string recorded;  // the record's value, as text
  std::string current;   // this machine's

  friend bool operator==(const StaleField&, const StaleField&) = default;
};

std::string to_string(const StaleField& f);  // "driver_version 12080 -> 13000"
// The fields joined with ", ", or "no" when there are none.
std::string to_string(const std::vector<StaleField>& fields);

// The known fields of `now` (for the record's family) that differ from the record's
// environment, in EnvironmentField order; empty: the record is current. A stale record is
// still served (and counted); re-tune to refresh it.
std::vector<StaleField> staleness(const TuningRecord& record, const Environments& now);

// A record of `device` that staleness() flags, and why.
struct StaleRecord {
  ProblemKey problem;
  std::vector<StaleField> fields;
};
// The records of `device` among `records` that are stale against `now`, in their order: what
// jitgemm-tune --stale re-tunes.
std::vector<StaleRecord> stale_records(const std::vector<TuningRecord>& records, const DeviceKey& device,
                                       const Environments& now);

}  // namespace jitgemm
