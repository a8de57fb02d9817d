// Reading schema-4 records from JSON text (record_text.hpp writes them): straight from the text
// into the typed struct through a JsonCursor, every field checked as strictly as the
// nlohmann readers of schema 1-3 check theirs (record_json.hpp), errors as FieldErrors with
// the field path and the byte ("top[3].median_ms: expected >= the median_ms of top[2] ...").
//
//   JsonCursor in(text);
//   std::string checksum;
//   TuningRecord r = read_record(in, &checksum);    // the database verifies the checksum
//
// The checks beyond each field's own: the winner can be built (its family's rules); timing
// p10 <= median <= p90; accuracy.rel_error <= tolerance; the outcome counts add up to
// candidate_count; "top" holds at most kTopCandidates entries, sorted by median_ms (fastest
// first), no more than the count of ok outcomes, each within the accuracy tolerance.
#pragma once

#include <string>
#include <string_view>

#include "database/config_fields.hpp"
#include "database/config_reader.hpp"
#include "database/json_cursor.hpp"
#include "database/tuning_record.hpp"

namespace jitgemm {

// The record object at the cursor. With `checksum`, the "checksum" member is required and its
// text is stored there (not verified: record_checksum.hpp); without, it is an unknown field.
// `names` reads the top candidates' config names (one cache for a whole file).
TuningRecord read_record(JsonCursor& in, std::string* checksum, ConfigNameCache& names);

// A record's text alone, without a checksum (what validate_record writes).
TuningRecord read_record_text(std::string_view text);

// A full-table candidate (record_text.hpp's append_candidate_text): the config by name, the
// outcome by name, median_ms > 0 when ok (>= 0 otherwise), rel_error >= 0 or null (+infinity).
CandidateResult read_candidate(JsonCursor& in, ConfigNameCache& names);

// A non-empty UTF-8 string member value, and a timestamp "YYYY-MM-DDTHH:MM:SSZ".
std::string read_nonempty_string(JsonCursor& in);
std::string read_timestamp(JsonCursor& in);

}  // namespace jitgemm
