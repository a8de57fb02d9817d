// The integrity checksums that records carry in database files ("checksum": 32 hex digits).
//
// Schema 4 (record_checksum(const TuningRecord&)): a 128-bit hash (two 64-bit lanes fed a word
// at a time, record_checksum.cpp) of the record's typed values, every field of the struct in a
// fixed order (strings by their bytes, integers, doubles by their bits, enums and config
// parameters by name). It is computed from the struct the reader built, so a load needs no
// second walk over the text. The history file's entries carry one the same way
// (history_checksum).
//
// Schema 3 (record_checksum(const nlohmann::json&)): a Hasher (common/hash.hpp) fed the
// record's JSON value as parsed, the checksum member left out, in a canonical walk: members in
// key order (each key, then its value), array elements in order, each value with its type
// (integers by value whether the parser read them signed or unsigned, doubles by their bits,
// strings by their bytes).
//
// Either way it depends on the values only, not on spacing, member order or how a number is
// spelled ("1e-05" or "0.00001"). Every save writes it; every load recomputes it and compares,
// so a record changed after it was written (a flipped digit in a timing, a hand edit that still
// passes every field check) is damage. A save and the load of what it wrote agree because
// records hold only well-formed UTF-8 (validate_record) and doubles survive the JSON text
// exactly. It detects accidents, not forgery: anyone can recompute it. Schema-1 and -2 files
// carry none and are read unchecked (database/schema_migration.hpp).
//
//   text += record_text(record, RecordLayout::Pretty, record_checksum(record));  // on save
//   if (record_checksum(read) != stored) throw DatabaseError(...);               // on load
#pragma once

#include <string>
#include <string_view>

#include <nlohmann/json_fwd.hpp>

#include "database/tuning_record.hpp"

namespace jitgemm {

struct CandidateHistory;

// Schema 4: the checksum of a record's values (what a save writes and a load compares).
std::string record_checksum(const TuningRecord& record);
// The checksum of a history file's entry (candidate_history.hpp).
std::string history_checksum(const CandidateHistory& entry);

// Schema 3: the checksum of a record's JSON object as read from a file (its "checksum" member,
// if any, is left out).
std::string record_checksum(const nlohmann::json& record_json);

// True for what record_checksum returns: 32 lower-case hex digits.
bool is_checksum_text(std::string_view text) noexcept;

}  // namespace jitgemm
