// Reading a tuning-database file of any known schema (see database_document.hpp).
#include "database/database_document.hpp"

#include <algorithm>
#include <limits>
#include <numeric>
#include <optional>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "database/file_errors.hpp"
#include "database/json_cursor.hpp"
#include "database/json_document.hpp"
#include "database/json_reader.hpp"
#include "database/printable_text.hpp"
#include "database/record_checksum.hpp"
#include "database/record_json.hpp"
#include "database/record_reader.hpp"
#include "database/schema_migration.hpp"
#include "database/tuning_database.hpp"

namespace jitgemm {
namespace {

using nlohmann::json;

constexpr int kCurrent = TuningDatabase::kSchemaVersion;
constexpr int kFirstCompact = TuningDatabase::kFirstCompactSchema;

// ---- schema 4-5 ---------------------------------------------------------------------------

bool is_compact(std::optional<int64_t> version) {
  return version && *version >= kFirstCompact && *version <= kCurrent;
}

// The top-level "schema_version" when the text is an object that has an integer one (the
// members before it skipped); nullopt otherwise (the tree reader then says what is wrong).
std::optional<int64_t> probe_schema_version(std::string_view text) {
  JsonCursor in(text);
  try {
    in.begin_object();
    std::string_view key;
    while (in.next_member(key)) {
      if (key != "schema_version") {
        in.skip();
        continue;
      }
      if (!in.integer_next()) return std::nullopt;
      return in.integer(std::numeric_limits<int64_t>::min(), std::numeric_limits<int64_t>::max());
    }
  } catch (const FieldError&) {
  }
  return std::nullopt;
}

// records[i], its checksum verified.
TuningRecord read_checked_record(JsonCursor& in, size_t i, std::string_view source, ConfigNameCache& names) {
  const size_t byte = in.byte();
  std::string stored;
  TuningRecord record = read_record(in, &stored, names);
  if (!is_checksum_text(stored))
    throw FieldError("checksum", fmt::format("expected 32 lower-case hex digits, got \"{}\"", printable(stored)))
        .at_byte(byte);
  if (const std::string computed = record_checksum(record); computed != stored)
    throw DatabaseError(fmt::format(
        "{}: records[{}] ({}): checksum: the record hashes to {}, not to the {} stored with it (it was changed "
        "after it was written) (at byte {})",
        source, i, printable(record.key()), computed, stored, byte));
  return record;
}

std::vector<TuningRecord> read_current(std::string_view text, std::string_view source) {
  static constexpr std::string_view kTopFields[] = {"schema_version", "records"};
  JsonCursor in(text);
  ConfigNameCache names;
  std::vector<TuningRecord> records;
  try {
    read_members(in, kTopFields, 0, [&](size_t i) {
      if (i == 0) {
        in.integer(kFirstCompact, kCurrent);  // as probed
        return;
      }
      read_elements(in, [&](size_t r) { records.push_back(read_checked_record(in, r, source, names)); });
    });
    in.expect_end();
  } catch (const FieldError& e) {
    throw DatabaseError(located_message(source, e));
  }
  return records;
}

// ---- schema 1-3 ---------------------------------------------------------------------------

// The file's schema version: 1..3 (read through the migrations); 4 and 5 cannot get here.
int read_schema_version(const json& j, std::string_view source) {
  if (!j.is_object())
    throw DatabaseError(fmt::format("{}: expected a JSON object at the top level, got {}", source,
                                    json_reader::type_name(j)));
  auto it = j.find("schema_version");
  if (it == j.end()) throw DatabaseError(fmt::format("{}: schema_version: missing", source));
  if (!it->is_number_integer())
    throw DatabaseError(fmt::format("{}: schema_version: expected integer {}, got {}", source, kCurrent,
                                    printable(it->dump(-1, ' ', false, json::error_handler_t::replace))));
  const int64_t version = it->get<int64_t>();
  if (version > kCurrent)
    throw NewerSchemaError(fmt::format(
        "{}: schema_version: expected {}, got {} (written by a newer jitgemm; this version will not modify it)",
        source, kCurrent, version));
  if (version < 1) throw DatabaseError(fmt::format("{}: schema_version: expected 1..{}, got {}", source, kCurrent, version));
  return static_cast<int>(version);
}

const json& records_array(const json& j, std::string_view source) {
  for (auto it = j.begin(); it != j.end(); ++it)
    if (it.key() != "schema_version" && it.key() != "records")
      throw DatabaseError(fmt::format("{}: {}: unknown field", source, printable(it.key())));
  auto it = j.find("records");
  if (it == j.end()) throw DatabaseError(fmt::format("{}: records: missing", source));
  if (!it->is_array())
    throw DatabaseError(fmt::format("{}: records: expected array, got {}", source, json_reader::type_name(*it)));
  return *it;
}

// Schema 3 records carry their checksum; those of older files are read unchecked.
enum class Checksums { Verified, Absent };

LegacyRecord read_legacy_record(const json& item, size_t i, Checksums checksums, std::string_view source) {
  LegacyRecord record;
  std::string stored;
  try {
    from_json(item, record);
    if (checksums == Checksums::Verified) {
      stored = json_reader::read_string(item, "checksum");
      if (!is_checksum_text(stored))
        throw FieldError("checksum", fmt::format("expected 32 lower-case hex digits, got \"{}\"", printable(stored)));
    }
  } catch (const FieldError& e) {
    throw DatabaseError(fmt::format("{}: records[{}]{}{}: {}", source, i, e.path().empty() ? "" : ".", e.path(),
                                    e.problem()));
  }
  if (checksums == Checksums::Verified) {
    if (const std::string computed = record_checksum(item); computed != stored)
      throw DatabaseError(fmt::format(
          "{}: records[{}] ({}): checksum: the record hashes to {}, not to the {} stored with it (it was changed "
          "after it was written)",
          source, i, printable(record.record.key()), computed, stored));
  }
  return record;
}

DatabaseDocument read_legacy(json document, std::string_view source, LegacyTables tables) {
  DatabaseDocument out;
  out.schema_version = read_schema_version(document, source);
  if (out.schema_version >= kFirstCompact)
    throw DatabaseError(fmt::format("{}: schema_version: {} must be a member of the top-level object, read before "
                                    "its records",
                                    source, out.schema_version));
  try {
    if (out.schema_version == 1) document = migrate_v1_to_v2(document);
    if (out.schema_version <= 2) document = migrate_v2_to_v3(std::move(document));
  } catch (const FieldError& e) {
    throw DatabaseError(fmt::format("{}: {}: {} (schema {})", source, e.path(), e.problem(), out.schema_version));
  }
  const Checksums checksums = out.schema_version >= 3 ? Checksums::Verified : Checksums::Absent;
  const json& items = records_array(document, source);
  out.records.reserve(items.size());
  for (size_t i = 0; i < items.size(); ++i) {
    LegacyRecord legacy = read_legacy_record(items[i], i, checksums, source);
    if (tables == LegacyTables::Keep && !legacy.candidates.empty())
      out.tables.push_back({legacy.record.key(), legacy.record.tuned_at, std::move(legacy.candidates)});
    out.records.push_back(std::move(legacy.record));
  }
  return out;
}

// Sorts by key (a file written by a writer is sorted already) and rejects a key twice.
void sort_by_key(DatabaseDocument& doc, std::string_view source) {
  doc.keys.clear();
  doc.keys.reserve(doc.records.size());
  for (const TuningRecord& r : doc.records) doc.keys.push_back(r.key());
  if (!std::is_sorted(doc.keys.begin(), doc.keys.end())) {
    std::vector<size_t> order(doc.records.size());
    std::iota(order.begin(), order.end(), size_t{0});
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return doc.keys[a] < doc.keys[b]; });
    std::vector<TuningRecord> records;
    std::vector<std::string> keys;
    records.reserve(order.size());
    keys.reserve(order.size());
    for (size_t i : order) {
      records.push_back(std::move(doc.records[i]));
      keys.push_back(std::move(doc.keys[i]));
    }
    doc.records = std::move(records);
    doc.keys = std::move(keys);
  }
  if (const auto dup = std::adjacent_find(doc.keys.begin(), doc.keys.end()); dup != doc.keys.end())
    throw DatabaseError(fmt::format("{}: records: duplicate key \"{}\"", source, printable(*dup)));
}

}  // namespace

DatabaseDocument read_database_text(std::string_view text, std::string_view source, LegacyTables tables) {
  DatabaseDocument doc;
  if (const std::optional<int64_t> version = probe_schema_version(text); is_compact(version)) {
    doc.schema_version = static_cast<int>(*version);
    doc.records = read_current(text, source);
  } else {
    doc = read_legacy(parse_json_document(text, source), source, tables);
  }
  sort_by_key(doc, source);
  return doc;
}

DatabaseDocument read_database_json(const json& document, std::string_view source, LegacyTables tables) {
  if (document.is_object() && document.contains("schema_version") && document["schema_version"].is_number_integer() &&
      is_compact(document["schema_version"].get<int64_t>()))
    return read_database_text(document.dump(-1, ' ', false, json::error_handler_t::replace), source, tables);
  DatabaseDocument doc = read_legacy(document, source, tables);
  sort_by_key(doc, source);
  return doc;
}

}  // namespace jitgemm
