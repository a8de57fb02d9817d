// libFuzzer target: the tuning-database reader. The input is a database file's text, handed
// to TuningDatabase::parse, the function load() calls with the file's contents (schema 1-3
// through the migrations and the JSON tree, schema 4 through the streaming reader), and to
// TuningHistory::parse, the reader of the history file beside a database (the same streaming
// reader).
//
// What must hold for any input:
//   - parse returns or throws DatabaseError; any other exception escapes, ends the process
//     and libFuzzer reports it (a raw JSON-library error, std::out_of_range, ...);
//   - what loads can be saved: every record passes validate_record (the writers' check);
//   - what is saved loads back to the same records (dump, parse, compare), and every record
//     is found again as the exact match of its own device and problem.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "database/candidate_history.hpp"
#include "database/tuning_database.hpp"
#include "jitgemm/error.hpp"

namespace {

[[noreturn]] void fail(const char* what, const std::string& detail) {
  std::fprintf(stderr, "fuzz_tuning_database: %s\n%s\n", what, detail.c_str());
  std::abort();
}

void check_loaded(const jitgemm::TuningDatabase& db) {
  for (const jitgemm::TuningRecord& record : db.records()) {
    try {
      jitgemm::validate_record(record);
    } catch (const jitgemm::Error& e) {
      fail("a loaded record fails validate_record, so no writer could save it", e.what());
    }
    const jitgemm::RecordMatch match = db.match(record.device, record.problem);
    if (match.rule != jitgemm::RecordMatch::Rule::Exact || match.record == nullptr || !(*match.record == record))
      fail("a loaded record is not the exact match of its own key", record.key());
  }
  const std::string saved = db.dump();
  jitgemm::TuningDatabase reloaded;
  try {
    reloaded = jitgemm::TuningDatabase::parse(saved, "saved");
  } catch (const jitgemm::DatabaseError& e) {
    fail("the saved text of a loaded database does not load", e.what());
  }
  if (reloaded.records() != db.records()) fail("saving and loading changed the records", saved);
}

void check_history(std::string_view text) {
  jitgemm::TuningHistory history;
  try {
    history = jitgemm::TuningHistory::parse(text, "fuzz.history.json");
  } catch (const jitgemm::DatabaseError&) {
    return;  // rejected with a message
  }
  for (const jitgemm::CandidateHistory& entry : history.entries()) {
    try {
      jitgemm::validate_history_entry(entry);
    } catch (const jitgemm::Error& e) {
      fail("a loaded history entry fails validate_history_entry", e.what());
    }
  }
  const std::string saved = history.dump();
  jitgemm::TuningHistory reloaded;
  try {
    reloaded = jitgemm::TuningHistory::parse(saved, "saved");
  } catch (const jitgemm::DatabaseError& e) {
    fail("the saved text of a loaded history does not load", e.what());
  }
  if (reloaded.entries() != history.entries()) fail("saving and loading changed the history", saved);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  check_history(text);
  jitgemm::TuningDatabase db;
  try {
    db = jitgemm::TuningDatabase::parse(text, "fuzz.json");
  } catch (const jitgemm::DatabaseError&) {
    return 0;  // rejected with a message: the expected outcome for damaged text
  }
  check_loaded(db);
  return 0;
}
