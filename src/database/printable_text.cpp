// Escaping of file text for terminals, and UTF-8 checks (see printable_text.hpp).
#include "database/printable_text.hpp"

namespace jitgemm {
namespace {

bool in(unsigned char c, unsigned char lo, unsigned char hi) { return c >= lo && c <= hi; }

// The length of the well-formed UTF-8 sequence of two or more bytes starting at text[at]
// (Unicode's table of well-formed byte sequences), or 0 when there is none.
size_t utf8_sequence_length(std::string_view text, size_t at) {
  auto byte = [&](size_t i) { return at + i < text.size() ? static_cast<unsigned char>(text[at + i]) : 0; };
  const unsigned char lead = byte(0);
  auto continuation = [&](size_t i) { return in(byte(i), 0x80, 0xBF); };
  if (in(lead, 0xC2, 0xDF)) return continuation(1) ? 2 : 0;
  if (in(lead, 0xE0, 0xEF)) {
    const unsigned char lo = lead == 0xE0 ? 0xA0 : 0x80;  // no overlong forms
    const unsigned char hi = lead == 0xED ? 0x9F : 0xBF;  // no surrogates
    return in(byte(1), lo, hi) && continuation(2) ? 3 : 0;
  }
  if (in(lead, 0xF0, 0xF4)) {
    const unsigned char lo = lead == 0xF0 ? 0x90 : 0x80;  // no overlong forms
    const unsigned char hi = lead == 0xF4 ? 0x8F : 0xBF;  // nothing past U+10FFFF
    return in(byte(1), lo, hi) && continuation(2) && continuation(3) ? 4 : 0;
  }
  return 0;
}

void append_escaped(std::string& out, unsigned char c) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  out += "\\x";
  out += kHex[c >> 4];
  out += kHex[c & 0xF];
}

}  // namespace

std::string printable(std::string_view text, LineBreaks line_breaks) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size();) {
    const unsigned char c = static_cast<unsigned char>(text[i]);
    if (c < 0x80) {
      const bool kept_break = c == '\n' && line_breaks == LineBreaks::Keep;
      if ((c < 0x20 || c == 0x7F) && !kept_break) append_escaped(out, c);
      else out += static_cast<char>(c);
      ++i;
      continue;
    }
    const size_t length = utf8_sequence_length(text, i);
    // U+0080..U+009F (the C1 controls) are encoded as C2 80 .. C2 9F.
    const bool c1_control = length == 2 && c == 0xC2 && static_cast<unsigned char>(text[i + 1]) <= 0x9F;
    if (length == 0) {
      append_escaped(out, c);  // not UTF-8: this byte alone, then go on from the next one
      ++i;
    } else if (c1_control) {
      append_escaped(out, c);
      append_escaped(out, static_cast<unsigned char>(text[i + 1]));
      i += 2;
    } else {
      out.append(text.substr(i, length));
      i += length;
    }
  }
  return out;
}

bool is_well_formed_utf8(std::string_view text) noexcept {
  for (size_t i = 0; i < text.size();) {
    if (static_cast<unsigned char>(text[i]) < 0x80) {
      ++i;
      continue;
    }
    const size_t length = utf8_sequence_length(text, i);
    if (length == 0) return false;
    i += length;
  }
  return true;
}

std::string well_formed_utf8(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size();) {
    const size_t length = static_cast<unsigned char>(text[i]) < 0x80 ? 1 : utf8_sequence_length(text, i);
    if (length == 0) {
      out += "\xEF\xBF\xBD";  // U+FFFD
      ++i;
    } else {
      out.append(text.substr(i, length));
      i += length;
    }
  }
  return out;
}

}  // namespace jitgemm
