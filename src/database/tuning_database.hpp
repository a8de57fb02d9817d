// The tuning database: TuningRecords sorted by key, loaded with full validation, looked
// up (exact, then nearest of the same kind, then none: match) and written atomically under an
// advisory lock so that concurrent tuners never lose each other's records.
//
// File format (schema 5): {"schema_version": 5, "records": [...]}, records sorted by key(),
// one member per line and each small object on one line (record_text.hpp), so diffs between
// two files stay readable. A record keeps its winner, the counts of its candidates by outcome
// and the kTopCandidates fastest; the full candidate tables go to the history file beside the
// database (candidate_history.hpp), which the writers below keep and load() never reads. Each
// record carries "checksum" (after tuned_at), the hash of its values (record_checksum.hpp),
// verified on every load. Schema 5 is schema 4 with the optional "tune_s" of a record (how long
// its tuning took): an older jitgemm, which knows 4, reports a file of 5 as newer instead of
// calling its records damaged. Files of schema 1-4 load too (database_document.hpp); a save
// writes 5.
//
// Dates in the future: a record whose tuned_at is later than now + 1 day (is_future_dated)
// loads, lists and serves like any other, but merge() does not believe its date: it competes
// as if it had none (the earliest date), so a record dated 9999 never overrides a real tuning,
// older or newer; jitgemm-db merge names each such record on stderr. (Clamping the date to
// "now" would still let it beat every tuning made before the merge.)
#pragma once

#include <chrono>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "database/candidate_history.hpp"
#include "database/tuning_record.hpp"

namespace jitgemm {

// The record nearest to a (device, problem): the search the serving policy
// (serving_policy.hpp) starts from. It knows nothing of environments or of the bound within
// which a nearest record may serve.
// Sibling: no record of this device for the problem, but one of a sibling device (another
// name, the same sm and SM count: an H100 SXM and an H200) for exactly this problem.
struct RecordMatch {
  enum class Rule { Exact, Sibling, Nearest, None };
  Rule rule = Rule::None;
  const TuningRecord* record = nullptr;  // null for None; valid until the database changes
  double distance = 0;                   // size_distance of a Nearest record (0 for Exact, Sibling)
  int device_records = 0;                // records of this device (name and sm), for messages
};

struct SaveReport {
  int written = 0;  // save_merged: records given; update: records in the file written
  std::optional<std::filesystem::path> moved_aside;  // where a damaged file was moved
  std::optional<std::filesystem::path> history_moved_aside;  // where a damaged history was moved
  int history_entries = -1;  // entries in the history file written; -1: none written
  std::string warning;       // says what happened to a damaged file or history, for the caller to show
};

// What update() does when the file on disk fails to load.
enum class DamagedFilePolicy { MoveAside, Throw };

// What a database file holds beside its records, for the tools that rewrite or merge files:
// the candidate tables of a file of schema 1-3 (its records listed them), which a writer moves
// into the history file.
struct LoadedDatabase;

class TuningDatabase {
 public:
  // 2: KernelConfig as its tile and the family's typed "params". 3: every record carries its
  // checksum. 4: a record keeps the counts by outcome and the top kTopCandidates candidates
  // (the full tables go to the history file). Files of schema 1-3 still load
  // (database_document.hpp: schema 1 and 2 through schema_migration.hpp, unchecked; each
  // record's list ranked and counted in memory); a save writes 4, checksums included.
  static constexpr int kSchemaVersion = 5;
  static constexpr int kFirstCompactSchema = 4;  // 4 and 5: the compact records, one reader

  // A missing file gives an empty database. Any other problem throws DatabaseError naming
  // the file and the position: the byte offset of a JSON syntax error, or the record
  // index and field path ("records[41].config.stages: expected 1..8, got 0 (at byte 51230)");
  // a record whose checksum does not match is named by index and key. Text quoted from the
  // file is escaped (printable_text.hpp). Never modifies the file; never reads the history.
  static TuningDatabase load(const std::filesystem::path& path);
  // The same checks on text or parsed JSON; `source_name` starts every message.
  static TuningDatabase parse(std::string_view text, std::string_view source_name);
  static TuningDatabase from_json(const nlohmann::json& j, std::string_view source_name);
  // load(), and from a file of schema 1-3 the candidate tables its records listed.
  static LoadedDatabase load_with_tables(const std::filesystem::path& path);

