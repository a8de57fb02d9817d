// schema_migration.hpp — the one conversion between tuning-database schemas: version 1 (a
// KernelConfig as one flat object of 21 integers shared by every family) to version 2 (the
// tile, and the family's own typed parameters under "params"; tuning_record.cpp reads it).
//
//   json document = json::parse(text);
//   if (version == 1) document = migrate_v1_to_v2(document);   // then read as version 2
#pragma once

#include <nlohmann/json.hpp>

namespace jitgemm {

// A schema-1 config object as schema 2. A field the config's family does not read must hold
// its schema-1 default (FieldError naming it otherwise, as schema 1's validity rules required);
// the register-A flags become the enums (a: planes / registers / registers_truncated,
// b: planes / converted / transformed, schedule: data_parallel / stream_k). Fields that are
// not what schema 1 allowed raise FieldError with their name; values are range-checked later,
// by the schema-2 reader.
nlohmann::json migrate_config_v1(const nlohmann::json& v1);

// Every config of a schema-1 document (each record's config and its candidates' configs) as
// schema 2, and schema_version 2. Parts that are not shaped as schema 1 expects are left for
// the schema-2 reader to report. FieldError paths start at the record: "records[3].config.a_round".
nlohmann::json migrate_v1_to_v2(const nlohmann::json& document);

}  // namespace jitgemm
