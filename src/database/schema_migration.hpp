// schema_migration.hpp — the conversions between tuning-database schemas 1 to 3, applied in
// memory on load (a file is never rewritten by reading it; the next save writes the current
// schema); 3 -> 4 (a record's full candidate list ranked into its top candidates and counted
// by outcome, the list kept for the history file) is record_json.hpp's LegacyRecord:
//   1 -> 2: a KernelConfig as one flat object of 21 integers shared by every family becomes the
//           tile and the family's own typed parameters under "params" (tuning_record.cpp reads it);
//   2 -> 3: every record gains "checksum" (database/record_checksum.hpp). A schema-2 record has
//           nothing to check against: it is read unchecked, and the next save writes it with its
//           checksum. So a file of schema 1 or 2 (the shipped records of earlier releases) loads
//           as before; a schema-3 record without a checksum, or with one that does not match, is
//           damage.
//
//   json document = json::parse(text);
//   if (version == 1) document = migrate_v1_to_v2(document);
//   if (version <= 2) document = migrate_v2_to_v3(document);   // then read as version 3
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

// A schema-2 document as schema 3: schema_version 3, records as they are (no checksum: the reader
// is told to read them unchecked, see TuningDatabase::from_json). A schema-2 record that holds a
// "checksum" member raises FieldError ("records[3].checksum: unknown field in schema 2"): only
// schema 3 has one.
nlohmann::json migrate_v2_to_v3(nlohmann::json document);

}  // namespace jitgemm
