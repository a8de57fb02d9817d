// FieldError: a JSON value that does not fit its typed field, with the path of the field
// ("records[3].config.stages") and, where the reader knows it, the byte of the text it lies at.
// Every reader in database/ (the nlohmann one of json_reader.hpp and the streaming one of
// json_cursor.hpp) throws it; TuningDatabase turns it into a DatabaseError naming the file.
//
//   throw FieldError("stages", "expected 1..8, got 0");        // inside the config reader
//   catch (const FieldError& e) { throw e.nested_in("config"); } // "config.stages: ..."
#pragma once

#include <cstddef>
#include <stdexcept>
#include <string>
#include <string_view>

namespace jitgemm {

// A JSON value does not fit its typed field. path() is relative to the value being read;
// whoever read the enclosing value re-throws nested_in(its member name or index). A reader
// that knows where the value lies in the text (json_cursor.hpp) adds its byte offset; a
// syntax error (the text is not JSON there) says so with syntax().
class FieldError : public std::runtime_error {
 public:
  static constexpr size_t kNoByte = static_cast<size_t>(-1);

  FieldError(std::string path, std::string problem);
  // The text is not JSON at `byte` (counted from 1, as the JSON parser counts).
  static FieldError syntax_error(size_t byte, std::string problem);

  const std::string& path() const noexcept { return path_; }
  const std::string& problem() const noexcept { return problem_; }
  size_t byte() const noexcept { return byte_; }           // kNoByte: not known
  bool syntax() const noexcept { return syntax_; }

  // The same error seen from the enclosing value: "stages" inside "config" becomes
  // "config.stages"; an index segment such as "[3]" joins without a dot.
  FieldError nested_in(std::string_view segment) const;
  // The same error placed at `byte` unless it already has a place.
  FieldError at_byte(size_t byte) const;

 private:
  std::string path_;
  std::string problem_;
  size_t byte_ = kNoByte;
  bool syntax_ = false;
};

}  // namespace jitgemm
