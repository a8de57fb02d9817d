// TuningDatabase: loading (database_document.hpp reads the text), the sorted record set,
// locked atomic saves that carry the history file along, and merge (the record match lives
// in tuning_database_match.cpp).
#include "database/tuning_database.hpp"

#include <algorithm>
#include <chrono>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "database/atomic_file.hpp"
#include "database/database_document.hpp"
#include "database/file_errors.hpp"
#include "database/record_checksum.hpp"
#include "database/record_text.hpp"
#include "jitgemm/error.hpp"

namespace jitgemm {

using nlohmann::json;

namespace {

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
  return record_text(x, RecordLayout::Compact) < record_text(y, RecordLayout::Compact);
}

// "20250131T120000Z": the timestamp in a damaged file's new name (no ':' in file names).
std::string compact_utc_now() {
  std::string stamp = format_utc_timestamp(std::chrono::system_clock::now());
  std::erase(stamp, '-');
  std::erase(stamp, ':');
  return stamp;
}

void add_warning(SaveReport& report, const std::string& warning) {
  report.warning += report.warning.empty() ? warning : "; " + warning;
}

// The history beside `path`, read under the lock. Damaged: moved aside (the report says so)
// and an empty one returned. Written by a newer jitgemm: left alone (`writable` false).
TuningHistory read_history_for_update(const std::filesystem::path& history_path, SaveReport& report, bool& exists,
                                      bool& writable) {
  writable = true;
  std::optional<std::string> text;
  try {
    text = read_file_if_exists(history_path);
  } catch (const DatabaseError& e) {  // unreadable, or past the size cap
    exists = true;
    writable = false;
    add_warning(report, fmt::format("{} (the history was left as it is and not updated)", e.what()));
    return {};
  }
  exists = text.has_value();
  if (!text) return {};
  try {
    return TuningHistory::parse(*text, history_path.string());
  } catch (const NewerSchemaError& e) {
    writable = false;
    add_warning(report, fmt::format("{}; the candidate tables of these records were not added to it", e.what()));
  } catch (const DatabaseError& e) {
    report.history_moved_aside = move_aside(history_path, compact_utc_now());
    add_warning(report, fmt::format("{} (moved the damaged history aside to {} and started a new one)", e.what(),
                                    report.history_moved_aside->string()));
  }
  return {};
}

}  // namespace

TuningDatabase TuningDatabase::load(const std::filesystem::path& path) {
  std::optional<std::string> text = read_file_if_exists(path);
  if (!text) return {};
  return parse(*text, path.string());
}

LoadedDatabase TuningDatabase::load_with_tables(const std::filesystem::path& path) {
  LoadedDatabase out;
  std::optional<std::string> text = read_file_if_exists(path);
  if (!text) return out;
  DatabaseDocument doc = read_database_text(*text, path.string(), LegacyTables::Keep);
  out.database.records_ = std::move(doc.records);
  out.database.keys_ = std::move(doc.keys);
  out.schema_version = doc.schema_version;
  out.tables = std::move(doc.tables);
  return out;
}

TuningDatabase TuningDatabase::parse(std::string_view text, std::string_view source_name) {
  DatabaseDocument doc = read_database_text(text, source_name, LegacyTables::Drop);
  TuningDatabase db;
  db.records_ = std::move(doc.records);
  db.keys_ = std::move(doc.keys);
  return db;
}

TuningDatabase TuningDatabase::from_json(const json& j, std::string_view source_name) {
  DatabaseDocument doc = read_database_json(j, source_name, LegacyTables::Drop);
  TuningDatabase db;
  db.records_ = std::move(doc.records);
  db.keys_ = std::move(doc.keys);
  return db;
}

json TuningDatabase::to_json() const { return json::parse(dump()); }

std::string TuningDatabase::dump() const {
  std::string out = fmt::format("{{\n  \"schema_version\": {},\n  \"records\": [", kSchemaVersion);
  out.reserve(records_.size() * 2400 + 64);
  for (size_t i = 0; i < records_.size(); ++i) {
    out += i == 0 ? "\n    " : ",\n    ";
    append_record_text(out, records_[i], RecordLayout::Pretty, record_checksum(records_[i]), 4);
  }
  out += records_.empty() ? "]\n}\n" : "\n  ]\n}\n";
  return out;
}