  nlohmann::json to_json() const;  // the parsed text of dump()
  std::string dump() const;         // the file's text (schema 5, checksums included) and a newline

  void upsert(TuningRecord record);  // replaces the record with the same key()
  bool erase(std::string_view key);  // false when absent
  const std::vector<TuningRecord>& records() const noexcept { return records_; }
  const TuningRecord* find(std::string_view key) const;
  size_t size() const noexcept { return records_.size(); }
  bool empty() const noexcept { return records_.empty(); }

  // Exact: same device name and sm, equal ProblemKey. Sibling: else sibling_record. Nearest:
  // same device and problem.same_kind(), smallest size_distance (ties: more equal ld classes
  // and vector widths, then newer tuned_at, then key). Otherwise None.
  RecordMatch match(const DeviceKey& device, const ProblemKey& problem) const;
  // The record of a sibling device (device_key.hpp is_sibling) for exactly `problem`, the first
  // in key order; null when there is none.
  const TuningRecord* sibling_record(const DeviceKey& device, const ProblemKey& problem) const;

  // Under the lock "<path>.lock": re-reads `path` and its history file
  // (history_path_for(path)), upserts `records` (they replace records with the same key) and
  // `histories` (the full candidate tables of records, e.g. make_tuned_record's), keeps in the
  // history the entries of the records the database then holds, and writes the history, then
  // the database, each atomically. A damaged database is moved aside to
  // "<path>.damaged-<UTC timestamp>" and the report says so; a damaged history the same way,
  // and the database is still saved. A file written by a newer schema is never replaced:
  // DatabaseError (a newer history is left as it is, and the report says so). Every writer
  // first checks each record with validate_record and each history entry with
  // validate_history_entry (InvalidArgument; no file touched), so no writer produces a file
  // that load() rejects.
  static SaveReport save_merged(const std::filesystem::path& path, const std::vector<TuningRecord>& records,
                                const std::vector<CandidateHistory>& histories = {});
  // Under the same lock: re-reads `path`, applies `edit`, writes atomically. The history file
  // is carried along: the tables of a file of schema 1-3 are added to it, and entries of
  // records no longer in the database are dropped (a history that was not there is written
  // only when it has an entry).
  static SaveReport update(const std::filesystem::path& path,
                           const std::function<void(TuningDatabase&)>& edit,
                           DamagedFilePolicy on_damaged = DamagedFilePolicy::Throw);
  // The same, `edit` given the history too.
  static SaveReport update_with_history(const std::filesystem::path& path,
                           const std::function<void(TuningDatabase&, TuningHistory&)>& edit,
                           DamagedFilePolicy on_damaged = DamagedFilePolicy::Throw);
  // Replaces `path` by this database, atomically, under the same lock (the history is not
  // touched).
  void save(const std::filesystem::path& path) const;

  // Union of a and b; for a key in both, the newer tuned_at wins (ties: the faster
  // median, then the smaller JSON text), so the result does not depend on the order. A
  // tuned_at in the future of `now` (is_future_dated) counts as the earliest date.
  static TuningDatabase merge(const TuningDatabase& a, const TuningDatabase& b,
                              std::chrono::system_clock::time_point now = std::chrono::system_clock::now());

 private:
  std::vector<TuningRecord> records_;  // sorted by key(), keys unique
  std::vector<std::string> keys_;      // records_[i].key()
};

struct LoadedDatabase {
  TuningDatabase database;
  int schema_version = 0;                // of the file (0: no file)
  std::vector<CandidateHistory> tables;  // schema 1-3: the candidates its records listed
};

}  // namespace jitgemm
