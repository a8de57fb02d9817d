// The strict pull reader over JSON text (see json_cursor.hpp).
#include "database/json_cursor.hpp"

#include <array>
#include <charconv>
#include <cmath>
#include <cstring>
#include <limits>
#include <system_error>

#include <fmt/format.h>

#include "database/printable_text.hpp"

namespace jitgemm {
namespace {

bool is_digit(char c) noexcept { return c >= '0' && c <= '9'; }

bool is_delimiter(char c) noexcept {
  return c == ',' || c == '}' || c == ']' || c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

int hex_value(char c) noexcept {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

void append_utf8(std::string& out, uint32_t cp) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xE0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

// A short excerpt for messages: at most 60 bytes, whole UTF-8 characters, escaped.
std::string excerpt(std::string_view text) {
  if (text.size() <= 60) return printable(text);
  size_t end = 57;
  while (end > 0 && (static_cast<unsigned char>(text[end]) & 0xC0) == 0x80) --end;
  return printable(text.substr(0, end)) + "...";
}

}  // namespace

void JsonCursor::seek(size_t offset) noexcept { pos_ = offset < text_.size() ? offset : text_.size(); }

void JsonCursor::fail_syntax(std::string problem) const { fail_syntax_at(pos_, std::move(problem)); }

void JsonCursor::fail_syntax_at(size_t pos, std::string problem) const {
  throw FieldError::syntax_error(pos + 1, std::move(problem));
}

void JsonCursor::fail_type(std::string_view what) {
  const size_t at = offset();
  std::string got = shown_next();
  throw FieldError("", fmt::format("expected {}, got {}", what, got)).at_byte(at + 1);
}

JsonType JsonCursor::peek() {
  skip_whitespace();
  if (pos_ >= text_.size()) fail_syntax("syntax error: unexpected end of input; expected a value");
  switch (text_[pos_]) {
    case '{': return JsonType::Object;
    case '[': return JsonType::Array;
    case '"': return JsonType::String;
    case 't':
    case 'f': return JsonType::Boolean;
    case 'n': return text_.substr(pos_, 3) == "nan" ? JsonType::Number : JsonType::Null;
    case 'i':
    case '-':
      return JsonType::Number;
    default:
      if (is_digit(text_[pos_])) return JsonType::Number;
  }
  fail_syntax(fmt::format("syntax error: unexpected '{}'; expected a value", excerpt(text_.substr(pos_, 1))));
}

std::string JsonCursor::shown_next() {
  switch (peek()) {
    case JsonType::Object: return "object";
    case JsonType::Array: return "array";
    case JsonType::Boolean:
    case JsonType::Null: {
      size_t end = pos_;
      while (end < text_.size() && !is_delimiter(text_[end])) ++end;
      return excerpt(text_.substr(pos_, end - pos_));
    }
    case JsonType::Number: {
      double ignored;
      const size_t start = pos_;
      if (special_number(ignored)) {
        const std::string word(text_.substr(start, pos_ - start));
        pos_ = start;
        return word;
      }
      bool integral = false;
      return excerpt(text_.substr(pos_, scan_number(&integral) - pos_));
    }
    case JsonType::String: {
      const size_t start = pos_;
      scan_string();
      const size_t end = pos_;
      pos_ = start;
      return excerpt(text_.substr(start, end - start));
    }
  }
  return "";
}

void JsonCursor::expect(char c, std::string_view what) {
  skip_whitespace();
  if (pos_ >= text_.size()) fail_syntax(fmt::format("syntax error: unexpected end of input; expected {}", what));
  if (text_[pos_] != c)
    fail_syntax(fmt::format("syntax error: unexpected '{}'; expected {}", excerpt(text_.substr(pos_, 1)), what));
  ++pos_;
}

void JsonCursor::literal(std::string_view word) {
  for (size_t i = 0; i < word.size(); ++i) {
    if (pos_ + i >= text_.size()) fail_syntax_at(pos_ + i, fmt::format("syntax error: unexpected end of input in '{}'", word));
    if (text_[pos_ + i] != word[i])
      fail_syntax_at(pos_ + i, fmt::format("syntax error: invalid literal; expected '{}'", word));
  }
  pos_ += word.size();
}

void JsonCursor::begin_object() {
  if (peek() != JsonType::Object) fail_type("object");
  ++pos_;
  first_ = true;
}

bool JsonCursor::next_in_container(char close, const char* separator_expected) {
  skip_whitespace();
  if (pos_ < text_.size() && text_[pos_] == close) {  // after a ',' the next item's check fails first
    ++pos_;
    first_ = false;
    return false;
  }
  if (!first_) {
    if (pos_ < text_.size() && text_[pos_] == ',')
      ++pos_;
    else
      expect(',', separator_expected);  // says what is there instead
  }
  first_ = false;
  return true;
}

bool JsonCursor::next_member(std::string_view& key, std::string_view expected) {
  if (!next_in_container('}', "',' or '}' after an object member")) return false;
  skip_whitespace();
  if (pos_ >= text_.size()) fail_syntax("syntax error: unexpected end of input; expected a member name");
  if (text_[pos_] != '"')
    fail_syntax(fmt::format("syntax error: unexpected '{}'; expected a member name (a string)",
                            excerpt(text_.substr(pos_, 1))));
  key_offset_ = pos_;
  // The name the reader expects, written plainly: no need to scan it for escapes or UTF-8.
  const size_t after = pos_ + 1 + expected.size();
  if (!expected.empty() && after < text_.size() && text_[after] == '"' &&
      text_.compare(pos_ + 1, expected.size(), expected) == 0) {
    key = expected;
    pos_ = after + 1;
  } else {
    key = scan_string();
  }
  if (pos_ < text_.size() && text_[pos_] == ':')
    ++pos_;
  else
    expect(':', "':' after a member name");
  return true;
}

void JsonCursor::begin_array() {
  if (peek() != JsonType::Array) fail_type("array");
  ++pos_;
  first_ = true;
}

bool JsonCursor::next_element() { return next_in_container(']', "',' or ']' after an array element"); }

std::string_view JsonCursor::string() {
  if (peek() != JsonType::String) fail_type("string");
  return scan_string();
}

std::string_view JsonCursor::scan_string() {
  // Bytes that end the plain run of a string: the quote, a backslash, control characters, and
  // (to know whether the UTF-8 check is needed) every byte >= 0x80.
  static constexpr auto kSpecial = [] {
    std::array<bool, 256> t{};
    for (int c = 0; c < 0x20; ++c) t[static_cast<size_t>(c)] = true;
    for (int c = 0x80; c < 0x100; ++c) t[static_cast<size_t>(c)] = true;
    t['"'] = t['\\'] = true;
    return t;
  }();
  const size_t open = pos_++;
  const size_t start = pos_;
  bool escaped = false, ascii = true;
  for (;;) {
    const char* p = text_.data() + pos_;
    const char* end = text_.data() + text_.size();
    const char* q = p;
    // Eight bytes at a time while none of them is special (SWAR: a byte that is '"' or '\\'
    // becomes zero when xor-ed with it; one < 0x20 or >= 0x80 shows in the high bits).
    constexpr uint64_t kOnes = 0x0101010101010101ull, kHigh = 0x8080808080808080ull;
    const auto has_zero = [](uint64_t v) { return (v - kOnes) & ~v & kHigh; };
    while (end - q >= 8) {
      uint64_t w;
      std::memcpy(&w, q, 8);
      if ((has_zero(w ^ (kOnes * '"')) | has_zero(w ^ (kOnes * '\\')) | ((w - kOnes * 0x20) & ~w & kHigh) | (w & kHigh)) != 0)
        break;
      q += 8;
    }
    while (q < end && !kSpecial[static_cast<unsigned char>(*q)]) ++q;
    if (escaped) scratch_.append(p, static_cast<size_t>(q - p));
    pos_ = static_cast<size_t>(q - text_.data());
    if (pos_ >= text_.size()) fail_syntax_at(pos_, "syntax error: unexpected end of input in a string");
    const unsigned char c = static_cast<unsigned char>(text_[pos_]);
    if (c == '"') break;
    if (c == '\\') {
      if (!escaped) scratch_.assign(text_.data() + start, pos_ - start);
      escaped = true;
      decode_escape(pos_);
      continue;
    }
    if (c < 0x20)
      fail_syntax_at(pos_, fmt::format("syntax error: invalid string: control character U+{:04X} must be escaped", c));
    ascii = false;  // c >= 0x80: part of a multi-byte character, checked below
    if (escaped) scratch_ += static_cast<char>(c);
    ++pos_;
  }
  const std::string_view raw = text_.substr(start, pos_ - start);
  ++pos_;  // the closing quote
  if (!ascii && !is_well_formed_utf8(raw))  // what a record holds must be text (read_string says the same)
    throw FieldError("", fmt::format("not UTF-8: \"{}\"", excerpt(raw))).at_byte(open + 1);
  return escaped ? std::string_view(scratch_) : raw;
}

void JsonCursor::decode_escape(size_t& pos) {
  const size_t at = pos;
  if (pos + 1 >= text_.size()) fail_syntax_at(pos, "syntax error: unexpected end of input in a string");
  const char e = text_[pos + 1];
  pos += 2;
  switch (e) {
    case '"': scratch_ += '"'; return;
    case '\\': scratch_ += '\\'; return;
    case '/': scratch_ += '/'; return;
    case 'b': scratch_ += '\b'; return;
    case 'f': scratch_ += '\f'; return;
    case 'n': scratch_ += '\n'; return;
    case 'r': scratch_ += '\r'; return;
    case 't': scratch_ += '\t'; return;
    case 'u': break;
    default: fail_syntax_at(at, "syntax error: invalid string: unknown escape");
  }
  auto hex4 = [&](size_t p) -> int {
    if (p + 4 > text_.size()) return -1;
    int v = 0;
    for (size_t i = 0; i < 4; ++i) {
      const int h = hex_value(text_[p + i]);
      if (h < 0) return -1;
      v = v * 16 + h;
    }
    return v;
  };
  const int high = hex4(pos);
  if (high < 0) fail_syntax_at(at, "syntax error: invalid string: '\\u' must be followed by 4 hex digits");
  pos += 4;
  uint32_t cp = static_cast<uint32_t>(high);
  if (cp >= 0xDC00 && cp <= 0xDFFF)
    fail_syntax_at(at, "syntax error: invalid string: surrogate U+DC00..U+DFFF must follow U+D800..U+DBFF");
  if (cp >= 0xD800 && cp <= 0xDBFF) {
    const int low = pos + 1 < text_.size() && text_[pos] == '\\' && text_[pos + 1] == 'u' ? hex4(pos + 2) : -1;
    if (low < 0xDC00 || low > 0xDFFF)
      fail_syntax_at(at, "syntax error: invalid string: surrogate U+D800..U+DBFF must be followed by U+DC00..U+DFFF");
    pos += 6;
    cp = 0x10000 + ((cp - 0xD800) << 10) + (static_cast<uint32_t>(low) - 0xDC00);
  }
  append_utf8(scratch_, cp);
}

size_t JsonCursor::scan_number(bool* integral) const {
  size_t p = pos_;
  const auto bad = [&](size_t where) {
    fail_syntax_at(where, fmt::format("syntax error: invalid number '{}'",
                                      excerpt(text_.substr(pos_, std::min<size_t>(where + 1, text_.size()) - pos_))));
  };
  *integral = true;
  if (p < text_.size() && text_[p] == '-') ++p;
  if (p >= text_.size() || !is_digit(text_[p])) bad(p);
  if (text_[p] == '0') {
    ++p;
  } else {
    while (p < text_.size() && is_digit(text_[p])) ++p;
  }
  if (p < text_.size() && text_[p] == '.') {
    *integral = false;
    ++p;
    if (p >= text_.size() || !is_digit(text_[p])) bad(p);
    while (p < text_.size() && is_digit(text_[p])) ++p;
  }
  if (p < text_.size() && (text_[p] == 'e' || text_[p] == 'E')) {
    *integral = false;
    ++p;
    if (p < text_.size() && (text_[p] == '+' || text_[p] == '-')) ++p;
    if (p >= text_.size() || !is_digit(text_[p])) bad(p);
    while (p < text_.size() && is_digit(text_[p])) ++p;
  }
  if (p < text_.size() && !is_delimiter(text_[p])) bad(p);
  return p;
}

bool JsonCursor::special_number(double& value) noexcept {
  if (pos_ >= text_.size() || is_digit(text_[pos_]) ||
      (text_[pos_] == '-' && pos_ + 1 < text_.size() && is_digit(text_[pos_ + 1])))
    return false;
  for (auto [word, v] : {std::pair<std::string_view, double>{"nan", std::numeric_limits<double>::quiet_NaN()},
                         {"inf", std::numeric_limits<double>::infinity()},
                         {"-inf", -std::numeric_limits<double>::infinity()}}) {
    if (text_.substr(pos_, word.size()) == word &&
        (pos_ + word.size() == text_.size() || is_delimiter(text_[pos_ + word.size()]))) {
      pos_ += word.size();
      value = v;
      return true;
    }
  }
  return false;
}

double JsonCursor::number() {
  if (peek() != JsonType::Number) fail_type("number");
  double value = 0;
  if (special_number(value)) return value;
  bool integral = false;
  const size_t end = scan_number(&integral);
  const char* first = text_.data() + pos_;
  const auto [ptr, ec] = std::from_chars(first, text_.data() + end, value);
  if (ec == std::errc::result_out_of_range) {
    const std::string_view token = text_.substr(pos_, end - pos_);
    const bool tiny = token.find("e-") != std::string_view::npos || token.find("E-") != std::string_view::npos;
    fail_syntax(fmt::format("number {} parsing '{}'", tiny ? "underflow" : "overflow", excerpt(token)));
  }
  if (ec != std::errc() || ptr != text_.data() + end) fail_syntax("syntax error: invalid number");
  pos_ = end;
  return value;
}

int64_t JsonCursor::integer(int64_t lo, int64_t hi) {
  // The common case first: a plain run of at most 18 digits, optionally negative, then a
  // delimiter (no fraction or exponent); anything else goes the general way below.
  skip_whitespace();
  {
    size_t p = pos_;
    const bool negative = p < text_.size() && text_[p] == '-';
    p += negative ? 1 : 0;
    const size_t digits_start = p;
    int64_t v = 0;
    while (p < text_.size() && p - digits_start < 18 && is_digit(text_[p])) v = v * 10 + (text_[p++] - '0');
    const size_t n = p - digits_start;
    if (n > 0 && n < 18 && (n == 1 || text_[digits_start] != '0') && (p == text_.size() || is_delimiter(text_[p]))) {
      v = negative ? -v : v;
      if (v >= lo && v <= hi) {
        pos_ = p;
        return v;
      }
    }
  }
  if (peek() != JsonType::Number) fail_type("integer");
  const size_t start = pos_;
  double ignored;
  if (special_number(ignored)) {
    pos_ = start;
    fail_type("integer");
  }
  bool integral = false;
  const size_t end = scan_number(&integral);
  if (!integral) {
    number();  // a number beyond double's range is damage whatever it stands for
    pos_ = start;
    fail_type("integer");
  }
  int64_t value = 0;
  const auto [ptr, ec] = std::from_chars(text_.data() + pos_, text_.data() + end, value);
  if (ec != std::errc() || value < lo || value > hi)
    throw FieldError("", fmt::format("expected {}..{}, got {}", lo, hi, excerpt(text_.substr(pos_, end - pos_))))
        .at_byte(pos_ + 1);
  pos_ = end;
  return value;
}

bool JsonCursor::integer_next() {
  if (peek() != JsonType::Number) return false;
  const size_t start = pos_;
  double ignored;
  if (special_number(ignored)) {
    pos_ = start;
    return false;
  }
  bool integral = false;
  scan_number(&integral);
  return integral;
}

bool JsonCursor::boolean() {
  if (peek() != JsonType::Boolean) fail_type("boolean");
  const bool value = text_[pos_] == 't';
  literal(value ? "true" : "false");
  return value;
}

bool JsonCursor::null() {
  skip_whitespace();
  if (pos_ >= text_.size() || text_[pos_] != 'n' || text_.substr(pos_, 3) == "nan") return false;
  literal("null");
  return true;
}

void JsonCursor::skip() {
  std::vector<bool> in_object;  // the containers open inside the value, innermost last
  const auto value = [&] {
    switch (peek()) {
      case JsonType::Object: begin_object(); in_object.push_back(true); break;
      case JsonType::Array: begin_array(); in_object.push_back(false); break;
      case JsonType::String: scan_string(); break;
      case JsonType::Number: number(); break;
      case JsonType::Boolean: boolean(); break;
      case JsonType::Null: null(); break;
    }
  };
  value();
  std::string_view key;
  while (!in_object.empty()) {
    if (in_object.back() ? next_member(key) : next_element())
      value();
    else
      in_object.pop_back();
  }
}

void JsonCursor::expect_end() {
  skip_whitespace();
  if (pos_ < text_.size())
    fail_syntax(fmt::format("syntax error: unexpected '{}'; expected end of input", excerpt(text_.substr(pos_, 1))));
}

namespace json_cursor_detail {

size_t member_index(std::span<const std::string_view> fields, std::string_view key, uint64_t& seen, size_t key_byte,
                    size_t guess) {
  // next_member hands back the guessed name itself when the text matched it.
  size_t i = guess < fields.size() && (fields[guess].data() == key.data() || fields[guess] == key) ? guess : 0;
  while (i < fields.size() && fields[i] != key) ++i;
  if (i == fields.size()) throw FieldError(printable(key), "unknown field").at_byte(key_byte);
  if ((seen >> i) & 1)
    throw FieldError("", fmt::format("duplicate key \"{}\" in one object (the file is damaged)", printable(key)))
        .at_byte(key_byte);
  seen |= uint64_t{1} << i;
  return i;
}

void check_present(std::span<const std::string_view> fields, uint64_t seen, uint64_t optional, size_t object_byte) {
  for (size_t i = 0; i < fields.size(); ++i)
    if ((((seen | optional) >> i) & 1) == 0) throw FieldError(std::string(fields[i]), "missing").at_byte(object_byte);
}

std::string index_segment(size_t i) { return fmt::format("[{}]", i); }

}  // namespace json_cursor_detail
}  // namespace jitgemm
