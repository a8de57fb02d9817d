// Writing JSON values as text (see json_text.hpp).
#include "database/json_text.hpp"

#include <iterator>

#include <fmt/format.h>

namespace jitgemm {

void append_json_string(std::string& out, std::string_view text) {
  out += '"';
  size_t plain = 0;  // start of the run of bytes not yet copied
  for (size_t i = 0; i < text.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(text[i]);
    if (c >= 0x20 && c != '"' && c != '\\') continue;
    out.append(text.data() + plain, i - plain);
    plain = i + 1;
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      case '\r': out += "\\r"; break;
      case '\b': out += "\\b"; break;
      case '\f': out += "\\f"; break;
      default: fmt::format_to(std::back_inserter(out), "\\u{:04x}", static_cast<unsigned>(c));
    }
  }
  out.append(text.data() + plain, text.size() - plain);
  out += '"';
}

void append_json_number(std::string& out, double value) { fmt::format_to(std::back_inserter(out), "{}", value); }

void append_json_integer(std::string& out, long long value) { fmt::format_to(std::back_inserter(out), "{}", value); }

}  // namespace jitgemm
