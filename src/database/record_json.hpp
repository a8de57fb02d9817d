// The nlohmann JSON forms of a record's parts, as files of schema 1-3 hold them (the
// migrations in schema_migration.hpp bring schema 1 and 2 to 3's shape first), and the
// reading of a schema-3 record: every field checked, FieldError naming its path. A schema-3
// record listed its candidates in full; reading one gives the schema-4 record (the list
// ranked into its top candidates and counted by outcome: record_compaction.hpp) and the list
// itself, for the history file.
//
//   LegacyRecord old;
//   from_json(item, old);            // FieldError("config.stages: expected 1..8, got 0")
//   db.upsert(old.record); history.upsert({old.record.key(), old.record.tuned_at, old.candidates});
//
// A KernelConfig object ({"family", "precision", the tile, "params": {the family's fields}}) is
// also what a schema-4 record's winner looks like; record_reader.cpp reads that form from the
// text directly with the same rules (config_fields.hpp).
#pragma once

#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "database/tuning_record.hpp"

namespace jitgemm {

// A schema-3 record: the record as schema 4 keeps it, and every candidate it listed.
struct LegacyRecord {
  TuningRecord record;
  std::vector<CandidateResult> candidates;
};

void to_json(nlohmann::json& j, const KernelConfig& c);
void from_json(const nlohmann::json& j, KernelConfig& c);
void to_json(nlohmann::json& j, const CandidateResult& c);
void from_json(const nlohmann::json& j, CandidateResult& c);
void to_json(nlohmann::json& j, const Timing& t);
void from_json(const nlohmann::json& j, Timing& t);
void to_json(nlohmann::json& j, const Accuracy& a);
void from_json(const nlohmann::json& j, Accuracy& a);
// A schema-3 record (its "checksum" member, if any, is the database's to verify).
void from_json(const nlohmann::json& j, LegacyRecord& r);

// The checks Timing and Accuracy values must pass whichever form they were read from.
void check_timing(const Timing& t);      // FieldError: p10 <= median <= p90
void check_accuracy(const Accuracy& a);  // FieldError: rel_error <= tolerance

}  // namespace jitgemm
