// The tuning database: TuningRecords sorted by key, loaded with full validation, looked
// up (exact, then nearest of the same kind, then none: match) and written atomically under an
// advisory lock so that concurrent tuners never lose each other's records.
//
// File format: {"schema_version": 3, "records": [...]}, 2-space indent, records sorted by
// key() (each opens with its problem, device and config; nested fields sorted by name),
// so diffs between two files stay readable. Each record carries "checksum" (after tuned_at),
// the hash of its canonical JSON (record_checksum.hpp), verified on every load.
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

#include "database/tuning_record.hpp"

namespace jitgemm {

// The record nearest to a (device, problem): the search the serving policy
// (serving_policy.hpp) starts from. It knows nothing of environments or of the bound within
// which a nearest record may serve.
struct RecordMatch {
  enum class Rule { Exact, Nearest, None };
  Rule rule = Rule::None;
  const TuningRecord* record = nullptr;  // null for None; valid until the database changes
  double distance = 0;                   // size_distance of a Nearest record (0 for Exact)
  int device_records = 0;                // records of this device (name and sm), for messages
};

struct SaveReport {
  int written = 0;  // save_merged: records given; update: records in the file written
  std::optional<std::filesystem::path> moved_aside;  // where a damaged file was moved
  std::string warning;                               // says so, for the caller to show
};

// What update() does when the file on disk fails to load.
enum class DamagedFilePolicy { MoveAside, Throw };

class TuningDatabase {
 public:
  // 2: KernelConfig as its tile and the family's typed "params". 3: every record carries its
  // checksum. Files of schema 1 and 2 still load (database/schema_migration.hpp converts them,
  // their records unchecked); a save writes 3, checksums included.
  static constexpr int kSchemaVersion = 3;

  // A missing file gives an empty database. Any other problem throws DatabaseError naming
  // the file and the position: the byte offset of a JSON syntax error, or the record
  // index and field path ("records[41].config.stages: expected 1..8, got 0"); a record whose
  // checksum does not match is named by index and key. Text quoted from the file is escaped
  // (printable_text.hpp). Never modifies the file.
  static TuningDatabase load(const std::filesystem::path& path);
  // The same checks on text or parsed JSON; `source_name` starts every message.
  static TuningDatabase parse(std::string_view text, std::string_view source_name);
  static TuningDatabase from_json(const nlohmann::json& j, std::string_view source_name);

  nlohmann::json to_json() const;  // schema 3, checksums included
  std::string dump() const;         // the file's text: to_json() with 2-space indent and a newline

  void upsert(TuningRecord record);  // replaces the record with the same key()
  bool erase(std::string_view key);  // false when absent
  const std::vector<TuningRecord>& records() const noexcept { return records_; }
  const TuningRecord* find(std::string_view key) const;
  size_t size() const noexcept { return records_.size(); }
  bool empty() const noexcept { return records_.empty(); }

  // Exact: same device name and sm, equal ProblemKey. Nearest: same device and
  // problem.same_kind(), smallest size_distance (ties: more equal ld classes and vector
  // widths, then newer tuned_at, then key). Otherwise None.
  RecordMatch match(const DeviceKey& device, const ProblemKey& problem) const;

  // Under the lock "<path>.lock": re-reads `path`, upserts `records` (they replace
  // records with the same key), writes atomically. A damaged file is moved aside to
  // "<path>.damaged-<UTC timestamp>" and the report says so. A file written by a newer
  // schema is never replaced: DatabaseError. Every writer first checks each record with
  // validate_record (InvalidArgument; the file is untouched), so no writer produces a
  // file that load() rejects.
  static SaveReport save_merged(const std::filesystem::path& path, const std::vector<TuningRecord>& records);
  // Under the same lock: re-reads `path`, applies `edit`, writes atomically.
  static SaveReport update(const std::filesystem::path& path,
                           const std::function<void(TuningDatabase&)>& edit,
                           DamagedFilePolicy on_damaged = DamagedFilePolicy::Throw);
  // Replaces `path` by this database, atomically, under the same lock.
  void save(const std::filesystem::path& path) const;

  // Union of a and b; for a key in both, the newer tuned_at wins (ties: the faster
  // median, then the smaller JSON text), so the result does not depend on the order. A
  // tuned_at in the future of `now` (is_future_dated) counts as the earliest date.
  static TuningDatabase merge(const TuningDatabase& a, const TuningDatabase& b,
                              std::chrono::system_clock::time_point now = std::chrono::system_clock::now());

 private:
  std::vector<TuningRecord> records_;  // sorted by key(), keys unique
};

}  // namespace jitgemm
