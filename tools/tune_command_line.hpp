// jitgemm-tune's command line: its options, and the parser that fills them. Parsing runs
// nothing, prints nothing and never exits, so a test or a fuzzer can call it with any
// arguments; main() prints the message and tunes.
//
//   TuneCommandLine options;
//   std::string message;
//   const int status = parse_tune_command_line({"jitgemm-tune", "--reference"}, options, message);
//   // status 0: tune as `options` says (or help was asked for: options.help, text in message);
//   // status 2: a usage error, described in message.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace jitgemm {

struct TuneCommandLine {
  bool help = false;  // --help was given: print the message, tune nothing
  // one problem from flags
  int64_t m = 0, n = 0, k = 0, lda = 0, ldb = 0, ldc = 0;
  std::string trans_a = "N", trans_b = "N";
  std::string precision;  // empty: fp32 for one problem, every mode for --reference
  float alpha = 1.0f, beta = 0.0f;
  // or a list / the reference set
  std::string problems_file;
  bool reference = false;
  bool stale = false;     // re-tune this device's records whose environment differs
  bool backward = false;  // tune the gradient products of the problems instead
  bool project = false;   // with backward: the gradients of structured operands projected
  // how
  int jobs = 0;
  int runs = 25;
  double budget_s = 20;   // seconds per problem (budgeted search); 0: the exhaustive search
  double final_idle = 1;  // TuneSettings::final_round_idle
  bool no_priors = false; // do not rank the nearest tuned records' configs first
  std::string db_path;
  std::string cache_dir;
  bool no_write = false;
  bool compile_only = false;
  bool sample = false;
  std::vector<std::string> configs;  // --configs: only these candidates (config names)
  double max_gflop = 0;  // > 0: skip problems of more work than this
  // --refresh-unchanged DIR: tune nothing; refresh the records whose kernels compile alike under
  // DIR's templates (the ones they were tuned with) and this build's (tune/record_refresh.hpp)
  std::string refresh_unchanged;
};

// Parses `args`, the command line as main() receives it (the program name first, shown in the
// help; "jitgemm-tune" when `args` is empty), into `out`. Returns the exit status CLI11's
// parsing gives: 0 to tune (message empty) or for a request for help (out.help, the help text
// in `message`, for stdout); 2 for a usage error (the error and a hint in `message`, for
// stderr). --problems must name an existing file (checked here, as CLI11 checks it).
int parse_tune_command_line(std::vector<std::string> args, TuneCommandLine& out, std::string& message);

}  // namespace jitgemm
