// Writing JSON values as text, for the writers of schema-4 database files and history files
// (record_text.hpp, candidate_history.hpp), which lay their text out by hand (one line per
// small object) instead of through a JSON library's tree.
//
//   std::string out;
//   append_json_string(out, record.device.name);  // "NVIDIA H100", quotes and escapes added
//   append_json_number(out, timing.median_ms);    // the shortest text that reads back exactly
#pragma once

#include <string>
#include <string_view>

namespace jitgemm {

// `text` as a JSON string: '"' and '\' escaped, control characters as \n, \t, ... or \u00XX;
// everything else (UTF-8 included) as it is. Text that is not UTF-8 is written as it is too:
// the readers reject it, which is how validate_record finds it.
void append_json_string(std::string& out, std::string_view text);

// `value` in the shortest form that reads back to the same bits ("0.061087999", "1e-07",
// "-0"); a non-finite value as nan, inf or -inf, which no reader accepts as a field's value.
void append_json_number(std::string& out, double value);

void append_json_integer(std::string& out, long long value);

}  // namespace jitgemm
