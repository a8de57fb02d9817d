// TuningDatabase: validation on load, the sorted record set, locked atomic saves and
// merge (the record match lives in tuning_database_match.cpp).
#include "database/tuning_database.hpp"

#include <algorithm>
#include <chrono>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "database/atomic_file.hpp"
#include "database/json_document.hpp"
#include "database/json_reader.hpp"
#include "database/printable_text.hpp"
#include "database/record_checksum.hpp"
#include "database/schema_migration.hpp"
#include "jitgemm/error.hpp"

namespace jitgemm {

using nlohmann::json;

namespace {

// A readable file written by a newer jitgemm: never moved aside or replaced.
class NewerSchemaError : public DatabaseError {
 public:
  using DatabaseError::DatabaseError;
};

// The file's schema version: 1 or 2 (read through the migrations) or the current one.
int read_schema_version(const json& j, std::string_view source) {
  if (!j.is_object())
    throw DatabaseError(fmt::format("{}: expected a JSON object at the top level, got {}", source,
                                    json_reader::type_name(j)));
  auto it = j.find("schema_version");
  if (it == j.end()) throw DatabaseError(fmt::format("{}: schema_version: missing", source));
  if (!it->is_number_integer())
    throw DatabaseError(fmt::format("{}: schema_version: expected integer {}, got {}", source,
                                    TuningDatabase::kSchemaVersion,
                                    printable(it->dump(-1, ' ', false, json::error_handler_t::replace))));
  int64_t version = it->get<int64_t>();
  if (version > TuningDatabase::kSchemaVersion)
    throw NewerSchemaError(fmt::format(
        "{}: schema_version: expected {}, got {} (written by a newer jitgemm; this version will not modify it)",
        source, TuningDatabase::kSchemaVersion, version));
  if (version < 1)
    throw DatabaseError(fmt::format("{}: schema_version: expected 1..{}, got {}", source,
                                    TuningDatabase::kSchemaVersion, version));
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

bool key_less(const TuningRecord& r, std::string_view key) { return r.key() < key; }

// The date a record competes with in a merge: its tuned_at, or the earliest date ("") when
// that lies in the future, so that a date nobody tuned at wins nothing.
std::string_view merge_date(const TuningRecord& r, std::chrono::system_clock::time_point now) {
  return is_future_dated(r, now) ? std::string_view() : std::string_view(r.tuned_at);
}

// True when `x` should win over `y` (same key) in a merge.
bool preferred(const TuningRecord& x, const TuningRecord& y, std::chrono::system_clock::time_point now) {
  const std::string_view x_date = merge_date(x, now), y_date = merge_date(y, now);
  if (x_date != y_date) return x_date > y_date;
  if (x.timing.median_ms != y.timing.median_ms) return x.timing.median_ms < y.timing.median_ms;
  return json(x).dump(-1, ' ', false, json::error_handler_t::replace) <
         json(y).dump(-1, ' ', false, json::error_handler_t::replace);
}

// Schema 3 records carry their checksum; those of older files are read unchecked.
enum class Checksums { Verified, Absent };

// records[i] of a document already in the current schema.
TuningRecord read_record(const json& item, size_t i, Checksums checksums, std::string_view source) {
  TuningRecord record;
  std::string stored;
  try {
    jitgemm::from_json(item, record);
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
          source, i, printable(record.key()), computed, stored));
  }
  return record;
}

// The records of a parsed file of any schema this version reads, sorted by key, keys unique.
std::vector<TuningRecord> read_document(json document, std::string_view source) {
  const int version = read_schema_version(document, source);
  try {
    if (version == 1) document = migrate_v1_to_v2(document);
    if (version <= 2) document = migrate_v2_to_v3(std::move(document));
  } catch (const FieldError& e) {
    throw DatabaseError(fmt::format("{}: {}: {} (schema {})", source, e.path(), e.problem(), version));
  }
  const Checksums checksums = version >= 3 ? Checksums::Verified : Checksums::Absent;
  const json& items = records_array(document, source);
  std::vector<TuningRecord> records;
  records.reserve(items.size());
  for (size_t i = 0; i < items.size(); ++i) records.push_back(read_record(items[i], i, checksums, source));
  std::stable_sort(records.begin(), records.end(),
                   [](const TuningRecord& a, const TuningRecord& b) { return a.key() < b.key(); });
  auto dup = std::adjacent_find(records.begin(), records.end(),
                                [](const TuningRecord& a, const TuningRecord& b) { return a.key() == b.key(); });
  if (dup != records.end())
    throw DatabaseError(fmt::format("{}: records: duplicate key \"{}\"", source, printable(dup->key())));
  return records;
}

// A record as the file holds it: its fields and its checksum.
json stored_record(const TuningRecord& record) {
  json fields = record;
  std::string checksum = record_checksum(fields);
  fields["checksum"] = std::move(checksum);
  return fields;
}

// "20250131T120000Z": the timestamp in a damaged file's new name (no ':' in file names).
std::string compact_utc_now() {
  std::string stamp = format_utc_timestamp(std::chrono::system_clock::now());
  std::erase(stamp, '-');
  std::erase(stamp, ':');
  return stamp;
}

}  // namespace

