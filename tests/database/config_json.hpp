// KernelConfig <-> JSON helpers shared by the config JSON tests of every kernel family.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "database/json_reader.hpp"
#include "database/record_json.hpp"
#include "database/tuning_record.hpp"

namespace jitgemm::testing {

// The KernelConfig a JSON object loads as (throws FieldError like the database does).
inline KernelConfig config_from(const nlohmann::json& j) {
  KernelConfig c;
  from_json(j, c);
  return c;
}

// The FieldError message for `base`'s JSON after `edit`, or "" when it loads.
template <class Edit>
std::string field_error_after(const KernelConfig& base, Edit edit) {
  nlohmann::json j = base;
  edit(j);
  try {
    config_from(j);
  } catch (const FieldError& e) {
    return e.what();
  }
  return "";
}

}  // namespace jitgemm::testing
