// FieldError: paths and byte positions (see field_error.hpp), and its message in a file
// (file_errors.hpp).
#include "database/field_error.hpp"

#include <fmt/format.h>

#include "database/file_errors.hpp"

#include <utility>

namespace jitgemm {

FieldError::FieldError(std::string path, std::string problem)
    : std::runtime_error(path.empty() ? problem : path + ": " + problem),
      path_(std::move(path)),
      problem_(std::move(problem)) {}

FieldError FieldError::syntax_error(size_t byte, std::string problem) {
  FieldError e("", std::move(problem));
  e.byte_ = byte;
  e.syntax_ = true;
  return e;
}

FieldError FieldError::nested_in(std::string_view segment) const {
  std::string joined(segment);
  if (!path_.empty()) {
    if (path_.front() != '[') joined += '.';
    joined += path_;
  }
  FieldError e(std::move(joined), problem_);
  e.byte_ = byte_;
  e.syntax_ = syntax_;
  return e;
}

FieldError FieldError::at_byte(size_t byte) const {
  FieldError e = *this;
  if (e.byte_ == kNoByte) e.byte_ = byte;
  return e;
}

std::string located_message(std::string_view source, const FieldError& e) {
  const bool placed = e.byte() != FieldError::kNoByte;
  if (e.syntax())
    return fmt::format("{}: invalid JSON{}{}: {}", source, placed ? fmt::format(" at byte {}", e.byte()) : "",
                       e.path().empty() ? "" : fmt::format(" {}{}", placed ? "(in " : "in ", e.path()) +
                                                   (placed ? ")" : ""),
                       e.problem());
  return fmt::format("{}: {}{}{}{}", source, e.path(), e.path().empty() ? "" : ": ", e.problem(),
                     placed ? fmt::format(" (at byte {})", e.byte()) : "");
}

}  // namespace jitgemm
