// jitgemm-db: list, show, diff, merge, verify, prune and explain (db_explain.hpp) tuning database files.
// One options struct, setup function and run function per subcommand; main only wires
// them. Exit status: 0 success, 1 "differs" (diff) or "invalid" (verify), 2 errors.
#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "codegen/kernel_family.hpp"
#include "database/environments.hpp"
#include "database/tuning_database.hpp"
#include "db_explain.hpp"
#include "environment_flags.hpp"
#include "jitgemm/error.hpp"
#include "table.hpp"

namespace jitgemm {
namespace {

using Command = std::function<int()>;

struct GlobalOptions {
  std::string db;
};

std::string default_db_path() {
  const char* env = std::getenv("JITGEMM_TUNING_DB");
  return env != nullptr && *env != '\0' ? env : "tuning_db/jitgemm_tuning.json";
}

// Loads a file that must exist (a missing file is an empty database only for writers).
TuningDatabase load_existing(const std::string& path) {
  if (!std::filesystem::exists(path)) throw DatabaseError(fmt::format("{}: no such file", path));
  return TuningDatabase::load(path);
}

std::string lower(std::string text) {
  for (char& c : text) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return text;
}

std::string speedup(const TuningRecord& r) {
  return fmt::format("{:.2f}x", r.timing.cublas_median_ms / r.timing.median_ms);
}

// ---- list ---------------------------------------------------------------------------

struct ListOptions {
  std::string device;
};

int run_list(const ListOptions& o, const GlobalOptions& g) {
  TuningDatabase db = load_existing(g.db);
  Table table({"key", "winner", "time ms", "TFLOP/s", "vs cuBLAS", "error", "date"});
  for (const TuningRecord& r : db.records()) {
    if (!o.device.empty() && lower(r.device.name).find(lower(o.device)) == std::string::npos) continue;
    table.add_row({r.key(), r.config.name(), fmt::format("{:.4f}", r.timing.median_ms), fmt::format("{:.2f}", r.tflops),
                   speedup(r), fmt::format("{:.2e}", r.accuracy.rel_error), r.tuned_at.substr(0, 10)});
  }
  fmt::print("{}{} of {} records in {}\n", table.render(), table.row_count(), db.size(), g.db);
  return 0;
}

void setup_list(CLI::App& app, const GlobalOptions& g, Command& run) {
  auto o = std::make_shared<ListOptions>();
  CLI::App* cmd = app.add_subcommand("list", "one line per record: winner, time, TFLOP/s, speedup vs cuBLAS");
  cmd->add_option("--device", o->device, "only devices whose name contains this (case-insensitive)");
  cmd->callback([o, &g, &run] { run = [o, &g] { return run_list(*o, g); }; });
}

// ---- show ---------------------------------------------------------------------------

struct ShowOptions {
  std::string key;
  int top = 10;
};

// The record whose key is `key`, or the only one whose key contains it.
const TuningRecord& find_record(const TuningDatabase& db, const std::string& key, const std::string& path) {
  if (const TuningRecord* exact = db.find(key)) return *exact;
  std::vector<const TuningRecord*> hits;
  for (const TuningRecord& r : db.records())
    if (r.key().find(key) != std::string::npos) hits.push_back(&r);
  if (hits.size() == 1) return *hits.front();
  std::string message = fmt::format("{}: no record with key '{}'", path, key);
  if (hits.size() > 1) {
    message = fmt::format("{}: '{}' matches {} records; give one of:", path, key, hits.size());
    for (const TuningRecord* r : hits) message += "\n  " + r->key();
  }
  throw InvalidArgument(message);
}

void print_candidates(const TuningRecord& r, int top) {
  std::vector<const CandidateResult*> sorted;
  for (const CandidateResult& c : r.candidates) sorted.push_back(&c);
  std::stable_sort(sorted.begin(), sorted.end(), [](const CandidateResult* a, const CandidateResult* b) {
    bool a_ok = a->outcome == CandidateOutcome::Ok, b_ok = b->outcome == CandidateOutcome::Ok;
    if (a_ok != b_ok) return a_ok;
    return a_ok && a->median_ms < b->median_ms;
  });
  Table table({"#", "config", "outcome", "time ms", "error", "registers", "spill B", "detail"});
  for (size_t i = 0; i < sorted.size() && static_cast<int>(i) < top; ++i) {
    const CandidateResult& c = *sorted[i];
    bool timed = c.median_ms > 0, checked = timed || c.rel_error != 0;
    table.add_row({std::to_string(i + 1), c.config.name(), std::string(to_string(c.outcome)),
                   timed ? fmt::format("{:.4f}", c.median_ms) : "-", checked ? fmt::format("{:.2e}", c.rel_error) : "-",
                   std::to_string(c.registers), std::to_string(c.spill_bytes), c.detail});
  }
  fmt::print("candidates: {} tried, {} listed, top {}:\n{}", r.candidate_count, r.candidates.size(),
             std::min<size_t>(top, sorted.size()), table.render());
}

int run_show(const ShowOptions& o, const GlobalOptions& g) {
  TuningDatabase db = load_existing(g.db);
  const TuningRecord& r = find_record(db, o.key, g.db);
  const KernelConfig& c = r.config;
  fmt::print("key:         {}\n", r.key());
  fmt::print("problem:     {}\n", r.problem.canonical());
  fmt::print("device:      {} (sm{}, {} SMs)\n", r.device.name, r.device.sm, r.device.sm_count);
  fmt::print("environment: driver {}, nvrtc {}, templates {}, jitgemm {}\n", r.environment.driver_version,
             r.environment.nvrtc_version, r.environment.template_hash, r.environment.jitgemm_version);
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
  fmt::print("tuned_at:    {}\n", r.tuned_at);
  print_candidates(r, o.top);
  return 0;
}

void setup_show(CLI::App& app, const GlobalOptions& g, Command& run) {
  auto o = std::make_shared<ShowOptions>();
  CLI::App* cmd = app.add_subcommand("show", "every field of one record and its best candidates");
  cmd->add_option("key", o->key, "record key, or a part of it that matches one record")->required();
  cmd->add_option("--top", o->top, "candidates to list")->check(CLI::Range(1, 1000000));
  cmd->callback([o, &g, &run] { run = [o, &g] { return run_show(*o, g); }; });
}

// ---- diff ---------------------------------------------------------------------------

struct DiffOptions {
  std::string a, b;
};

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
  if (a.candidate_count != b.candidate_count || a.candidates != b.candidates) other.push_back("candidates");
  if (a.tuned_at != b.tuned_at) other.push_back("tuned_at");
  if (!other.empty()) out.push_back(fmt::format("{} differ", fmt::join(other, ", ")));
  return out;
}

int run_diff(const DiffOptions& o) {
  TuningDatabase a = load_existing(o.a), b = load_existing(o.b);
  std::vector<std::string> only_a, only_b, changed;
  for (const TuningRecord& r : a.records()) {
    const TuningRecord* other = b.find(r.key());
    if (other == nullptr) only_a.push_back(r.key());
    else if (!(r == *other)) changed.push_back(fmt::format("{}: {}", r.key(), fmt::join(record_changes(r, *other), "; ")));
  }
  for (const TuningRecord& r : b.records())
    if (a.find(r.key()) == nullptr) only_b.push_back(r.key());
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

void setup_diff(CLI::App& app, Command& run) {
  auto o = std::make_shared<DiffOptions>();
  CLI::App* cmd = app.add_subcommand("diff", "records only in A, only in B, and changed; exit 1 when they differ");
  cmd->add_option("A", o->a, "first database file")->required();
  cmd->add_option("B", o->b, "second database file")->required();
  cmd->callback([o, &run] { run = [o] { return run_diff(*o); }; });
}

// ---- merge --------------------------------------------------------------------------

struct MergeOptions {
  std::string out;
  std::vector<std::string> inputs;
};

int run_merge(const MergeOptions& o) {
  TuningDatabase merged;
  for (const std::string& input : o.inputs) merged = TuningDatabase::merge(merged, load_existing(input));
  size_t total = 0;
  TuningDatabase::update(o.out, [&](TuningDatabase& db) {
    db = TuningDatabase::merge(db, merged);
    total = db.size();
  });
  fmt::print("merged {} records from {} file(s) into {} ({} records)\n", merged.size(), o.inputs.size(), o.out, total);
  return 0;
}

void setup_merge(CLI::App& app, Command& run) {
  auto o = std::make_shared<MergeOptions>();
  CLI::App* cmd = app.add_subcommand("merge", "merge files into OUT (newer tuned_at wins; locked atomic write)");
  cmd->add_option("OUT", o->out, "database to merge into (created if missing)")->required();
  cmd->add_option("IN", o->inputs, "databases to merge from")->required();
  cmd->callback([o, &run] { run = [o] { return run_merge(*o); }; });
}

// ---- verify -------------------------------------------------------------------------

struct VerifyOptions {
  std::vector<std::string> files;
};

int run_verify(const VerifyOptions& o, const GlobalOptions& g) {
  std::vector<std::string> files = o.files.empty() ? std::vector<std::string>{g.db} : o.files;
  int failures = 0;
  for (const std::string& file : files) {
    try {
      fmt::print("{}: ok: {} records\n", file, load_existing(file).size());
    } catch (const DatabaseError& e) {
      fmt::print(stderr, "{}\n", e.what());
      ++failures;
    }
  }
  return failures == 0 ? 0 : 1;
}

void setup_verify(CLI::App& app, const GlobalOptions& g, Command& run) {
  auto o = std::make_shared<VerifyOptions>();
  CLI::App* cmd = app.add_subcommand("verify", "load with full validation (default: --db); exit 1 on any error");
  cmd->add_option("FILE", o->files, "database files");
  cmd->callback([o, &g, &run] { run = [o, &g] { return run_verify(*o, g); }; });
}

// ---- prune --------------------------------------------------------------------------

struct PruneOptions {
  std::string device;
  bool stale = false;
  EnvironmentFlags environment;
  std::string older_than;
  std::vector<std::string> keys;
  bool dry_run = false;
};

void check_prune_options(const PruneOptions& o) {
  if (o.device.empty() && !o.stale && o.older_than.empty() && o.keys.empty())
    throw InvalidArgument("prune: give at least one of --device, --stale, --older-than, --key");
  if (o.stale && !o.environment.any())
    throw InvalidArgument("prune --stale: give the current environment (--driver, --nvrtc, --template-hash, --jitgemm-version)");
  if (!o.older_than.empty() && !is_utc_timestamp(o.older_than + "T00:00:00Z"))
    throw InvalidArgument(fmt::format("prune --older-than: expected YYYY-MM-DD, got '{}'", o.older_than));
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

int run_prune(const PruneOptions& o, const GlobalOptions& g) {
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
    select(load_existing(g.db));
  } else {
    load_existing(g.db);  // refuse a missing or damaged file before taking the lock
    TuningDatabase::update(g.db, [&](TuningDatabase& db) {
      select(db);
      for (const std::string& key : doomed) db.erase(key);
    });
  }
  if (!doomed.empty()) fmt::print("{}", table.render());
  fmt::print("{} {} of {} records from {}\n", o.dry_run ? "would remove" : "removed", doomed.size(), total, g.db);
  return 0;
}

void setup_prune(CLI::App& app, const GlobalOptions& g, Command& run) {
  auto o = std::make_shared<PruneOptions>();
  CLI::App* cmd = app.add_subcommand("prune", "remove the records that match every given filter");
  cmd->add_option("--device", o->device, "device name (exact)");
  cmd->add_flag("--stale", o->stale, "environment differs from the one given by the flags below");
  add_environment_flags(*cmd, o->environment);
  cmd->add_option("--older-than", o->older_than, "tuned before this UTC date (YYYY-MM-DD)");
  cmd->add_option("--key", o->keys, "exact record key (repeatable)");
  cmd->add_flag("--dry-run", o->dry_run, "only list what would be removed");
  cmd->callback([o, &g, &run] { run = [o, &g] { return run_prune(*o, g); }; });
}

// ---- explain ------------------------------------------------------------------------

void setup_explain(CLI::App& app, const GlobalOptions& g, Command& run) {
  auto o = std::make_shared<ExplainOptions>();
  CLI::App* cmd = app.add_subcommand("explain", "which record serves a problem, and why each record does or not");
  add_explain_options(*cmd, *o);
  cmd->callback([o, &g, &run] { run = [o, &g] { return run_explain(*o, load_existing(g.db)); }; });
}

}  // namespace
}  // namespace jitgemm

int main(int argc, char** argv) {
  using namespace jitgemm;
  CLI::App app{"jitgemm-db: inspect and maintain jitgemm tuning databases"};
  app.fallthrough();  // --db is accepted after the subcommand too
  app.require_subcommand(1);
  GlobalOptions global{default_db_path()};
  app.add_option("--db", global.db, "database file (default: $JITGEMM_TUNING_DB, else tuning_db/jitgemm_tuning.json)")
      ->capture_default_str();
  Command run;
  setup_list(app, global, run);
  setup_show(app, global, run);
  setup_diff(app, run);
  setup_merge(app, run);
  setup_verify(app, global, run);
  setup_prune(app, global, run);
  setup_explain(app, global, run);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 2;  // --help: 0; a usage error: 2, like every other error
  }
  try {
    return run ? run() : 2;
  } catch (const std::exception& e) {
    fmt::print(stderr, "jitgemm-db: {}\n", e.what());
    return 2;
  }
}
