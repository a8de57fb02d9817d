// jitgemm-tune's command-line definition (see tune_command_line.hpp).
#include "tune_command_line.hpp"

#include <CLI/CLI.hpp>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <sstream>
#include <utility>

namespace jitgemm {
namespace {

// CLI::Range lets NaN through (every comparison with it is false): this refuses it first.
CLI::Validator not_nan(const std::string& type) {
  return CLI::Validator(
      [](std::string& text) {
        return std::isnan(std::strtod(text.c_str(), nullptr)) ? std::string("must be a number, not NaN")
                                                               : std::string();
      },
      type);
}

void add_problem_options(CLI::App& app, TuneCommandLine& o) {
  app.add_option("--m", o.m, "rows of op(A) and C");
  app.add_option("--n", o.n, "columns of op(B) and C");
  app.add_option("--k", o.k, "columns of op(A), rows of op(B)");
  app.add_option("--trans-a", o.trans_a, "N: A stored M x K; T: A stored K x M")->check(CLI::IsMember({"N", "T"}));
  app.add_option("--trans-b", o.trans_b, "N: B stored K x N; T: B stored N x K")->check(CLI::IsMember({"N", "T"}));
  app.add_option("--lda", o.lda, "leading dimension of A (0: tight)");
  app.add_option("--ldb", o.ldb, "leading dimension of B (0: tight)");
  app.add_option("--ldc", o.ldc, "leading dimension of C (0: tight)");
  app.add_option("--alpha", o.alpha, "alpha");
  app.add_option("--beta", o.beta, "beta");
  app.add_option("--precision", o.precision, "fp32 | tf32x3 | tf32 (default: fp32; with --reference every mode)")
      ->check(CLI::IsMember({"fp32", "tf32x3", "tf32"}));
}

void add_selection_options(CLI::App& app, TuneCommandLine& o) {
  app.add_option("--problems", o.problems_file, "JSON array of problems ({m,n,k,trans_a,trans_b,lda,...,id})")
      ->check(CLI::ExistingFile);
  app.add_flag("--reference", o.reference, "tune the reference problems of reference-problems.md");
  app.add_flag("--stale", o.stale,
               "re-tune (and so re-verify) this device's records whose environment differs from this machine's");
  auto* backward = app.add_flag("--backward", o.backward,
                                "tune the gradient products of the given problems (what Runtime::gemm_backward runs: "
                                "<id>_dA, <id>_dB) instead of the problems");
  app.add_flag("--project", o.project,
               "with --backward: the gradients of structured operands projected on their structure")
      ->needs(backward);
}

void add_run_options(CLI::App& app, TuneCommandLine& o) {
  app.add_option("--jobs,-j", o.jobs, "parallel NVRTC compiles (0: all cores; with a budget all but one)")
      ->check(CLI::Range(0, 256));
  app.add_option("--runs", o.runs, "timed runs of each finalist (median; >= 20)")->check(CLI::Range(20, 10000));
  app.add_option("--budget", o.budget_s,
                 "seconds of wall time per problem (default 20): candidates ranked by a performance model and "
                 "pruned, compiled while others are timed, successive halving to the finalists; 0: the exhaustive "
                 "search (every candidate compiled, verified and timed)")
      ->check(not_nan("SECONDS"))
      ->check(CLI::Range(0.0, 86400.0));
  app.add_option("--final-idle", o.final_idle,
                 "after each timed run of the final round, leave the GPU idle this many times the run's time "
                 "(default 1; 0: back to back, as a sustained load runs, which holds an H200 at its power cap on "
                 "tf32x3 products)")
      ->check(not_nan("RATIO"))
      ->check(CLI::Range(0.0, 100.0));
  app.add_flag("--no-priors", o.no_priors,
               "a cold tune: with a budget, do not try the configs of the nearest records in the database first; and "
               "a problem's own record does not keep the win over a finalist less than 2% faster");
  app.add_option("--db", o.db_path, "tuning database file (default: $JITGEMM_TUNING_DB, else the shipped records, as the Runtime reads)");
  app.add_option("--cache-dir", o.cache_dir, "NVRTC binary cache directory (default $JITGEMM_CACHE_DIR or ~/.cache/jitgemm)");
  app.add_flag("--no-write", o.no_write, "do not write the tuning database");
  app.add_flag("--compile-only", o.compile_only, "only generate and compile the candidates (what runs without a GPU)");
  CLI::Option* sample = app.add_flag("--sample", o.sample, "a representative sample of the candidates instead of all");
  app.add_option("--configs", o.configs,
                 "only these candidates, by the config names jitgemm-db shows (comma-separated, e.g. "
                 "simt_fp32_128x128x16_w2x4_t8x8_s2_k1_g8); each must be a candidate of every problem tuned. "
                 "Verified and timed as in any tuning; the record written holds the best of them")
      ->delimiter(',')
      ->excludes(sample)
      ->excludes(app.get_option("--stale"));
  app.add_option("--max-gflop", o.max_gflop, "skip problems of more work than this many GFLOP")->check(CLI::PositiveNumber);
  app.add_option("--refresh-unchanged", o.refresh_unchanged,
                 "tune nothing, no GPU needed: the records whose template hash is that of the kernel templates "
                 "under DIR (e.g. `git archive <rev> kernel_templates`, the commit before a template change) "
                 "and whose kernels compile to the same cubin under those and this build's (and so do the "
                 "support kernels their launches run) take this build's template hash; the others stay stale for "
                 "--stale (with --no-write: only list them). DIR = this build's templates re-stamps records "
                 "hashed before session 45")
      ->type_name("DIR")
      ->check(CLI::ExistingDirectory)
      ->excludes(app.get_option("--stale"))
      ->excludes(app.get_option("--problems"))
      ->excludes(app.get_option("--reference"))
      ->excludes(app.get_option("--configs"))
      ->excludes(app.get_option("--compile-only"));
}

}  // namespace

int parse_tune_command_line(std::vector<std::string> args, TuneCommandLine& out, std::string& message) {
  TuneCommandLine parsed;  // bound to the flags; `out` gets it whatever the outcome
  message.clear();
  CLI::App app{"jitgemm-tune: tune float32 matrix products and write the tuning database"};
  app.name(args.empty() ? "jitgemm-tune" : args.front());  // shown in the help, as argv[0] is
  add_problem_options(app, parsed);
  add_selection_options(app, parsed);
  add_run_options(app, parsed);
  if (!args.empty()) args.erase(args.begin());
  std::reverse(args.begin(), args.end());  // CLI11 takes the arguments last first
  int status = 0;
  try {
    app.parse(std::move(args));
  } catch (const CLI::ParseError& e) {
    std::ostringstream help, error;
    status = app.exit(e, help, error) == 0 ? 0 : 2;  // --help: 0; a usage error: 2, like every other error
    message = help.str() + error.str();
    parsed.help = status == 0;
  }
  std::swap(out, parsed);
  return status;
}

}  // namespace jitgemm
