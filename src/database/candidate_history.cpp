// The history file of full candidate tables (see candidate_history.hpp).
#include "database/candidate_history.hpp"

#include <algorithm>
#include <limits>
#include <map>
#include <utility>

#include <fmt/format.h>

#include "database/atomic_file.hpp"
#include "database/file_errors.hpp"
#include "database/json_cursor.hpp"
#include "database/json_text.hpp"
#include "database/printable_text.hpp"
#include "database/record_checksum.hpp"
#include "database/record_reader.hpp"
#include "database/record_text.hpp"
#include "jitgemm/error.hpp"

namespace jitgemm {
namespace {

bool entry_less(const CandidateHistory& a, const CandidateHistory& b) {
  return a.key != b.key ? a.key < b.key : a.tuned_at < b.tuned_at;
}

constexpr std::string_view kEntryFields[] = {"key", "tuned_at", "checksum", "candidates"};
constexpr uint64_t kChecksumBit = uint64_t{1} << 2;

// An entry; with `checksum`, its "checksum" member is required and stored there.
CandidateHistory read_entry(JsonCursor& in, std::string* checksum, ConfigNameCache& names) {
  CandidateHistory entry;
  const size_t entry_byte = in.byte();
  size_t candidates_byte = entry_byte;
  read_members(in, kEntryFields, checksum == nullptr ? kChecksumBit : 0, [&](size_t i) {
    switch (i) {
      case 0: entry.key = read_nonempty_string(in); break;
      case 1: entry.tuned_at = read_timestamp(in); break;
      case 2:
        if (checksum == nullptr) throw FieldError("", "unknown field");
        *checksum = in.string();
        break;
      default:
        candidates_byte = in.byte();
        read_elements(in, [&](size_t) { entry.candidates.push_back(read_candidate(in, names)); });
        break;
    }
  });
  if (entry.candidates.empty())
    throw FieldError("candidates", "expected at least one candidate").at_byte(candidates_byte);
  return entry;
}

void append_entry_text(std::string& out, const CandidateHistory& entry) {
  out += "    {\n      \"key\": ";
  append_json_string(out, entry.key);
  out += ",\n      \"tuned_at\": ";
  append_json_string(out, entry.tuned_at);
  out += ",\n      \"checksum\": ";
  append_json_string(out, history_checksum(entry));
  out += ",\n      \"candidates\": [";
  for (size_t i = 0; i < entry.candidates.size(); ++i) {
    out += i == 0 ? "\n        " : ",\n        ";
    append_candidate_text(out, entry.candidates[i]);
  }
  out += "\n      ]\n    }";
}

std::vector<CandidateHistory> read_histories(std::string_view text, std::string_view source) {
  static constexpr std::string_view kTopFields[] = {"schema_version", "histories"};
  JsonCursor in(text);
  ConfigNameCache names;
  std::vector<CandidateHistory> entries;
  try {
    read_members(in, kTopFields, 0, [&](size_t i) {
      if (i == 0) {
        if (!in.integer_next())
          throw FieldError("", fmt::format("expected integer {}, got {}", TuningHistory::kSchemaVersion,
                                           in.shown_next()));
        const int64_t version = in.integer(std::numeric_limits<int64_t>::min(), std::numeric_limits<int64_t>::max());
        if (version > TuningHistory::kSchemaVersion)
          throw NewerSchemaError(fmt::format(
              "{}: schema_version: expected {}, got {} (written by a newer jitgemm; this version will not modify it)",
              source, TuningHistory::kSchemaVersion, version));
        if (version != TuningHistory::kSchemaVersion)
          throw FieldError("", fmt::format("expected {}, got {}", TuningHistory::kSchemaVersion, version));
        return;
      }
      read_elements(in, [&](size_t) {
        std::string stored;
        const size_t byte = in.byte();
        CandidateHistory entry = read_entry(in, &stored, names);
        if (!is_checksum_text(stored))
          throw FieldError("checksum", fmt::format("expected 32 lower-case hex digits, got \"{}\"", printable(stored)))
              .at_byte(byte);
        if (const std::string computed = history_checksum(entry); computed != stored)
          throw FieldError("checksum", fmt::format("the entry ({} tuned at {}) hashes to {}, not to the {} stored "
                                                   "with it (it was changed after it was written)",
                                                   printable(entry.key), entry.tuned_at, computed, stored))
              .at_byte(byte);
        entries.push_back(std::move(entry));
      });
    });
    in.expect_end();
  } catch (const FieldError& e) {
    throw DatabaseError(located_message(source, e));
  }
  if (!std::is_sorted(entries.begin(), entries.end(), entry_less))
    std::stable_sort(entries.begin(), entries.end(), entry_less);
  const auto same = [](const CandidateHistory& a, const CandidateHistory& b) {
    return a.key == b.key && a.tuned_at == b.tuned_at;
  };
  if (const auto dup = std::adjacent_find(entries.begin(), entries.end(), same); dup != entries.end())
    throw DatabaseError(fmt::format("{}: histories: two entries for \"{}\" tuned at {}", source,
                                    printable(dup->key), dup->tuned_at));
  return entries;
}

}  // namespace

std::filesystem::path history_path_for(const std::filesystem::path& database_path) {
  std::string text = database_path.string();
  if (text.size() > 5 && text.ends_with(".json")) text.resize(text.size() - 5);
  return text + ".history.json";
}

void validate_history_entry(const CandidateHistory& entry) {
  std::string text;
  append_entry_text(text, entry);
  JsonCursor in(text);
  ConfigNameCache names;
  std::string stored;
  try {
    read_entry(in, &stored, names);
  } catch (const FieldError& e) {
    throw InvalidArgument(fmt::format("history of {} tuned at {}: {}", printable(entry.key), printable(entry.tuned_at),
                                      e.what()));
  }
}

std::string history_mismatch(const CandidateHistory& entry, const TuningRecord& record) {
  std::map<CandidateOutcome, int> counts;
  for (const CandidateResult& c : entry.candidates) ++counts[c.outcome];
  if (counts != record.outcomes.by_outcome ||
      static_cast<int>(entry.candidates.size()) + record.outcomes.unrecorded != record.candidate_count) {
    std::string listed;
    for (const auto& [outcome, n] : counts) listed += fmt::format("{}{} {}", listed.empty() ? "" : ", ", n, to_string(outcome));
    return fmt::format("its {} candidates ({}) are not the {} the record counts", entry.candidates.size(), listed,
                       record.candidate_count - record.outcomes.unrecorded);
  }
  return "";
}

TuningHistory TuningHistory::load(const std::filesystem::path& path) {
  std::optional<std::string> text = read_file_if_exists(path);
  if (!text) return {};
  return parse(*text, path.string());
}

TuningHistory TuningHistory::parse(std::string_view text, std::string_view source_name) {
  TuningHistory history;
  history.entries_ = read_histories(text, source_name);
  return history;
}

std::string TuningHistory::dump() const {
  std::string out = fmt::format("{{\n  \"schema_version\": {},\n  \"histories\": [", kSchemaVersion);
  for (size_t i = 0; i < entries_.size(); ++i) {
    out += i == 0 ? "\n" : ",\n";
    append_entry_text(out, entries_[i]);
  }
  out += entries_.empty() ? "]\n}\n" : "\n  ]\n}\n";
  return out;
}

void TuningHistory::upsert(CandidateHistory entry) {
  auto it = std::lower_bound(entries_.begin(), entries_.end(), entry, entry_less);
  if (it != entries_.end() && it->key == entry.key && it->tuned_at == entry.tuned_at)
    *it = std::move(entry);
  else
    entries_.insert(it, std::move(entry));
}

bool TuningHistory::insert(CandidateHistory entry) {
  if (find(entry.key, entry.tuned_at) != nullptr) return false;
  upsert(std::move(entry));
  return true;
}

const CandidateHistory* TuningHistory::find(std::string_view key, std::string_view tuned_at) const {
  auto it = std::lower_bound(entries_.begin(), entries_.end(), std::pair(key, tuned_at),
                             [](const CandidateHistory& e, const std::pair<std::string_view, std::string_view>& k) {
                               return e.key != k.first ? e.key < k.first : e.tuned_at < k.second;
                             });
  return it != entries_.end() && it->key == key && it->tuned_at == tuned_at ? &*it : nullptr;
}

size_t TuningHistory::retain_if(const std::function<bool(const CandidateHistory&)>& keep) {
  const size_t before = entries_.size();
  std::erase_if(entries_, [&](const CandidateHistory& e) { return !keep(e); });
  return before - entries_.size();
}

}  // namespace jitgemm
