// Reading a tuning-database file's text, any schema this version knows, into current
// records: the first step of TuningDatabase::parse and of its locked writers.
//
//   Schema 4-5: read straight from the text (record_reader.hpp), each record's checksum
//             (record_checksum(const TuningRecord&)) verified (5 adds a record's optional
//             "tune_s").
//   Schema 1-3: parsed to a JSON tree (json_document.hpp), migrated to schema 3
//             (schema_migration.hpp), each record read (record_json.hpp: LegacyRecord) and a
//             schema-3 record's checksum verified on its JSON; the candidates each record listed
//             come back as `tables`, for the writers to keep in the history file.
//
// Which path: the text is read as schema 4-5 when its top-level object's "schema_version" is 4
// or 5 (in any member order); anything else goes the schema 1-3 way, which also reports what is
// wrong with a file that is not JSON, has no version, or has a newer one. Errors are
// DatabaseErrors naming the file and the position; NewerSchemaError (file_errors.hpp) for a
// file of a newer schema.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "database/candidate_history.hpp"
#include "database/tuning_record.hpp"

namespace jitgemm {

struct DatabaseDocument {
  int schema_version = 0;                // of the file as read
  std::vector<TuningRecord> records;     // sorted by key(), keys unique
  std::vector<std::string> keys;         // records[i].key()
  std::vector<CandidateHistory> tables;  // schema 1-3: the candidates each record listed (those
                                         // that listed any), when asked for
};

enum class LegacyTables { Keep, Drop };

DatabaseDocument read_database_text(std::string_view text, std::string_view source, LegacyTables tables);
// The same from a parsed document.
DatabaseDocument read_database_json(const nlohmann::json& document, std::string_view source, LegacyTables tables);

}  // namespace jitgemm
