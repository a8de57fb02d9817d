// A strict pull reader over JSON text, for the typed readers of schema-4 database files and
// history files (record_reader.hpp, candidate_history.hpp): they walk the text member by member
// into their structs, with no document tree in between (a 10,000-record file loads in tens of
// milliseconds; nlohmann's tree of it took seconds).
//
//   JsonCursor in(text);
//   in.begin_object();
//   std::string_view key;
//   while (in.next_member(key)) { if (key == "runs") runs = in.integer(1, 1000000); else ... }
//   in.expect_end();
//
// It accepts exactly RFC 8259 JSON: strings of well-formed UTF-8 with no raw control
// characters, escapes checked (a lone surrogate is an error), numbers in JSON's grammar and
// within double's range. Every error is a FieldError: a syntax error (FieldError::syntax())
// where the text is not JSON, or "expected integer, got 3.5" where a value has the wrong type
// or range; each carries the byte it was found at, counted from 1 as nlohmann counts. The
// caller adds the field path (FieldError::nested_in) on the way up. Duplicate and unknown
// members are the typed reader's to reject (it knows the fields).
//
// number() also reads the words nan, inf and -inf (what fmt writes for a non-finite double),
// so that a record holding one is reported by the field that holds it ("timing.median_ms:
// expected a number > 0, got nan") rather than as a syntax error; no field accepts them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "database/field_error.hpp"

namespace jitgemm {

enum class JsonType { Object, Array, String, Number, Boolean, Null };

class JsonCursor {
 public:
  explicit JsonCursor(std::string_view text) noexcept : text_(text) {}

  // The offset of the next token (whitespace skipped), from 0; and as messages give it, from 1.
  size_t offset() noexcept {
    skip_whitespace();
    return pos_;
  }
  size_t byte() noexcept { return offset() + 1; }
  // Continues at `offset` (one that offset() returned before).
  void seek(size_t offset) noexcept;

  // The type of the next value; a syntax error when nothing a value can start with is there.
  JsonType peek();

  // '{' (else "expected object, got ..."); then next_member until it returns false at '}'.
  // `key` is valid until the next call into the cursor. `expected`: the name the caller
  // expects next, if it has a guess (written plainly, it is taken without scanning it).
  void begin_object();
  bool next_member(std::string_view& key, std::string_view expected = {});
  size_t key_byte() const noexcept { return key_offset_ + 1; }  // of the last member name read
  // '[' (else "expected array, got ..."); then next_element until it returns false at ']'.
  void begin_array();
  bool next_element();

  // A string value, unescaped; the view is valid until the next call into the cursor.
  std::string_view string();
  // A number (or nan, inf, -inf: see above).
  double number();
  // An integer (no fraction or exponent) in [lo, hi]: "expected integer, got 2.5",
  // "expected 1..8, got 9".
  int64_t integer(int64_t lo, int64_t hi);
  // Whether the next value is a number without fraction or exponent (what integer() reads).
  bool integer_next();
  bool boolean();
  // Consumes a null and returns true when one is next; false (nothing consumed) otherwise.
  bool null();
  // Reads past one value of any kind (checked as strictly as the rest).
  void skip();
  // Only whitespace remains.
  void expect_end();
  // The next value as a message shows it: "object", "array", or its text (at most 60 bytes,
  // escaped); nothing consumed.
  std::string shown_next();

 private:
  void skip_whitespace() noexcept {
    while (pos_ < text_.size()) {
      const char c = text_[pos_];
      if (c != ' ' && c != '\n' && c != '\t' && c != '\r') return;
      ++pos_;
    }
  }
  // The step shared by next_member and next_element: false (and past it) at `close`; else past
  // the ',' that must separate this item from the one before (`separator_expected` names it).
  bool next_in_container(char close, const char* separator_expected);
  [[noreturn]] void fail_syntax(std::string problem) const;
  [[noreturn]] void fail_syntax_at(size_t pos, std::string problem) const;
  // "expected <what>, got <the next value, shown>" at the next value.
  [[noreturn]] void fail_type(std::string_view what);
  void expect(char c, std::string_view what);
  void literal(std::string_view word);
  // The next string token from its opening quote: unescaped text (a view of the file or of
  // scratch_); advances past it.
  std::string_view scan_string();
  // The end (exclusive) of the number token that starts at pos_, checked against JSON's
  // grammar; *integral: no fraction or exponent.
  size_t scan_number(bool* integral) const;
  // The word nan, inf or -inf at pos_ as a double, advancing past it; false if none is there.
  bool special_number(double& value) noexcept;
  void decode_escape(size_t& pos);  // at the backslash; appends to scratch_

  std::string_view text_;
  size_t pos_ = 0;
  size_t key_offset_ = 0;
  bool first_ = false;     // the container just opened has had no member / element yet
  std::string scratch_;    // unescaped strings
};

// Reads the members of an object whose member names are `fields` (at most 64): read(i) for the
// member fields[i], which must read its value. A member not in `fields`, one that comes twice
// ("duplicate key", the file is damaged) or one missing (unless bit i of `optional` is set) is
// a FieldError; an error from read() gets the member's name in its path and, if it has none,
// the byte of the member's value.
template <class Read>
void read_members(JsonCursor& in, std::span<const std::string_view> fields, uint64_t optional, Read&& read);

// Reads the elements of an array: read(i) for element i; its errors get "[i]" and its byte.
template <class Read>
void read_elements(JsonCursor& in, Read&& read);

namespace json_cursor_detail {
// The index of `key` in `fields`, marked in `seen`; FieldError for an unknown or repeated one.
// `guess`: the index to try first (members usually come in the writer's order).
size_t member_index(std::span<const std::string_view> fields, std::string_view key, uint64_t& seen, size_t key_byte,
                    size_t guess);
// FieldError "missing" for the first field neither seen nor optional, at `object_byte`.
void check_present(std::span<const std::string_view> fields, uint64_t seen, uint64_t optional, size_t object_byte);
std::string index_segment(size_t i);  // "[i]"
}  // namespace json_cursor_detail

template <class Read>
void read_members(JsonCursor& in, std::span<const std::string_view> fields, uint64_t optional, Read&& read) {
  const size_t object_byte = in.byte();
  in.begin_object();
  uint64_t seen = 0;
  size_t guess = 0;
  std::string_view key;
  while (in.next_member(key, guess < fields.size() ? fields[guess] : std::string_view())) {
    const size_t i = json_cursor_detail::member_index(fields, key, seen, in.key_byte(), guess);
    guess = i + 1;
    const size_t value_byte = in.byte();
    try {
      read(i);
    } catch (const FieldError& e) {
      throw e.at_byte(value_byte).nested_in(fields[i]);
    }
  }
  json_cursor_detail::check_present(fields, seen, optional, object_byte);
}

template <class Read>
void read_elements(JsonCursor& in, Read&& read) {
  in.begin_array();
  for (size_t i = 0; in.next_element(); ++i) {
    const size_t value_byte = in.byte();
    try {
      read(i);
    } catch (const FieldError& e) {
      throw e.at_byte(value_byte).nested_in(json_cursor_detail::index_segment(i));
    }
  }
}

}  // namespace jitgemm
