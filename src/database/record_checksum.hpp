// The integrity checksum a record carries in a database file (schema 3, "checksum": 32 hex
// digits): a Hasher (common/hash.hpp) fed the record's JSON value, the checksum member left out,
// in a canonical walk: members in key order (each key, then its value), array elements in
// order, each value with its type (integers by value whether the parser read them signed or
// unsigned, doubles by their bits, strings by their bytes). So it does not depend on spacing,
// member order or how a number is spelled ("1e-05" or "0.00001"), only on the values.
//
// Every save writes it, computed from to_json(record); every load of a schema-3 file recomputes
// it from the record's JSON as parsed and compares, so a record changed after it was written (a
// flipped digit in a timing, a hand edit that still passes every field check) is damage. A save
// and the load of what it wrote agree because records hold only well-formed UTF-8
// (validate_record) and doubles survive the JSON text exactly. It detects accidents, not forgery:
// anyone can recompute it. Schema-1 and -2 files carry none and are read unchecked
// (database/schema_migration.hpp).
//
//   j["checksum"] = record_checksum(json(record));                   // on save
//   if (record_checksum(parsed) != stored) throw DatabaseError(...);  // on load
#pragma once

#include <string>
#include <string_view>

#include <nlohmann/json_fwd.hpp>

namespace jitgemm {

// The checksum of a record's JSON object (to_json(record), or a record as read from a file:
// its "checksum" member, if any, is left out).
std::string record_checksum(const nlohmann::json& record_json);

// True for what record_checksum returns: 32 lower-case hex digits.
bool is_checksum_text(std::string_view text) noexcept;

}  // namespace jitgemm
