// The history file: the full candidate table of each tuning (every candidate tried, its
// outcome, time, error, resources and detail), which a schema-4 record no longer carries (it
// keeps the counts by outcome and the kTopCandidates fastest). It lies beside the database,
// "<database minus .json>.history.json" (tuning_db/jitgemm_tuning.history.json), one entry per
// tuning, keyed by the record's key() and tuned_at. TuningDatabase's writers keep it (under the
// database's lock, written atomically before the database) with an entry for each record whose
// table they were given; jitgemm-db show prints the table from it and verify checks it. The
// Runtime never reads it. A history that is missing, or has no entry for a record, is normal;
// one that is damaged is reported by its readers and moved aside by the writers, and never
// stops the database from loading or saving.
//
// File format (schema 1): {"schema_version": 1, "histories": [entries]}, entries sorted by key
// then tuned_at, each {"key", "tuned_at", "checksum" (history_checksum, record_checksum.hpp),
// "candidates": [one candidate per line, as record_text.hpp writes them]}.
//
//   TuningHistory history = TuningHistory::load(history_path_for(db_path));   // DatabaseError
//   if (const CandidateHistory* h = history.find(record)) print(h->candidates);
#pragma once

#include <cstddef>
#include <filesystem>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "database/tuning_record.hpp"

namespace jitgemm {

struct CandidateHistory {
  std::string key;       // TuningRecord::key() of the tuning's record
  std::string tuned_at;  // and its tuned_at: each tuning of a problem is an entry of its own
  std::vector<CandidateResult> candidates;  // every candidate listed, in the order tried

  friend bool operator==(const CandidateHistory&, const CandidateHistory&) = default;
};

// "<dir>/<name>.history.json" for "<dir>/<name>.json" ("<path>.history.json" for a name
// without ".json").
std::filesystem::path history_path_for(const std::filesystem::path& database_path);

// Throws InvalidArgument ("history of <key> tuned at <t>: candidates[3].median_ms: ...") unless
// `entry` passes the checks load() applies: a non-empty key, a timestamp, at least one
// candidate, each candidate as a file may hold it.
void validate_history_entry(const CandidateHistory& entry);

// How an entry disagrees with the record of its key and tuned_at, or "" when it does not: its
// candidates counted by outcome must be the record's counts (less those the record counts as
// unrecorded).
std::string history_mismatch(const CandidateHistory& entry, const TuningRecord& record);

class TuningHistory {
 public:
  static constexpr int kSchemaVersion = 1;

  // A missing file gives an empty history. Anything else wrong throws DatabaseError naming the
  // file and the position (byte and path: "histories[2].candidates[7].outcome: ..."), a
  // checksum that does not match included; a file of a newer schema throws
  // NewerHistoryError. Never modifies the file.
  static TuningHistory load(const std::filesystem::path& path);
  static TuningHistory parse(std::string_view text, std::string_view source_name);

  std::string dump() const;  // the file's text

  // Adds `entry`, replacing the one with the same key and tuned_at.
  void upsert(CandidateHistory entry);
  // Adds `entry` unless one with the same key and tuned_at is there; true when added.
  bool insert(CandidateHistory entry);
  const CandidateHistory* find(std::string_view key, std::string_view tuned_at) const;
  const CandidateHistory* find(const TuningRecord& record) const { return find(record.key(), record.tuned_at); }
  // Keeps the entries for which `keep` is true; returns how many were removed.
  size_t retain_if(const std::function<bool(const CandidateHistory&)>& keep);

  const std::vector<CandidateHistory>& entries() const noexcept { return entries_; }
  size_t size() const noexcept { return entries_.size(); }
  bool empty() const noexcept { return entries_.empty(); }

 private:
  std::vector<CandidateHistory> entries_;  // sorted by (key, tuned_at), unique
};

}  // namespace jitgemm
