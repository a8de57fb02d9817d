// name_reader.hpp — reading config names ("..._s3_k1_g8") field by field: the families'
// parse_name_suffix and KernelConfig::parse share these.
#pragma once

#include <charconv>
#include <string_view>

namespace jitgemm::name_reader {

// Reads a decimal integer >= `min` at the front of `text` and advances past it.
inline bool take_int(std::string_view& text, int& out, int min = 1) {
  const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
  if (ec != std::errc() || ptr == text.data() || out < min) return false;
  text.remove_prefix(static_cast<size_t>(ptr - text.data()));
  return true;
}

// Consumes `literal` at the front of `text`.
inline bool take(std::string_view& text, std::string_view literal) {
  if (!text.starts_with(literal)) return false;
  text.remove_prefix(literal.size());
  return true;
}

// "<literal><int>" (e.g. "_s3"), the integer >= `min`.
inline bool take_field(std::string_view& text, std::string_view literal, int& out, int min = 1) {
  return take(text, literal) && take_int(text, out, min);
}

}  // namespace jitgemm::name_reader
