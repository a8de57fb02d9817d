// TuningDatabase: validation on load, the sorted record set, locked atomic saves and
// merge (the record match lives in tuning_database_match.cpp).
#include "database/tuning_database.hpp"

#include <algorithm>
#include <chrono>
#include <set>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "database/atomic_file.hpp"
#include "database/json_reader.hpp"
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

// nlohmann messages start with "[json.exception.parse_error.101] "; keep the rest.
std::string without_exception_tag(const char* what) {
  std::string_view text(what);
  size_t end = text.find("] ");
  return std::string(text.front() == '[' && end != std::string_view::npos ? text.substr(end + 2) : text);
}

// The file's schema version: 1 (read through migrate_v1_to_v2) or the current one.
int read_schema_version(const json& j, std::string_view source) {
  if (!j.is_object())
    throw DatabaseError(fmt::format("{}: expected a JSON object at the top level, got {}", source,
                                    json_reader::type_name(j)));
  auto it = j.find("schema_version");
  if (it == j.end()) throw DatabaseError(fmt::format("{}: schema_version: missing", source));
  if (!it->is_number_integer())
    throw DatabaseError(fmt::format("{}: schema_version: expected integer {}, got {}", source,
                                    TuningDatabase::kSchemaVersion, it->dump()));
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
      throw DatabaseError(fmt::format("{}: {}: unknown field", source, it.key()));
  auto it = j.find("records");
  if (it == j.end()) throw DatabaseError(fmt::format("{}: records: missing", source));
  if (!it->is_array())
    throw DatabaseError(fmt::format("{}: records: expected array, got {}", source, json_reader::type_name(*it)));
  return *it;
}

bool key_less(const TuningRecord& r, std::string_view key) { return r.key() < key; }

// True when `x` should win over `y` (same key) in a merge.
bool preferred(const TuningRecord& x, const TuningRecord& y) {
  if (x.tuned_at != y.tuned_at) return x.tuned_at > y.tuned_at;
  if (x.timing.median_ms != y.timing.median_ms) return x.timing.median_ms < y.timing.median_ms;
  return json(x).dump() < json(y).dump();
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
  json j;
  // Duplicate keys are damage (the JSON library would keep the last silently): the keys of
  // each open object, checked as they are parsed.
  std::vector<std::set<std::string>> keys;
  std::string duplicate;
  auto check_keys = [&](int, json::parse_event_t event, json& parsed) {
    if (event == json::parse_event_t::object_start) keys.emplace_back();
    if (event == json::parse_event_t::object_end && !keys.empty()) keys.pop_back();
    if (event == json::parse_event_t::key && !keys.empty() && !keys.back().insert(parsed.get<std::string>()).second &&
        duplicate.empty())
      duplicate = parsed.get<std::string>();
    return true;
  };
  try {
    j = json::parse(text, check_keys);
  } catch (const json::parse_error& e) {
    throw DatabaseError(fmt::format("{}: invalid JSON at byte {}: {}", source_name, e.byte,
                                    without_exception_tag(e.what())));
  } catch (const json::exception& e) {  // e.g. a number beyond double's range (1e400)
    throw DatabaseError(fmt::format("{}: invalid JSON: {}", source_name, without_exception_tag(e.what())));
  }
  if (!duplicate.empty())
    throw DatabaseError(fmt::format("{}: duplicate key \"{}\" in one object (the file is damaged)", source_name,
                                    duplicate));
  return from_json(j, source_name);
}

TuningDatabase TuningDatabase::from_json(const json& j, std::string_view source_name) {
  if (read_schema_version(j, source_name) == 1) {
    json migrated;
    try {
      migrated = migrate_v1_to_v2(j);
    } catch (const FieldError& e) {
      throw DatabaseError(fmt::format("{}: {}: {} (schema 1)", source_name, e.path(), e.problem()));
    }
    return from_json(migrated, source_name);
  }
  const json& records = records_array(j, source_name);
  TuningDatabase db;
  db.records_.reserve(records.size());
  for (size_t i = 0; i < records.size(); ++i) {
    TuningRecord record;
    try {
      jitgemm::from_json(records[i], record);
    } catch (const FieldError& e) {
      throw DatabaseError(fmt::format("{}: records[{}]{}{}: {}", source_name, i, e.path().empty() ? "" : ".",
                                      e.path(), e.problem()));
    }
    db.records_.push_back(std::move(record));
  }
  std::stable_sort(db.records_.begin(), db.records_.end(),
                   [](const TuningRecord& a, const TuningRecord& b) { return a.key() < b.key(); });
  auto dup = std::adjacent_find(db.records_.begin(), db.records_.end(),
                                [](const TuningRecord& a, const TuningRecord& b) { return a.key() == b.key(); });
  if (dup != db.records_.end())
    throw DatabaseError(fmt::format("{}: records: duplicate key \"{}\"", source_name, dup->key()));
  return db;
}

json TuningDatabase::to_json() const {
  return json{{"schema_version", kSchemaVersion}, {"records", records_}};
}

std::string TuningDatabase::dump() const {
  // Reading order: what the record is about first, the long candidate list last.
  static constexpr std::string_view kRecordFields[] = {"problem", "device", "config", "timing", "tflops",
                                                       "accuracy", "environment", "tuned_at",
                                                       "candidate_count", "candidates"};
  nlohmann::ordered_json top;
  top["schema_version"] = kSchemaVersion;
  nlohmann::ordered_json& records = top["records"] = nlohmann::ordered_json::array();
  for (const TuningRecord& record : records_) {
    json fields = record;
    nlohmann::ordered_json ordered;
    for (std::string_view field : kRecordFields) ordered[std::string(field)] = fields.at(std::string(field));
    records.push_back(std::move(ordered));
  }
  return top.dump(2) + "\n";
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

TuningDatabase TuningDatabase::merge(const TuningDatabase& a, const TuningDatabase& b) {
  TuningDatabase out = a;
  for (const TuningRecord& record : b.records_) {
    const TuningRecord* existing = out.find(record.key());
    if (existing == nullptr || preferred(record, *existing)) out.upsert(record);
  }
  return out;
}

}  // namespace jitgemm
