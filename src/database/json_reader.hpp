// Checked reading of JSON values into typed structs. Every from_json in database/ reads
// its fields through these helpers, so a bad value raises a FieldError that carries the
// field path ("config.stages: expected 1..8, got 0"); the database adds the file name
// and the record index on the way up. Text from the file that a message quotes (a value, an
// unknown field's name) is escaped for terminals (printable_text.hpp).
#pragma once

#include <cstdint>
#include <initializer_list>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "database/field_error.hpp"
#include "database/printable_text.hpp"
#include "jitgemm/error.hpp"

namespace jitgemm {

namespace json_reader {

// "string", "integer", "number", "object", "array", "boolean" or "null".
std::string type_name(const nlohmann::json& j);

// Throws FieldError unless `j` is an object whose keys are exactly `fields` (a
// misspelled or unknown field is damage, not something to ignore).
void expect_fields(const nlohmann::json& j, std::initializer_list<std::string_view> fields);
// The same with fields that may be absent (`optional`); a field in neither list is an error.
void expect_fields(const nlohmann::json& j, std::initializer_list<std::string_view> fields,
                   std::initializer_list<std::string_view> optional);
void expect_fields(const nlohmann::json& j, std::span<const std::string_view> fields,
                   std::span<const std::string_view> optional = {});

// The member `key` of object `obj`; FieldError "missing" when absent.
const nlohmann::json& member(const nlohmann::json& obj, std::string_view key);

// An integer member in [lo, hi]; floats and strings are rejected.
int64_t read_int(const nlohmann::json& obj, std::string_view key, int64_t lo, int64_t hi);
// A number member that is > 0 (read_positive) or >= 0 (read_nonnegative).
double read_positive(const nlohmann::json& obj, std::string_view key);
double read_nonnegative(const nlohmann::json& obj, std::string_view key);
bool read_bool(const nlohmann::json& obj, std::string_view key);
// A string member; an empty string is rejected unless allow_empty, one that is not UTF-8 always.
std::string read_string(const nlohmann::json& obj, std::string_view key, bool allow_empty = false);

// A string member turned into a value by `parse` (an enum parser, ProblemKey::parse...);
// the parser's jitgemm::Error becomes a FieldError at `key` (its message, which may quote the
// text, escaped by printable()).
template <class Parse>
auto read_parsed(const nlohmann::json& obj, std::string_view key, Parse parse) {
  std::string text = read_string(obj, key);
  try {
    return parse(text);
  } catch (const Error& e) {
    throw FieldError(std::string(key), printable(e.what()));
  }
}

// An object member read by `from_json(const json&, T&)` (found by ADL); errors inside get
// `key` prefixed to their path.
template <class T>
T read_object(const nlohmann::json& obj, std::string_view key) {
  const nlohmann::json& value = member(obj, key);
  T out{};
  try {
    from_json(value, out);
  } catch (const FieldError& e) {
    throw e.nested_in(key);
  }
  return out;
}

// An array member whose elements are objects read by from_json; errors get "key[i]".
template <class T>
std::vector<T> read_array(const nlohmann::json& obj, std::string_view key) {
  const nlohmann::json& value = member(obj, key);
  if (!value.is_array())
    throw FieldError(std::string(key), "expected array, got " + type_name(value));
  std::vector<T> out;
  out.reserve(value.size());
  for (size_t i = 0; i < value.size(); ++i) {
    T item{};
    try {
      from_json(value[i], item);
    } catch (const FieldError& e) {
      throw e.nested_in("[" + std::to_string(i) + "]").nested_in(key);
    }
    out.push_back(std::move(item));
  }
  return out;
}

}  // namespace json_reader
}  // namespace jitgemm
