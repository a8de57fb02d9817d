// jitgemm-tune as a user runs it: help, bad flags, and compile-only mode.
#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <utility>
#include <string>

#include "support/test_support.hpp"
#include "tools/run_tool.hpp"

namespace {

struct ToolRun {
  int status;
  std::string output;
};

ToolRun run_tool(const std::string& args) {
  const std::string command = std::string(JITGEMM_BINARY_DIR) + "/jitgemm-tune " + args + " 2>&1";
  FILE* pipe = popen(command.c_str(), "r");
  ToolRun run{-1, ""};
  if (pipe == nullptr) return run;
  std::array<char, 4096> buffer{};
  while (size_t n = fread(buffer.data(), 1, buffer.size(), pipe)) run.output.append(buffer.data(), n);
  const int raw = pclose(pipe);
  run.status = WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
  return run;
}

// Issue 14, defect 1: a malformed problem file aborted jitgemm-tune (SIGABRT); now exit 2 with
// the file and the member.
TEST(JitgemmTune, MalformedProblemFilesExitTwoNamingTheMember) {
  const std::string dir = jitgemm::testing::temp_dir("bad_problems");
  for (auto [text, expected] : {std::pair{R"([{"id":5}])", "[0].id: expected a string"},
                                std::pair{R"([{"m":1e400,"n":1,"k":1}])", "problems.json"}}) {
    { std::ofstream(dir + "/problems.json") << text; }
    const ToolRun r = run_tool("--problems " + dir + "/problems.json --compile-only");
    EXPECT_EQ(r.status, 2) << text << ": " << r.output;
    EXPECT_NE(r.output.find(expected), std::string::npos) << text << ": " << r.output;
  }
}

// --configs: only the named candidates (a repeated name once); a name that is not a config, or
// not a candidate of the problem, exits 2 naming it before anything compiles.
TEST(JitgemmTune, ConfigsTakesOnlyTheNamedCandidates) {
  const std::string cache = jitgemm::testing::temp_dir("configs_cache");
  const std::string problem = "--m 256 --n 256 --k 256 --compile-only --cache-dir " + cache;
  const std::string config = "simt_fp32_64x64x8_w2x2_t4x8_s3_k1_g8";
  ToolRun r = run_tool(problem + " --configs " + config + "," + config);
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("1 candidates, 1 distinct kernels"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("jitgemm_" + config + "_NN_v4v4v4"), std::string::npos) << r.output;

  r = run_tool(problem + " --configs simt_fp32_64x64x8");
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_NE(r.output.find("--configs: kernel config name 'simt_fp32_64x64x8': truncated"), std::string::npos)
      << r.output;
  r = run_tool(problem + " --precision tf32x3 --configs " + config);
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_NE(r.output.find("--configs: " + config + " is not a candidate of cli (gemm.tf32x3.NN"), std::string::npos)
      << r.output;
  EXPECT_EQ(r.output.find("compiled"), std::string::npos) << r.output;  // nothing compiled
  r = run_tool(problem + " --sample --configs " + config);
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_NE(r.output.find("--sample excludes --configs"), std::string::npos) << r.output;
}

TEST(JitgemmTune, HelpListsTheOptions) {
  const ToolRun r = run_tool("--help");
  EXPECT_EQ(r.status, 0);
  for (const char* flag :
       {"--reference", "--problems", "--jobs", "--db", "--compile-only", "--trans-a", "--backward", "--configs"})
    EXPECT_NE(r.output.find(flag), std::string::npos) << flag;
}

// --backward lists the gradient products (jitgemm/backward.hpp) it tunes instead of the problem,
// leaving out those that multiply nothing; --max-gflop then drops them all here (no compile).
TEST(JitgemmTune, BackwardTunesTheGradientProducts) {
  ToolRun r = run_tool("--m 10 --n 20 --k 30 --backward --max-gflop 1e-9");
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_NE(r.output.find("backward: cli_dA = 10x30x20 NT fp32 lda=20 ldb=20 ldc=30"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("backward: cli_dB = 30x20x10 TN fp32 lda=30 ldb=20 ldc=20"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("nothing to tune"), std::string::npos) << r.output;
  r = run_tool("--m 10 --n 0 --k 30 --backward");  // dA = 0 (N = 0), dB empty
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_NE(r.output.find("backward: cli_dA multiplies nothing"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("backward: cli_dB multiplies nothing"), std::string::npos) << r.output;
  // A structured problem list, projected: the symmetric operand's gradient adds its transpose.
  const std::string dir = jitgemm::testing::temp_dir("backward_problems");
  {
    std::ofstream(dir + "/problems.json")
        << R"([{"id":"sym","m":64,"n":32,"k":64,"structure_a":"symmetric","fill":"lower","precision":"tf32x3"}])";
  }
  r = run_tool("--problems " + dir + "/problems.json --backward --project --max-gflop 1e-9");
  EXPECT_NE(r.output.find("backward: sym_dA = 64x64x32 NT tf32x3 lda=32 ldb=32 ldc=64 alpha=0.5 beta=0 A:lower"),
            std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("backward: sym_dA_T = 64x64x32 NT tf32x3"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("backward: sym_dB = 64x32x64 TN tf32x3"), std::string::npos) << r.output;
  r = run_tool("--m 10 --n 10 --k 10 --project");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.output.find("--backward"), std::string::npos) << r.output;
}

// Issue 14, defect 8: text from a file (here problem ids) was printed raw, terminal escapes and
// all. Every line jitgemm-tune prints holds printable text only; the ids show as "\xNN".
TEST(JitgemmTune, ProblemIdsFromAFileArePrintedEscaped) {
  const std::string dir = jitgemm::testing::temp_dir("escaped_ids");
  {
    std::ofstream(dir + "/problems.json")
        << R"([{"id":"p\u001b[2J\u009b\u007f","m":64,"n":32,"k":16,"precision":"tf32x3"}])";
    std::ofstream(dir + "/bad.json") << R"([{"id":"q","m":"\u009b\u007f","n":1,"k":1}])";
  }
  const auto printable_only = [](const std::string& output) {
    for (char c : output)
      if (c != '\n' && (static_cast<unsigned char>(c) < 0x20 || c == 0x7f)) return false;
    return output.find("\xC2\x9B") == std::string::npos;
  };
  ToolRun r = run_tool("--problems " + dir + "/problems.json --backward --max-gflop 1e-9");
  EXPECT_NE(r.output.find("backward: p\\x1B[2J\\xC2\\x9B\\x7F_dA = "), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("skipping p\\x1B[2J\\xC2\\x9B\\x7F_dB: "), std::string::npos) << r.output;
  EXPECT_TRUE(printable_only(r.output)) << r.output;
  r = run_tool("--problems " + dir + "/bad.json --compile-only");  // the error quotes the value
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_NE(r.output.find("\\xC2\\x9B\\x7F"), std::string::npos) << r.output;
  EXPECT_TRUE(printable_only(r.output)) << r.output;
}

TEST(JitgemmTune, BadFlagsFailWithAMessage) {
  ToolRun r = run_tool("--no-such-flag");
  EXPECT_EQ(r.status, 2);  // issue 14, defect 8: CLI11's own codes (104-109) were returned
  EXPECT_NE(r.output.find("no-such-flag"), std::string::npos) << r.output;
  r = run_tool("--m 10 --n 10 --k 10 --trans-a X");
  EXPECT_EQ(r.status, 2);
  r = run_tool("--m 10 --n 0 --k 10 --compile-only");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.output.find("multiplies nothing"), std::string::npos) << r.output;
  r = run_tool("");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.output.find("nothing to tune"), std::string::npos) << r.output;
  r = run_tool("--m 10 --n 10 --k 10 --lda 3 --compile-only");
  EXPECT_NE(r.output.find("lda=3 is smaller than K=10"), std::string::npos) << r.output;
}

TEST(JitgemmTune, StaleNeedsAGpuAndFindsNothingInAnEmptyDatabase) {
  const std::string db = jitgemm::testing::temp_dir("stale") + "/empty.json";
  const ToolRun r = run_tool("--stale --db " + db);
  std::string reason;
  if (!jitgemm::testing::gpu_available(&reason)) {
    EXPECT_EQ(r.status, 2);
    EXPECT_NE(r.output.find("--stale re-verifies records on the GPU"), std::string::npos) << r.output;
  } else {
    EXPECT_EQ(r.status, 0) << r.output;
    EXPECT_NE(r.output.find("no stale records"), std::string::npos) << r.output;
  }
}

// Against the templates of this source tree (this build's own), the shipped records tuned with
// them are current and not listed; those tuned with older templates are listed and kept; nothing
// is compiled for either, and with --no-write the file stays as it was.
TEST(JitgemmTune, RefreshUnchangedListsWithoutAGpu) {
  const std::string dir = jitgemm::testing::temp_dir("refresh");
  const std::string db = dir + "/db.json";
  std::filesystem::copy_file(std::string(JITGEMM_SOURCE_DIR) + "/tuning_db/jitgemm_tuning.json", db);
  const std::string before = jitgemm::testing::read_file_text(db);
  const ToolRun r = run_tool("--db " + db + " --no-write --refresh-unchanged " + std::string(JITGEMM_SOURCE_DIR) +
                             "/kernel_templates");
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("would refresh 0 of"), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("kernel changed"), std::string::npos) << r.output;
  EXPECT_EQ(jitgemm::testing::read_file_text(db), before);
}

TEST(JitgemmTune, CompileOnlyPrintsResourcesOfTheSample) {
  const std::string cache = std::string(JITGEMM_BINARY_DIR) + "/test-tune-cache";
  const ToolRun r = run_tool("--m 1000 --n 1000 --k 1000 --trans-a T --compile-only --sample --jobs 2 --cache-dir " + cache);
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("registers"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("spill"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("0 unusable"), std::string::npos) << r.output;
}

TEST(JitgemmTune, CompileOnlySampleOfASmallTensorCoreProblemHasTheMmaKernels) {
  // 64^3 is too small for the wgmma kernels to pay: the mma.sync family of the mode joins them,
  // and the fp32 SIMT kernel (a few thousand outputs: float32's accuracy, candidate_space.hpp).
  const std::string cache = std::string(JITGEMM_BINARY_DIR) + "/test-tune-cache";
  const ToolRun r =
      run_tool("--m 64 --n 64 --k 64 --lda 67 --precision tf32x3 --compile-only --sample --jobs 2 --cache-dir " + cache);
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("jitgemm_mma_tf32x3_64x64x32_w2x2_s3_a32_k1_g8_NN_v1v4v4"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("jitgemm_wgmma_tf32x3_"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("simt_fp32"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("0 unusable"), std::string::npos) << r.output;
}

}  // namespace