TuningDatabase TuningDatabase::load(const std::filesystem::path& path) {
  std::optional<std::string> text = read_file_if_exists(path);
  if (!text) return {};
  return parse(*text, path.string());
}

TuningDatabase TuningDatabase::parse(std::string_view text, std::string_view source_name) {
  TuningDatabase db;
  db.records_ = read_document(parse_json_document(text, source_name), source_name);
  return db;
}

TuningDatabase TuningDatabase::from_json(const json& j, std::string_view source_name) {
  TuningDatabase db;
  db.records_ = read_document(j, source_name);
  return db;
}

json TuningDatabase::to_json() const {
  json records = json::array();
  for (const TuningRecord& record : records_) records.push_back(stored_record(record));
  return json{{"schema_version", kSchemaVersion}, {"records", std::move(records)}};
}

std::string TuningDatabase::dump() const {
  // Reading order: what the record is about first, the long candidate list last.
  static constexpr std::string_view kRecordFields[] = {"problem",     "device",   "config",   "timing",
                                                       "tflops",      "accuracy", "environment", "tuned_at",
                                                       "checksum",    "candidate_count", "candidates"};
  nlohmann::ordered_json top;
  top["schema_version"] = kSchemaVersion;
  nlohmann::ordered_json& records = top["records"] = nlohmann::ordered_json::array();
  for (const TuningRecord& record : records_) {
    const json fields = stored_record(record);
    nlohmann::ordered_json ordered;
    for (std::string_view field : kRecordFields) ordered[std::string(field)] = fields.at(std::string(field));
    records.push_back(std::move(ordered));
  }
  return top.dump(2, ' ', false, json::error_handler_t::replace) + "\n";
}

void TuningDatabase::upsert(TuningRecord record) {
  std::string key = record.key();
  auto it = std::lower_bound(records_.begin(), records_.end(), key, key_less);
  if (it != records_.end() && it->key() == key)
    *it = std::move(record);
  else
    records_.insert(it, std::move(record));
}

bool TuningDatabase::erase(std::string_view key) {
  auto it = std::lower_bound(records_.begin(), records_.end(), key, key_less);
  if (it == records_.end() || it->key() != key) return false;
  records_.erase(it);
  return true;
}

const TuningRecord* TuningDatabase::find(std::string_view key) const {
  auto it = std::lower_bound(records_.begin(), records_.end(), key, key_less);
  return it != records_.end() && it->key() == key ? &*it : nullptr;
}

SaveReport TuningDatabase::update(const std::filesystem::path& link_or_path,
                                  const std::function<void(TuningDatabase&)>& edit,
                                  DamagedFilePolicy on_damaged) {
  // Through a symbolic link, the file it names is read, moved aside and replaced; the link stays.
  const std::filesystem::path path = resolve_links(link_or_path);
  FileLock lock(lock_path_for(path));
  remove_stale_temp_files(path);  // a killed writer's, never a live one's (we hold the lock)
  SaveReport report;
  TuningDatabase db;
  if (std::optional<std::string> text = read_file_if_exists(path)) {
    try {
      db = parse(*text, path.string());
    } catch (const NewerSchemaError&) {
      throw;
    } catch (const DatabaseError& e) {
      if (on_damaged == DamagedFilePolicy::Throw) throw;
      report.moved_aside = move_aside(path, compact_utc_now());
      report.warning = fmt::format("{} (moved the damaged file aside to {} and started a new database)",
                                   e.what(), report.moved_aside->string());
    }
  }
  edit(db);
  for (const TuningRecord& record : db.records_) validate_record(record);
  write_file_atomically(path, db.dump());
  report.written = static_cast<int>(db.size());
  return report;
}

SaveReport TuningDatabase::save_merged(const std::filesystem::path& path, const std::vector<TuningRecord>& records) {
  for (const TuningRecord& record : records) validate_record(record);  // before touching the file
  SaveReport report = update(
      path,
      [&](TuningDatabase& db) {
        for (const TuningRecord& record : records) db.upsert(record);
      },
      DamagedFilePolicy::MoveAside);
  report.written = static_cast<int>(records.size());
  return report;
}

void TuningDatabase::save(const std::filesystem::path& path) const {
  for (const TuningRecord& record : records_) validate_record(record);
  FileLock lock(lock_path_for(path));
  remove_stale_temp_files(resolve_links(path));
  write_file_atomically(path, dump());
}

TuningDatabase TuningDatabase::merge(const TuningDatabase& a, const TuningDatabase& b,
                                     std::chrono::system_clock::time_point now) {
  TuningDatabase out = a;
  for (const TuningRecord& record : b.records_) {
    const TuningRecord* existing = out.find(record.key());
    if (existing == nullptr || preferred(record, *existing, now)) out.upsert(record);
  }
  return out;
}

}  // namespace jitgemm
