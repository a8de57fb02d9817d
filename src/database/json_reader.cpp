// Checked reading of JSON values into typed structs (see json_reader.hpp).
#include "database/json_reader.hpp"

#include <cmath>

#include <fmt/format.h>

namespace jitgemm {

namespace json_reader {
namespace {

// A value for messages: short, never the whole of a large object, and printable.
std::string shown(const nlohmann::json& j) {
  if (j.is_object() || j.is_array()) return type_name(j);
  std::string text = j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  if (text.size() > 60) {
    text.resize(57);
    while (!text.empty() && (static_cast<unsigned char>(text.back()) & 0xC0) == 0x80) text.pop_back();  // whole characters
    if (!text.empty() && static_cast<unsigned char>(text.back()) >= 0xC0) text.pop_back();
    text += "...";
  }
  return printable(text);
}

const nlohmann::json& number_member(const nlohmann::json& obj, std::string_view key) {
  const nlohmann::json& value = member(obj, key);
  if (!value.is_number())
    throw FieldError(std::string(key), "expected number, got " + shown(value));
  return value;
}

}  // namespace

std::string type_name(const nlohmann::json& j) {
  if (j.is_number_integer()) return "integer";
  if (j.is_number_float()) return "number";
  return j.type_name();
}

void expect_fields(const nlohmann::json& j, std::initializer_list<std::string_view> fields) {
  expect_fields(j, fields, {});
}

void expect_fields(const nlohmann::json& j, std::initializer_list<std::string_view> fields,
                   std::initializer_list<std::string_view> optional) {
  expect_fields(j, std::span<const std::string_view>(fields.begin(), fields.size()),
                std::span<const std::string_view>(optional.begin(), optional.size()));
}

void expect_fields(const nlohmann::json& j, std::span<const std::string_view> fields,
                   std::span<const std::string_view> optional) {
  if (!j.is_object()) throw FieldError("", "expected object, got " + type_name(j));
  for (auto it = j.begin(); it != j.end(); ++it) {
    bool known = false;
    for (std::string_view field : fields) known = known || it.key() == field;
    for (std::string_view field : optional) known = known || it.key() == field;
    if (!known) throw FieldError(printable(it.key()), "unknown field");
  }
  for (std::string_view field : fields) member(j, field);
}

const nlohmann::json& member(const nlohmann::json& obj, std::string_view key) {
  if (!obj.is_object()) throw FieldError("", "expected object, got " + type_name(obj));
  auto it = obj.find(std::string(key));
  if (it == obj.end()) throw FieldError(std::string(key), "missing");
  return *it;
}

int64_t read_int(const nlohmann::json& obj, std::string_view key, int64_t lo, int64_t hi) {
  const nlohmann::json& value = member(obj, key);
  if (!value.is_number_integer())
    throw FieldError(std::string(key), "expected integer, got " + shown(value));
  if (value.is_number_unsigned() && value.get<uint64_t>() > static_cast<uint64_t>(INT64_MAX))
    throw FieldError(std::string(key), fmt::format("expected {}..{}, got {}", lo, hi, shown(value)));
  int64_t v = value.get<int64_t>();
  if (v < lo || v > hi)
    throw FieldError(std::string(key), fmt::format("expected {}..{}, got {}", lo, hi, v));
  return v;
}

double read_positive(const nlohmann::json& obj, std::string_view key) {
  double v = number_member(obj, key).get<double>();
  if (!(v > 0) || !std::isfinite(v))
    throw FieldError(std::string(key), fmt::format("expected a number > 0, got {}", v));
  return v;
}

double read_nonnegative(const nlohmann::json& obj, std::string_view key) {
  double v = number_member(obj, key).get<double>();
  if (!(v >= 0) || !std::isfinite(v))
    throw FieldError(std::string(key), fmt::format("expected a number >= 0, got {}", v));
  return v;
}

bool read_bool(const nlohmann::json& obj, std::string_view key) {
  const nlohmann::json& value = member(obj, key);
  if (!value.is_boolean())
    throw FieldError(std::string(key), "expected boolean, got " + shown(value));
  return value.get<bool>();
}

std::string read_string(const nlohmann::json& obj, std::string_view key, bool allow_empty) {
  const nlohmann::json& value = member(obj, key);
  if (!value.is_string())
    throw FieldError(std::string(key), "expected string, got " + shown(value));
  std::string text = value.get<std::string>();
  if (text.empty() && !allow_empty) throw FieldError(std::string(key), "expected a non-empty string");
  // What a parser gives always is; a record built in memory (validate_record) may not be.
  if (!is_well_formed_utf8(text)) throw FieldError(std::string(key), "not UTF-8: \"" + printable(text) + "\"");
  return text;
}

}  // namespace json_reader
}  // namespace jitgemm
