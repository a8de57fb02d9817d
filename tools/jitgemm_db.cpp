// jitgemm-db: list, show, diff, merge, verify, prune and explain (db_explain.hpp) tuning database
// files and the history files beside them (candidate_history.hpp: show prints a record's
// candidates from its history, verify checks it, merge carries it along; a damaged history is
// reported and never stops the database from being read). The command line is defined in
// db_command_line.cpp; here one run function per subcommand, and main, which parses and runs.
// Exit status: 0 success, 1 "differs" (diff) or "invalid" (verify), 2 errors. Text from a
// database file is printed through printable() (the table does it for its cells), so a device
// name cannot steer the terminal.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <filesystem>
#include <optional>
#include <string>
#include <system_error>
#include <vector>

#include "codegen/kernel_family.hpp"
#include "database/atomic_file.hpp"
#include "database/candidate_history.hpp"
#include "database/environments.hpp"
#include "database/printable_text.hpp"
#include "database/record_compaction.hpp"
#include "database/tuning_database.hpp"
#include "db_command_line.hpp"
#include "db_explain.hpp"
#include "jitgemm/error.hpp"
#include "table.hpp"

namespace jitgemm {
namespace {

// Throws unless the file exists (a missing file is an empty database only for writers). A path
// that cannot be looked at (a symbolic link loop, a directory without permission) is a
// DatabaseError naming it, like any other unreadable file.
void require_existing(const std::string& path) {
  std::error_code ec;
  const bool exists = std::filesystem::exists(path, ec);
  if (ec) throw DatabaseError(fmt::format("{}: cannot read: {}", path, ec.message()));
  if (!exists) throw DatabaseError(fmt::format("{}: no such file", path));
}

// Loads a file that must exist.
TuningDatabase load_existing(const std::string& path) {
  require_existing(path);
  return TuningDatabase::load(path);
}

// Warns on stderr of each record of `file` dated in the future (is_future_dated): merge ranks
// such a record as undated.
void warn_of_future_dates(const TuningDatabase& db, const std::string& file) {
  const auto now = std::chrono::system_clock::now();
  for (const TuningRecord& r : db.records())
    if (is_future_dated(r, now))
      fmt::print(stderr,
                 "warning: {}: record {}: tuned_at {} is more than a day after now ({}); merge does not let it "
                 "win by that date\n",
                 file, printable(r.key()), r.tuned_at, format_utc_timestamp(now));
}

// The history file of the database `path`: beside it, or beside the file it names when it is a
// symbolic link (where the writers keep it).
std::filesystem::path history_of(const std::string& path) {
  std::error_code ec;
  return history_path_for(std::filesystem::is_symlink(path, ec) ? resolve_links(path) : std::filesystem::path(path));
}

std::string lower(std::string text) {
  for (char& c : text) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return text;
}

std::string speedup(const TuningRecord& r) {
  return fmt::format("{:.2f}x", r.timing.cublas_median_ms / r.timing.median_ms);
}

// ---- list ---------------------------------------------------------------------------

int run_list(const ListOptions& o, const std::string& db_path) {
  TuningDatabase db = load_existing(db_path);
  Table table({"key", "winner", "time ms", "TFLOP/s", "vs cuBLAS", "error", "date"});
  for (const TuningRecord& r : db.records()) {
    if (!o.device.empty() && lower(r.device.name).find(lower(o.device)) == std::string::npos) continue;
    table.add_row({r.key(), r.config.name(), fmt::format("{:.4f}", r.timing.median_ms), fmt::format("{:.2f}", r.tflops),
                   speedup(r), fmt::format("{:.2e}", r.accuracy.rel_error), r.tuned_at.substr(0, 10)});
  }
  fmt::print("{}{} of {} records in {}\n", table.render(), table.row_count(), db.size(), db_path);
  return 0;
}

// ---- show ---------------------------------------------------------------------------

// The record whose key is `key`, or the only one whose key contains it.
const TuningRecord& find_record(const TuningDatabase& db, const std::string& key, const std::string& path) {
  if (const TuningRecord* exact = db.find(key)) return *exact;
  std::vector<const TuningRecord*> hits;
  for (const TuningRecord& r : db.records())
    if (r.key().find(key) != std::string::npos) hits.push_back(&r);
  if (hits.size() == 1) return *hits.front();
  std::string message = fmt::format("{}: no record with key '{}'", path, printable(key));
  if (hits.size() > 1) {
    message = fmt::format("{}: '{}' matches {} records; give one of:", path, printable(key), hits.size());
    for (const TuningRecord* r : hits) message += "\n  " + printable(r->key());
  }
  throw InvalidArgument(message);
}

// "860 ok, 36 spills, 206 unrecorded".
std::string outcome_counts_text(const OutcomeCounts& counts) {
  std::vector<std::string> parts;
  for (const auto& [outcome, n] : counts.by_outcome) parts.push_back(fmt::format("{} {}", n, to_string(outcome)));
  if (counts.unrecorded != 0) parts.push_back(fmt::format("{} unrecorded", counts.unrecorded));
  return fmt::format("{}", fmt::join(parts, ", "));
}

// The first `top` of `candidates`: the ok ones fastest first, then the others as tried.
void print_candidate_table(std::vector<CandidateResult> candidates, int top) {
  std::stable_sort(candidates.begin(), candidates.end(), [](const CandidateResult& a, const CandidateResult& b) {
    bool a_ok = a.outcome == CandidateOutcome::Ok, b_ok = b.outcome == CandidateOutcome::Ok;
    if (a_ok != b_ok) return a_ok;
    return a_ok && a.median_ms < b.median_ms;
  });
  Table table({"#", "config", "outcome", "time ms", "error", "registers", "spill B", "detail"});
  for (size_t i = 0; i < candidates.size() && static_cast<int>(i) < top; ++i) {
    const CandidateResult& c = candidates[i];
    bool timed = c.median_ms > 0, checked = timed || c.rel_error != 0;
    table.add_row({std::to_string(i + 1), c.config.name(), std::string(to_string(c.outcome)),
                   timed ? fmt::format("{:.4f}", c.median_ms) : "-", checked ? fmt::format("{:.2e}", c.rel_error) : "-",
                   std::to_string(c.registers), std::to_string(c.spill_bytes), c.detail});
  }
  fmt::print("{}", table.render());
}

// The candidates of `r`: the full table from the history file beside the database when it has
// the record's entry, else the list a file of schema 1-3 kept in the record (`tables`), else the
// record's own top list, saying which. A damaged history is reported on stderr and the next
// source shown.
void print_candidates(const TuningRecord& r, int top, const std::string& db_path, const LoadedDatabase& file) {
  fmt::print("candidates:  {} tried: {}\n", r.candidate_count, outcome_counts_text(r.outcomes));
  const std::filesystem::path history_path = history_of(db_path);
  std::string why_not;
  try {
    const TuningHistory history = TuningHistory::load(history_path);
    if (const CandidateHistory* entry = history.find(r)) {
      fmt::print("top {} of {} listed, from {}:\n", std::min<size_t>(static_cast<size_t>(top), entry->candidates.size()),
                 entry->candidates.size(), history_path.string());
      if (const std::string mismatch = history_mismatch(*entry, r); !mismatch.empty())
        fmt::print(stderr, "warning: {}: the entry of {} tuned at {}: {}\n", history_path.string(), printable(r.key()),
                   r.tuned_at, mismatch);
      print_candidate_table(entry->candidates, top);
      return;
    }
    why_not = std::filesystem::exists(history_path) ? fmt::format("{} has no entry for it", history_path.string())
                                                    : fmt::format("no history file {}", history_path.string());
  } catch (const DatabaseError& e) {
    fmt::print(stderr, "jitgemm-db: {} (showing the candidates the database keeps instead)\n",
               printable(e.what(), LineBreaks::Keep));
    why_not = fmt::format("the history file {} is damaged", history_path.string());
  }
  for (const CandidateHistory& table : file.tables)
    if (table.key == r.key() && table.tuned_at == r.tuned_at) {
      fmt::print("top {} of {} listed, from {} (schema {}: its records list their candidates):\n",
                 std::min<size_t>(static_cast<size_t>(top), table.candidates.size()), table.candidates.size(), db_path,
                 file.schema_version);
      print_candidate_table(table.candidates, top);
      return;
    }
  std::vector<CandidateResult> listed;
  for (const RankedCandidate& c : r.top) listed.push_back(as_candidate_result(c));
  fmt::print("top {} of {} ok, from the record ({}):\n", std::min<size_t>(static_cast<size_t>(top), listed.size()),
             r.outcomes.count(CandidateOutcome::Ok), why_not);
  print_candidate_table(std::move(listed), top);
}

int run_show(const ShowOptions& o, const std::string& db_path) {
  require_existing(db_path);
  const LoadedDatabase file = TuningDatabase::load_with_tables(db_path);
  const TuningRecord& r = find_record(file.database, o.key, db_path);
  const KernelConfig& c = r.config;
  fmt::print("key:         {}\n", printable(r.key()));
  fmt::print("problem:     {}\n", r.problem.canonical());
  fmt::print("device:      {} (sm{}, {} SMs)\n", printable(r.device.name), r.device.sm, r.device.sm_count);
  fmt::print("environment: driver {}, nvrtc {}, templates {}, jitgemm {}\n", r.environment.driver_version,
             r.environment.nvrtc_version, printable(r.environment.template_hash),
             printable(r.environment.jitgemm_version));
  fmt::print("config:      {}\n", c.name());
  std::vector<std::string> params;
  for (const ConfigField& f : rules_of(c).fields()) params.push_back(fmt::format("{} {}", f.name, field_text(f, c)));
  fmt::print("             family {}, precision {}, block {}x{}x{}, stages {}, split_k {}, raster_group {}\n",
             to_string(c.family()), to_string(c.precision), c.block_m, c.block_n, c.block_k, c.stages, c.split_k,
             c.raster_group);
  fmt::print("             {}\n", fmt::join(params, ", "));
  fmt::print("timing:      median {:.4f} ms (p10 {:.4f}, p90 {:.4f}), {} runs, L2 {}\n", r.timing.median_ms,
             r.timing.p10_ms, r.timing.p90_ms, r.timing.runs, r.timing.l2_flushed ? "flushed" : "not flushed");
  fmt::print("cuBLAS:      median {:.4f} ms, speedup {}\n", r.timing.cublas_median_ms, speedup(r));
  fmt::print("throughput:  {:.2f} TFLOP/s\n", r.tflops);
  fmt::print("accuracy:    rel_error {:.3e} (tolerance {:.3e}), cuBLAS {:.3e}\n", r.accuracy.rel_error,
             r.accuracy.tolerance, r.accuracy.cublas_rel_error);
  fmt::print("tuned_at:    {}{}\n", r.tuned_at,
             r.tune_s > 0 ? fmt::format(" (the tuning took {:.1f} s)", r.tune_s) : std::string());
  print_candidates(r, o.top, db_path, file);
  return 0;
}

// ---- diff ---------------------------------------------------------------------------

// What differs between two records with the same key, e.g. "config X -> Y".
std::vector<std::string> record_changes(const TuningRecord& a, const TuningRecord& b) {
  std::vector<std::string> out;
  if (a.config != b.config) out.push_back(fmt::format("config {} -> {}", a.config.name(), b.config.name()));
  if (a.timing.median_ms != b.timing.median_ms)
    out.push_back(fmt::format("time {:.4f} -> {:.4f} ms", a.timing.median_ms, b.timing.median_ms));
  std::vector<std::string> other;
  if (a.device != b.device) other.push_back("device");
  if (a.environment != b.environment) other.push_back("environment");
  if (a.timing.median_ms == b.timing.median_ms && a.timing != b.timing) other.push_back("timing");
  if (a.tflops != b.tflops) other.push_back("tflops");
  if (a.accuracy != b.accuracy) other.push_back("accuracy");
  if (a.candidate_count != b.candidate_count || a.outcomes != b.outcomes || a.top != b.top)
    other.push_back("candidates");
  if (a.tuned_at != b.tuned_at) other.push_back("tuned_at");
  if (a.tune_s != b.tune_s) other.push_back("tune_s");
  if (!other.empty()) out.push_back(fmt::format("{} differ", fmt::join(other, ", ")));
  return out;
}

int run_diff(const DiffOptions& o) {
  TuningDatabase a = load_existing(o.a), b = load_existing(o.b);
  std::vector<std::string> only_a, only_b, changed;
  for (const TuningRecord& r : a.records()) {
    const TuningRecord* other = b.find(r.key());
    if (other == nullptr) only_a.push_back(printable(r.key()));
    else if (!(r == *other))
      changed.push_back(fmt::format("{}: {}", printable(r.key()), fmt::join(record_changes(r, *other), "; ")));
  }
  for (const TuningRecord& r : b.records())
    if (a.find(r.key()) == nullptr) only_b.push_back(printable(r.key()));
  auto section = [](const std::string& title, const std::vector<std::string>& lines) {
    if (lines.empty()) return;
    fmt::print("{} ({}):\n", title, lines.size());
    for (const std::string& line : lines) fmt::print("  {}\n", line);
  };
  section("only in " + o.a, only_a);
  section("only in " + o.b, only_b);
  section("changed", changed);
  bool identical = only_a.empty() && only_b.empty() && changed.empty();
  if (identical) fmt::print("identical: {} records\n", a.size());
  return identical ? 0 : 1;
}

// ---- merge --------------------------------------------------------------------------

// The history file beside `database` (its entries), or none with a warning on stderr when it
// is damaged: a history never stops a database from being read or merged.
std::vector<CandidateHistory> history_beside(const std::string& database) {
  const std::filesystem::path path = history_of(database);
  try {
    return TuningHistory::load(path).entries();
  } catch (const DatabaseError& e) {
    fmt::print(stderr, "warning: {} (the candidate tables of {} are not merged)\n", printable(e.what(), LineBreaks::Keep),
               database);
    return {};
  }
}

int run_merge(const MergeOptions& o) {
  TuningDatabase merged;
  TuningHistory tables;  // of every input: its history file, and the lists of a file of schema 1-3
  for (const std::string& input : o.inputs) {
    require_existing(input);  // a missing input is an error, not an empty database
    LoadedDatabase in = TuningDatabase::load_with_tables(input);
    warn_of_future_dates(in.database, input);
    merged = TuningDatabase::merge(merged, in.database);
    for (CandidateHistory& table : in.tables) tables.insert(std::move(table));
    for (CandidateHistory& entry : history_beside(input)) tables.insert(std::move(entry));
  }
  size_t total = 0;
  const SaveReport report = TuningDatabase::update_with_history(o.out, [&](TuningDatabase& db, TuningHistory& history) {
    warn_of_future_dates(db, o.out);
    db = TuningDatabase::merge(db, merged);
    for (const CandidateHistory& entry : tables.entries()) history.insert(entry);  // kept if its record won
    total = db.size();
  });
  if (!report.warning.empty()) fmt::print(stderr, "warning: {}\n", printable(report.warning, LineBreaks::Keep));
  fmt::print("merged {} records from {} file(s) into {} ({} records)\n", merged.size(), o.inputs.size(), o.out, total);
  if (report.history_entries >= 0)
    fmt::print("history: {} ({} candidate tables)\n", history_of(o.out).string(),
               report.history_entries);
  return 0;
}

// ---- verify -------------------------------------------------------------------------

// A history file checked on its own and, when `db` is given, against the records of `db`:
// entries for no record are counted (left from earlier tunings), entries whose candidates are
// not what their record counts are errors. Returns false when it is damaged or disagrees.
bool verify_history(const std::filesystem::path& path, const TuningDatabase* db, const std::string& db_path) {
  TuningHistory history;
  try {
    history = TuningHistory::load(path);
  } catch (const DatabaseError& e) {
    fmt::print(stderr, "{}\n", e.what());
    return false;
  }
  if (db == nullptr) {
    fmt::print("{}: ok: {} entries\n", path.string(), history.size());
    return true;
  }
  size_t matched = 0, orphans = 0, mismatched = 0;
  for (const CandidateHistory& entry : history.entries()) {
    const TuningRecord* r = db->find(entry.key);
    if (r == nullptr || r->tuned_at != entry.tuned_at) {
      ++orphans;
      continue;
    }
    ++matched;
    if (const std::string mismatch = history_mismatch(entry, *r); !mismatch.empty()) {
      fmt::print(stderr, "{}: the entry of {} tuned at {}: {}\n", path.string(), printable(entry.key), entry.tuned_at,
                 mismatch);
      ++mismatched;
    }
  }
  if (mismatched != 0) return false;
  fmt::print("{}: ok: {} entries, {} of them for records of {}{}\n", path.string(), history.size(), matched, db_path,
             orphans == 0 ? "" : fmt::format(" ({} of no record: earlier tunings)", orphans));
  return true;
}

bool is_history_file(const std::string& path) { return path.ends_with(".history.json"); }

// "<name>.json" for "<name>.history.json".
std::string database_beside(const std::string& history) {
  return history.substr(0, history.size() - std::string_view(".history.json").size()) + ".json";
}

// Every file is checked, whatever the others hold; a date in the future is a warning (the
// record loads and serves; merge does not believe the date). A database's history file is
// checked with it when there is one; a file named "*.history.json" is checked as a history
// (against the database beside it, when there is one).
int run_verify(const VerifyOptions& o, const std::string& db_path) {
  std::vector<std::string> files = o.files.empty() ? std::vector<std::string>{db_path} : o.files;
  int failures = 0;
  for (const std::string& file : files) {
    try {
      if (is_history_file(file)) {
        require_existing(file);  // a missing file named on the command line is an error
        const std::string beside = database_beside(file);
        std::optional<TuningDatabase> db;
        if (std::filesystem::exists(beside)) db = TuningDatabase::load(beside);
        failures += verify_history(file, db ? &*db : nullptr, beside) ? 0 : 1;
        continue;
      }
      const TuningDatabase db = load_existing(file);
      fmt::print("{}: ok: {} records\n", file, db.size());
      warn_of_future_dates(db, file);
      const std::filesystem::path history = history_of(file);
      if (std::filesystem::exists(history)) failures += verify_history(history, &db, file) ? 0 : 1;
    } catch (const DatabaseError& e) {
      fmt::print(stderr, "{}\n", e.what());
      ++failures;
    }
  }
  return failures == 0 ? 0 : 1;
}

// ---- prune --------------------------------------------------------------------------

void check_prune_options(const PruneOptions& o) {
  if (o.device.empty() && !o.stale && o.older_than.empty() && o.keys.empty())
    throw InvalidArgument("prune: give at least one of --device, --stale, --older-than, --key");
  if (o.stale && !o.environment.any())
    throw InvalidArgument("prune --stale: give the current environment (--driver, --nvrtc, --template-hash, --jitgemm-version)");
  if (!o.older_than.empty() && !is_utc_timestamp(o.older_than + "T00:00:00Z"))
    throw InvalidArgument(fmt::format("prune --older-than: expected YYYY-MM-DD, got '{}'", printable(o.older_than)));
}

// Why `r` is pruned (every given filter holds), or "" when it stays.
std::string prune_reason(const TuningRecord& r, const PruneOptions& o) {
  std::vector<std::string> why;
  if (!o.device.empty()) {
    if (r.device.name != o.device) return "";
    why.push_back("device");
  }
  if (o.stale) {
    std::vector<std::string> diffs;
    for (const StaleField& f : staleness(r, o.environment.over(Environments{}))) diffs.push_back(to_string(f));
    if (diffs.empty()) return "";
    why.push_back(fmt::format("stale ({})", fmt::join(diffs, ", ")));
  }
  if (!o.older_than.empty()) {
    if (r.tuned_at >= o.older_than + "T00:00:00Z") return "";
    why.push_back("older than " + o.older_than);
  }
  if (!o.keys.empty()) {
    if (std::find(o.keys.begin(), o.keys.end(), r.key()) == o.keys.end()) return "";
    why.push_back("key");
  }
  return fmt::format("{}", fmt::join(why, ", "));
}

int run_prune(const PruneOptions& o, const std::string& db_path) {
  check_prune_options(o);
  Table table({"key", "tuned_at", "reason"});
  std::vector<std::string> doomed;
  size_t total = 0;
  auto select = [&](const TuningDatabase& db) {
    total = db.size();
    for (const TuningRecord& r : db.records()) {
      std::string reason = prune_reason(r, o);
      if (reason.empty()) continue;
      doomed.push_back(r.key());
      table.add_row({r.key(), r.tuned_at, reason});
    }
  };
  if (o.dry_run) {
    select(load_existing(db_path));
  } else {
    load_existing(db_path);  // refuse a missing or damaged file before taking the lock
    const SaveReport report = TuningDatabase::update(db_path, [&](TuningDatabase& db) {
      select(db);
      for (const std::string& key : doomed) db.erase(key);
    });
    if (!report.warning.empty()) fmt::print(stderr, "warning: {}\n", printable(report.warning, LineBreaks::Keep));
  }
  if (!doomed.empty()) fmt::print("{}", table.render());
  fmt::print("{} {} of {} records from {}\n", o.dry_run ? "would remove" : "removed", doomed.size(), total, db_path);
  return 0;
}

int run(const DbCommandLine& c) {
  switch (c.command) {
    case DbCommandLine::Command::List: return run_list(c.list, c.db);
    case DbCommandLine::Command::Show: return run_show(c.show, c.db);
    case DbCommandLine::Command::Diff: return run_diff(c.diff);
    case DbCommandLine::Command::Merge: return run_merge(c.merge);
    case DbCommandLine::Command::Verify: return run_verify(c.verify, c.db);
    case DbCommandLine::Command::Prune: return run_prune(c.prune, c.db);
    case DbCommandLine::Command::Explain: return run_explain(c.explain, load_existing(c.db));
    case DbCommandLine::Command::None: break;
  }
  return 2;
}

}  // namespace
}  // namespace jitgemm

int main(int argc, char** argv) {
  using namespace jitgemm;
  DbCommandLine command_line;
  std::string message;
  if (parse_db_command_line(std::vector<std::string>(argv, argv + argc), command_line, message) != 0) {
    fmt::print(stderr, "{}", message);
    return 2;
  }
  if (command_line.command == DbCommandLine::Command::None) {  // --help
    fmt::print("{}", message);
    return 0;
  }
  try {
    return run(command_line);
  } catch (const std::exception& e) {
    fmt::print(stderr, "jitgemm-db: {}\n", printable(e.what(), LineBreaks::Keep));
    return 2;
  }
}
