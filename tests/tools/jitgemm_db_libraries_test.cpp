// Issue 14, defect 9: every jitgemm-db run spent ~120 ms and 250 MB loading cuBLAS, cuBLASLt
// and NVRTC (through libjitgemm), which it does not need. The binary must not name them (ldd),
// and a run must not load them (the dynamic loader's own log, LD_DEBUG=files, which also lists
// what is dlopen'ed). Only `explain` loads NVRTC, for its version (tools/nvrtc_probe.hpp).
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "tools/run_tool.hpp"

namespace {

namespace fs = std::filesystem;

const std::string kBinary = JITGEMM_BINARY_DIR "/jitgemm-db";
const std::string kSmall = JITGEMM_SOURCE_DIR "/tests/fixtures/tuning_small.json";

// Lines of `text` that name a library jitgemm-db must not load.
std::string forbidden_libraries(const std::string& text) {
  std::string found;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    const std::string line = text.substr(start, end - start);
    for (const char* name : {"libcublas", "libnvrtc", "libcudart", "libjitgemm.so"})
      if (line.find(name) != std::string::npos) {
        found += line + "\n";
        break;
      }
    start = end + 1;
  }
  return found;
}

std::string command_output(const std::string& command) {
  std::string out;
  if (FILE* pipe = ::popen(command.c_str(), "r")) {
    char buffer[4096];
    for (size_t n; (n = std::fread(buffer, 1, sizeof buffer, pipe)) > 0;) out.append(buffer, n);
    ::pclose(pipe);
  }
  return out;
}

TEST(JitgemmDbLibraries, TheBinaryNeedsNoCublasNoNvrtcAndNoLibjitgemm) {
  ASSERT_TRUE(fs::exists(kBinary)) << kBinary << " is not built";
  const std::string ldd = command_output("ldd " + jitgemm::testing::shell_quoted(kBinary) + " 2>&1");
  ASSERT_NE(ldd.find("libc.so"), std::string::npos) << "ldd did not list the libraries:\n" << ldd;
  EXPECT_EQ(forbidden_libraries(ldd), "") << ldd;
}

TEST(JitgemmDbLibraries, RunsLoadNoCublasAndNoNvrtc) {
  ASSERT_TRUE(fs::exists(kBinary)) << kBinary << " is not built";
  for (const std::vector<std::string>& args : {std::vector<std::string>{"--help"},
                                               std::vector<std::string>{"verify", kSmall},
                                               std::vector<std::string>{"--db", kSmall, "list"}}) {
    const jitgemm::testing::ToolResult r = jitgemm::testing::run_tool(kBinary, args, "LD_DEBUG=files ");
    EXPECT_EQ(r.status, 0) << r.err;
    ASSERT_NE(r.err.find("file=libc.so"), std::string::npos) << "no loader log (LD_DEBUG=files):\n" << r.err;
    EXPECT_EQ(forbidden_libraries(r.err), "") << args.front();
  }
}

}  // namespace
