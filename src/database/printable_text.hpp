// Text that came from a file (a device name, a problem id, a field name, a JSON parser's
// excerpt of damaged bytes), made safe to print on a terminal: every byte that could steer it
// is written as "\xNN" instead. The database's error messages and everything jitgemm-db and
// jitgemm-tune print from a file go through printable(); nothing else escapes. And the UTF-8
// check and repair that keep records to what a JSON file can hold.
//
//   throw DatabaseError(fmt::format("{}: {}: unknown field", file, printable(key)));
//   fmt::print("device: {}\n", printable(record.device.name));   // "evil\x1b[2J" stays text
#pragma once

#include <string>
#include <string_view>

namespace jitgemm {

// Whether a line break in the text is kept (a multi-line message) or escaped like the other
// control bytes (a one-line field).
enum class LineBreaks { Escape, Keep };

// `text` with each of these written as "\xNN" (two upper-case hex digits per byte):
//   - the C0 control bytes 0x00..0x1F (ESC, BEL, CR, backspace, ...) and DEL 0x7F;
//   - the C1 control characters U+0080..U+009F, both bytes of their UTF-8 form (U+009B is
//     CSI to some terminals);
//   - every byte that is not part of well-formed UTF-8 (a stray continuation byte, a
//     truncated, overlong or surrogate sequence, anything past U+10FFFF).
// Printable ASCII and well-formed UTF-8 above U+009F are kept as they are, so the escaping is
// idempotent: printable(printable(x)) == printable(x). With LineBreaks::Keep, '\n' is kept.
std::string printable(std::string_view text, LineBreaks line_breaks = LineBreaks::Escape);

// Whether `text` is well-formed UTF-8 (what a JSON file can hold: records hold nothing else).
bool is_well_formed_utf8(std::string_view text) noexcept;
// `text` with each byte that is not part of well-formed UTF-8 replaced by U+FFFD: for text
// from outside (a compiler log) that a record keeps.
std::string well_formed_utf8(std::string_view text);

}  // namespace jitgemm
