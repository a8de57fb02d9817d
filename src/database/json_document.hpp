// The JSON text of a tuning database file of schema 1-3 as a JSON value, with the position of
// whatever is wrong with it: the first step of reading such a file (database_document.hpp; the
// typed reading follows). Schema 4 is read without a tree (json_cursor.hpp).
//
//   nlohmann::json j = parse_json_document(text, "tuning.json");
//
// Errors are DatabaseErrors that start with `source_name` and give the position as the byte
// offset the parser reached and/or the path of the member being read, in the form the typed
// reader uses ("records[3].timing.runs"):
//   tuning.json: invalid JSON at byte 2501 (in records[3].candidates[2]): syntax error ...
//   tuning.json: invalid JSON in records[0].timing.runs: number overflow parsing '1e400'
//   tuning.json: records[1].timing: duplicate key "runs" (the file is damaged)
// A duplicate key is damage (the JSON library alone would keep the last one silently).
// Text quoted from the file is escaped (printable_text.hpp).
#pragma once

#include <string_view>

#include <nlohmann/json.hpp>

namespace jitgemm {

nlohmann::json parse_json_document(std::string_view text, std::string_view source_name);

}  // namespace jitgemm