void TuningDatabase::upsert(TuningRecord record) {
  std::string key = record.key();
  auto it = std::lower_bound(keys_.begin(), keys_.end(), key);
  const auto at = records_.begin() + (it - keys_.begin());
  if (it != keys_.end() && *it == key) {
    *at = std::move(record);
  } else {
    records_.insert(at, std::move(record));
    keys_.insert(it, std::move(key));
  }
}

bool TuningDatabase::erase(std::string_view key) {
  auto it = std::lower_bound(keys_.begin(), keys_.end(), key);
  if (it == keys_.end() || *it != key) return false;
  records_.erase(records_.begin() + (it - keys_.begin()));
  keys_.erase(it);
  return true;
}

const TuningRecord* TuningDatabase::find(std::string_view key) const {
  auto it = std::lower_bound(keys_.begin(), keys_.end(), key);
  return it != keys_.end() && *it == key ? &records_[static_cast<size_t>(it - keys_.begin())] : nullptr;
}

SaveReport TuningDatabase::update(const std::filesystem::path& path, const std::function<void(TuningDatabase&)>& edit,
                                  DamagedFilePolicy on_damaged) {
  return update_with_history(
      path, [&](TuningDatabase& db, TuningHistory&) { edit(db); }, on_damaged);
}

SaveReport TuningDatabase::update_with_history(const std::filesystem::path& link_or_path,
                                               const std::function<void(TuningDatabase&, TuningHistory&)>& edit,
                                               DamagedFilePolicy on_damaged) {
  // Through a symbolic link, the file it names is read, moved aside and replaced; the link stays.
  const std::filesystem::path path = resolve_links(link_or_path);
  const std::filesystem::path history_path = history_path_for(path);
  FileLock lock(lock_path_for(path));  // guards the history too
  remove_stale_temp_files(path);       // a killed writer's, never a live one's (we hold the lock)
  remove_stale_temp_files(history_path);
  SaveReport report;
  TuningDatabase db;
  std::vector<CandidateHistory> tables;
  bool database_read = true;  // false: a damaged database was moved aside
  if (std::optional<std::string> text = read_file_if_exists(path)) {
    try {
      DatabaseDocument doc = read_database_text(*text, path.string(), LegacyTables::Keep);
      db.records_ = std::move(doc.records);
      db.keys_ = std::move(doc.keys);
      tables = std::move(doc.tables);
    } catch (const NewerSchemaError&) {
      throw;
    } catch (const DatabaseError& e) {
      if (on_damaged == DamagedFilePolicy::Throw) throw;
      report.moved_aside = move_aside(path, compact_utc_now());
      report.warning = fmt::format("{} (moved the damaged file aside to {} and started a new database)", e.what(),
                                   report.moved_aside->string());
      database_read = false;
    }
  }
  bool history_exists = false, history_writable = true;
  TuningHistory history = read_history_for_update(history_path, report, history_exists, history_writable);
  for (CandidateHistory& table : tables) history.insert(std::move(table));  // from a file of schema 1-3
  edit(db, history);
  for (const TuningRecord& record : db.records_) validate_record(record);
  // The entries of the records the database holds; after a damaged database was moved aside,
  // every entry (its records are in the file moved aside).
  if (database_read)
    history.retain_if([&](const CandidateHistory& e) {
      const TuningRecord* r = db.find(e.key);
      return r != nullptr && r->tuned_at == e.tuned_at;
    });
  if (history_writable && (history_exists || !history.empty())) {
    write_file_atomically(history_path, history.dump());  // first: the database never names a missing table
    report.history_entries = static_cast<int>(history.size());
  }
  write_file_atomically(path, db.dump());
  report.written = static_cast<int>(db.size());
  return report;
}

SaveReport TuningDatabase::save_merged(const std::filesystem::path& path, const std::vector<TuningRecord>& records,
                                       const std::vector<CandidateHistory>& histories) {
  for (const TuningRecord& record : records) validate_record(record);  // before touching the files
  for (const CandidateHistory& entry : histories) validate_history_entry(entry);
  SaveReport report = update_with_history(
      path,
      [&](TuningDatabase& db, TuningHistory& history) {
        for (const TuningRecord& record : records) db.upsert(record);
        for (const CandidateHistory& entry : histories) history.upsert(entry);
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
