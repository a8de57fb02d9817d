// jitgemm-db's command line: every subcommand's options struct, and the parser that fills them.
// Parsing runs nothing, prints nothing and never exits, so a test or a fuzzer can call it with
// any arguments; main() prints the message and runs the chosen subcommand.
//
//   DbCommandLine command_line;
//   std::string message;
//   const int status = parse_db_command_line({"jitgemm-db", "--db", "x.json", "list"}, command_line, message);
//   // status 0: command_line.command is the subcommand (None: help was asked for and is in
//   // message); status 2: a usage error, described in message.
#pragma once

#include <string>
#include <vector>

#include "db_explain.hpp"
#include "environment_flags.hpp"

namespace jitgemm {

struct ListOptions {
  std::string device;  // only devices whose name contains this (case-insensitive)
};

struct ShowOptions {
  std::string key;  // a record key, or a part of one that matches one record
  int top = 10;     // candidates to list
};

struct DiffOptions {
  std::string a, b;
};

struct MergeOptions {
  std::string out;
  std::vector<std::string> inputs;
};

struct VerifyOptions {
  std::vector<std::string> files;  // empty: --db; a name ending ".history.json" is a history file
};

struct PruneOptions {
  std::string device;
  bool stale = false;
  EnvironmentFlags environment;
  std::string older_than;
  std::vector<std::string> keys;
  bool dry_run = false;
};

struct DbCommandLine {
  enum class Command { None, List, Show, Diff, Merge, Verify, Prune, Explain };
  Command command = Command::None;  // None after a request for help
  std::string db;                   // --db: default_database_path() (database/default_database.hpp)
  ListOptions list;
  ShowOptions show;
  DiffOptions diff;
  MergeOptions merge;
  VerifyOptions verify;
  PruneOptions prune;
  ExplainOptions explain;
};

// Parses `args`, the command line as main() receives it (the program name first, shown in the
// help; "jitgemm-db" when `args` is empty), into `out`. Returns the exit status CLI11's parsing
// gives: 0 for a command to run (message empty) or a request for help (the help text in
// `message`, for stdout); 2 for a usage error (the error and a hint in `message`, for stderr).
// Reads $JITGEMM_TUNING_DB, and whether the shipped records exist, for the default of --db
// (default_database_path()); nothing else outside its arguments.
int parse_db_command_line(std::vector<std::string> args, DbCommandLine& out, std::string& message);

}  // namespace jitgemm
