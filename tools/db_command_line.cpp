// jitgemm-db's command-line definition (see db_command_line.hpp): one setup function per
// subcommand binds its flags to its options struct.
#include "db_command_line.hpp"

#include <CLI/CLI.hpp>

#include <algorithm>
#include <sstream>
#include <utility>

#include "database/default_database.hpp"

namespace jitgemm {
namespace {

using Command = DbCommandLine::Command;

void setup_list(CLI::App& app, ListOptions& o) {
  CLI::App* cmd = app.add_subcommand("list", "one line per record: winner, time, TFLOP/s, speedup vs cuBLAS");
  cmd->add_option("--device", o.device, "only devices whose name contains this (case-insensitive)");
}

void setup_show(CLI::App& app, ShowOptions& o) {
  CLI::App* cmd = app.add_subcommand(
      "show", "every field of one record and its best candidates (from the history file beside the database "
              "when it has them)");
  cmd->add_option("key", o.key, "record key, or a part of it that matches one record")->required();
  cmd->add_option("--top", o.top, "candidates to list")->check(CLI::Range(1, 1000000));
}

void setup_diff(CLI::App& app, DiffOptions& o) {
  CLI::App* cmd = app.add_subcommand("diff", "records only in A, only in B, and changed; exit 1 when they differ");
  cmd->add_option("A", o.a, "first database file")->required();
  cmd->add_option("B", o.b, "second database file")->required();
}

void setup_merge(CLI::App& app, MergeOptions& o) {
  CLI::App* cmd = app.add_subcommand(
      "merge", "merge files into OUT (newer tuned_at wins; their history files along; locked atomic write); "
               "'merge X X' rewrites X as the current schema");
  cmd->add_option("OUT", o.out, "database to merge into (created if missing)")->required();
  cmd->add_option("IN", o.inputs, "databases to merge from")->required();
}

void setup_verify(CLI::App& app, VerifyOptions& o) {
  CLI::App* cmd = app.add_subcommand(
      "verify", "load with full validation, and the history file beside each (default: --db); exit 1 on any error");
  cmd->add_option("FILE", o.files, "database files, or history files (*.history.json)");
}

void setup_prune(CLI::App& app, PruneOptions& o) {
  CLI::App* cmd = app.add_subcommand("prune", "remove the records that match every given filter");
  cmd->add_option("--device", o.device, "device name (exact)");
  cmd->add_flag("--stale", o.stale, "environment differs from the one given by the flags below");
  add_environment_flags(*cmd, o.environment);
  cmd->add_option("--older-than", o.older_than, "tuned before this UTC date (YYYY-MM-DD)");
  cmd->add_option("--key", o.keys, "exact record key (repeatable)");
  cmd->add_flag("--dry-run", o.dry_run, "only list what would be removed");
}

void setup_explain(CLI::App& app, ExplainOptions& o) {
  CLI::App* cmd = app.add_subcommand("explain", "which record serves a problem, and why each record does or not");
  cmd->add_option("--m", o.problem.m, "rows of op(A) and C")->required()->check(CLI::PositiveNumber);
  cmd->add_option("--n", o.problem.n, "columns of op(B) and C")->required()->check(CLI::PositiveNumber);
  cmd->add_option("--k", o.problem.k, "columns of op(A), rows of op(B)")->required()->check(CLI::PositiveNumber);
  cmd->add_option("--trans-a", o.trans_a, "N or T")->capture_default_str();
  cmd->add_option("--trans-b", o.trans_b, "N or T")->capture_default_str();
  cmd->add_option("--lda", o.problem.lda, "leading dimension of A (0: tight)");
  cmd->add_option("--ldb", o.problem.ldb, "leading dimension of B (0: tight)");
  cmd->add_option("--ldc", o.problem.ldc, "leading dimension of C (0: tight)");
  cmd->add_option("--precision", o.precision, "fp32, tf32x3 or tf32")->capture_default_str();
  cmd->add_option("--structure-a", o.structure_a, "general, symmetric, lower or upper")->capture_default_str();
  cmd->add_option("--structure-b", o.structure_b, "general, symmetric, lower or upper")->capture_default_str();
  cmd->add_option("--fill", o.fill, "full, lower or upper")->capture_default_str();
  cmd->add_option("--device", o.device.name, "device name as the driver reports it")->required();
  cmd->add_option("--sm", o.device.sm, "compute capability, e.g. 90")->required()->check(CLI::Range(10, 999));
  cmd->add_option("--sm-count", o.device.sm_count,
                  "multiprocessors (default: those of the device's records; a sibling device's record, of the same "
                  "sm and count, serves a problem this device has none for)")
      ->check(CLI::Range(1, 10000));
  add_environment_flags(*cmd, o.environment);
}

Command chosen_command(const CLI::App& app) {
  static constexpr std::pair<const char*, Command> kNames[] = {
      {"list", Command::List},     {"show", Command::Show},   {"diff", Command::Diff},
      {"merge", Command::Merge},   {"verify", Command::Verify}, {"prune", Command::Prune},
      {"explain", Command::Explain}};
  for (const auto& [name, command] : kNames)
    if (app.got_subcommand(name)) return command;
  return Command::None;
}

}  // namespace

int parse_db_command_line(std::vector<std::string> args, DbCommandLine& out, std::string& message) {
  DbCommandLine parsed;  // bound to the flags; `out` gets it whatever the outcome
  parsed.db = default_database_path();
  message.clear();
  CLI::App app{"jitgemm-db: inspect and maintain jitgemm tuning databases"};
  app.name(args.empty() ? "jitgemm-db" : args.front());  // shown in the help, as argv[0] is
  app.fallthrough();  // --db is accepted after the subcommand too
  app.require_subcommand(1);
  app.add_option("--db", parsed.db, "database file (default: $JITGEMM_TUNING_DB, else the shipped records, as the Runtime reads)")
      ->capture_default_str();
  setup_list(app, parsed.list);
  setup_show(app, parsed.show);
  setup_diff(app, parsed.diff);
  setup_merge(app, parsed.merge);
  setup_verify(app, parsed.verify);
  setup_prune(app, parsed.prune);
  setup_explain(app, parsed.explain);
  if (!args.empty()) args.erase(args.begin());
  std::reverse(args.begin(), args.end());  // CLI11 takes the arguments last first
  int status = 0;
  try {
    app.parse(std::move(args));
    parsed.command = chosen_command(app);
  } catch (const CLI::ParseError& e) {
    std::ostringstream help, error;
    status = app.exit(e, help, error) == 0 ? 0 : 2;  // --help: 0; a usage error: 2, like every other error
    message = help.str() + error.str();
    parsed.command = Command::None;
  }
  std::swap(out, parsed);
  return status;
}

}  // namespace jitgemm
