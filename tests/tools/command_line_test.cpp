// The tools' command lines parsed without running a tool (tools/db_command_line.hpp,
// tools/tune_command_line.hpp): the status CLI11 gives (0, or 2 for a usage error), the help
// or the error in the message, the options filled, and nothing printed.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "db_command_line.hpp"
#include "tune_command_line.hpp"

namespace jitgemm {
namespace {

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

// parse_db_command_line with stdout and stderr watched: parsing prints nothing.
int parse_db(const std::vector<std::string>& args, DbCommandLine& out, std::string& message) {
  ::testing::internal::CaptureStdout();
  ::testing::internal::CaptureStderr();
  const int status = parse_db_command_line(args, out, message);
  const std::string printed = ::testing::internal::GetCapturedStdout() + ::testing::internal::GetCapturedStderr();
  EXPECT_EQ(printed, "") << "parsing printed";
  return status;
}

int parse_tune(const std::vector<std::string>& args, TuneCommandLine& out, std::string& message) {
  ::testing::internal::CaptureStdout();
  ::testing::internal::CaptureStderr();
  const int status = parse_tune_command_line(args, out, message);
  const std::string printed = ::testing::internal::GetCapturedStdout() + ::testing::internal::GetCapturedStderr();
  EXPECT_EQ(printed, "") << "parsing printed";
  return status;
}

TEST(DbCommandLine, FillsTheChosenSubcommandsOptions) {
  DbCommandLine c;
  std::string message;
  EXPECT_EQ(parse_db({"jitgemm-db", "show", "4096x4096", "--top", "3", "--db", "x.json"}, c, message), 0);
  EXPECT_EQ(message, "");
  EXPECT_EQ(c.command, DbCommandLine::Command::Show);
  EXPECT_EQ(c.show.key, "4096x4096");
  EXPECT_EQ(c.show.top, 3);
  EXPECT_EQ(c.db, "x.json");
  EXPECT_EQ(parse_db({"jitgemm-db", "merge", "out.json", "a.json", "b.json"}, c, message), 0);
  EXPECT_EQ(c.command, DbCommandLine::Command::Merge);
  EXPECT_EQ(c.merge.out, "out.json");
  EXPECT_EQ(c.merge.inputs, (std::vector<std::string>{"a.json", "b.json"}));
  EXPECT_EQ(c.show.key, "") << "a new parse starts from defaults";
  EXPECT_EQ(parse_db({"jitgemm-db", "--db", "d.json", "prune", "--stale", "--driver", "12090", "--key", "k1", "--key",
                      "k2", "--dry-run"},
                     c, message),
            0);
  EXPECT_EQ(c.command, DbCommandLine::Command::Prune);
  EXPECT_TRUE(c.prune.stale && c.prune.dry_run);
  EXPECT_EQ(c.prune.environment.driver, 12090);
  EXPECT_EQ(c.prune.keys, (std::vector<std::string>{"k1", "k2"}));
  EXPECT_EQ(parse_db({"jitgemm-db", "explain", "--m", "64", "--n", "32", "--k", "16", "--device", "NVIDIA H200", "--sm",
                      "90", "--precision", "tf32"},
                     c, message),
            0);
  EXPECT_EQ(c.command, DbCommandLine::Command::Explain);
  EXPECT_EQ(c.explain.problem.m, 64);
  EXPECT_EQ(c.explain.device.name, "NVIDIA H200");
  EXPECT_EQ(c.explain.precision, "tf32");
}

TEST(DbCommandLine, HelpIsZeroWithTheTextAndUsageErrorsAreTwo) {
  DbCommandLine c;
  std::string message;
  EXPECT_EQ(parse_db({"jitgemm-db", "--help"}, c, message), 0);
  EXPECT_EQ(c.command, DbCommandLine::Command::None);
  for (const char* part : {"Usage: jitgemm-db", "list", "show", "diff", "merge", "verify", "prune", "explain", "--db"})
    EXPECT_TRUE(has(message, part)) << part << "\n" << message;
  EXPECT_EQ(parse_db({"jitgemm-db", "verify", "--help"}, c, message), 0);
  EXPECT_TRUE(has(message, "FILE")) << message;
  EXPECT_EQ(parse_db({"jitgemm-db", "--bogus", "list"}, c, message), 2);
  EXPECT_TRUE(has(message, "--bogus")) << message;
  EXPECT_TRUE(has(message, "Run with --help for more information.")) << message;
  EXPECT_EQ(parse_db({"jitgemm-db"}, c, message), 2);
  EXPECT_TRUE(has(message, "subcommand")) << message;
  EXPECT_EQ(parse_db({}, c, message), 2);
  EXPECT_EQ(parse_db({"jitgemm-db", "show", "--top", "0", "key"}, c, message), 2);
  EXPECT_EQ(parse_db({"jitgemm-db", "explain", "--m", "0", "--n", "1", "--k", "1", "--device", "d", "--sm", "90"}, c,
                     message),
            2);
  EXPECT_EQ(parse_db({"jitgemm-db", "list", "extra", "\x1b[2J", std::string("\0", 1)}, c, message), 2);
}

TEST(TuneCommandLine, FillsTheOptionsAndRefusesBadOnes) {
  TuneCommandLine o;
  std::string message;
  EXPECT_EQ(parse_tune({"jitgemm-tune", "--m", "128", "--n", "64", "--k", "32", "--trans-a", "T", "--precision", "tf32x3",
                        "-j", "4", "--no-write", "--backward", "--project"},
                       o, message),
            0);
  EXPECT_EQ(message, "");
  EXPECT_FALSE(o.help);
  EXPECT_EQ(o.m, 128);
  EXPECT_EQ(o.trans_a, "T");
  EXPECT_EQ(o.precision, "tf32x3");
  EXPECT_EQ(o.jobs, 4);
  EXPECT_TRUE(o.no_write && o.backward && o.project);
  EXPECT_EQ(parse_tune({"jitgemm-tune", "--help"}, o, message), 0);
  EXPECT_TRUE(o.help);
  EXPECT_TRUE(has(message, "Usage: jitgemm-tune")) << message;
  EXPECT_TRUE(has(message, "--reference")) << message;
  EXPECT_EQ(parse_tune({"jitgemm-tune", "--trans-a", "X"}, o, message), 2);
  EXPECT_TRUE(has(message, "--trans-a")) << message;
  EXPECT_EQ(parse_tune({"jitgemm-tune", "--project"}, o, message), 2);  // needs --backward
  EXPECT_EQ(parse_tune({"jitgemm-tune", "--runs", "5"}, o, message), 2);
  EXPECT_EQ(parse_tune({"jitgemm-tune", "--problems", "/no/such/file.json"}, o, message), 2);
  EXPECT_EQ(parse_tune({"jitgemm-tune", "--m", "1e400"}, o, message), 2);
  EXPECT_EQ(parse_tune({}, o, message), 0);  // nothing asked: the tool says so when it runs
}

TEST(TuneCommandLine, BudgetAndPriors) {
  TuneCommandLine o;
  std::string message;
  EXPECT_EQ(parse_tune({"jitgemm-tune", "--reference"}, o, message), 0);
  EXPECT_EQ(o.budget_s, 20.0);  // the default: a budgeted search
  EXPECT_FALSE(o.no_priors);
  EXPECT_EQ(parse_tune({"jitgemm-tune", "--reference", "--budget", "0", "--no-priors"}, o, message), 0) << message;
  EXPECT_EQ(o.budget_s, 0.0);  // the exhaustive search
  EXPECT_TRUE(o.no_priors);
  EXPECT_EQ(parse_tune({"jitgemm-tune", "--reference", "--budget", "7.5"}, o, message), 0) << message;
  EXPECT_EQ(o.budget_s, 7.5);
  for (const char* bad : {"-1", "nan", "1e400", "ten"}) {
    EXPECT_EQ(parse_tune({"jitgemm-tune", "--budget", bad}, o, message), 2) << bad;
    EXPECT_TRUE(has(message, "--budget")) << bad << ": " << message;
  }
}

TEST(TuneCommandLine, FinalIdle) {
  TuneCommandLine o;
  std::string message;
  EXPECT_EQ(parse_tune({"jitgemm-tune", "--reference"}, o, message), 0);
  EXPECT_EQ(o.final_idle, 1.0);  // the default: the final round paces itself
  EXPECT_EQ(parse_tune({"jitgemm-tune", "--reference", "--final-idle", "0"}, o, message), 0) << message;
  EXPECT_EQ(o.final_idle, 0.0);  // back to back
  EXPECT_EQ(parse_tune({"jitgemm-tune", "--reference", "--final-idle", "2.5"}, o, message), 0) << message;
  EXPECT_EQ(o.final_idle, 2.5);
  for (const char* bad : {"-1", "nan", "101", "one"}) {
    EXPECT_EQ(parse_tune({"jitgemm-tune", "--final-idle", bad}, o, message), 2) << bad;
    EXPECT_TRUE(has(message, "--final-idle")) << bad << ": " << message;
  }
}

TEST(TuneCommandLine, RefreshUnchangedTakesAnExistingDirectoryAndNoTuning) {
  TuneCommandLine o;
  std::string message;
  const std::string dir = std::string(JITGEMM_SOURCE_DIR) + "/kernel_templates";
  EXPECT_EQ(parse_tune({"jitgemm-tune", "--refresh-unchanged", dir, "--no-write"}, o, message), 0) << message;
  EXPECT_EQ(o.refresh_unchanged, dir);
  EXPECT_TRUE(o.no_write);
  EXPECT_EQ(parse_tune({"jitgemm-tune", "--refresh-unchanged", "/no/such/dir"}, o, message), 2);
  EXPECT_TRUE(has(message, "--refresh-unchanged")) << message;
  for (const char* other : {"--stale", "--reference", "--compile-only"}) {
    EXPECT_EQ(parse_tune({"jitgemm-tune", "--refresh-unchanged", dir, other}, o, message), 2) << other;
    EXPECT_TRUE(has(message, "excludes")) << other << ": " << message;
  }
}

}  // namespace
}  // namespace jitgemm
