// The errors of database/'s file readers: a FieldError found in a file, said as a
// DatabaseError that names the file and the position, and the error for a file that a newer
// jitgemm wrote (which no writer moves aside or replaces).
//
//   catch (const FieldError& e) { throw DatabaseError(located_message("tuning.json", e)); }
//   // tuning.json: records[3].timing.runs: expected integer, got "25" (at byte 2501)
//   // tuning.json: invalid JSON at byte 2501 (in records[3].timing): syntax error ...
#pragma once

#include <string>
#include <string_view>

#include "database/field_error.hpp"
#include "jitgemm/error.hpp"

namespace jitgemm {

// A readable file written by a newer jitgemm (its schema_version is above this one's): never
// moved aside or replaced.
class NewerSchemaError : public DatabaseError {
 public:
  using DatabaseError::DatabaseError;
};

// "<source>: <path>: <problem> (at byte N)", or for a syntax error "<source>: invalid JSON at
// byte N (in <path>): <problem>" (the form the JSON library's messages took).
std::string located_message(std::string_view source, const FieldError& e);

}  // namespace jitgemm
