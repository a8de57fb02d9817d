// Runs a built tool (jitgemm-db, jitgemm-tune) from a test: arguments shell-quoted, stdout and
// stderr captured, exit status decoded.
#pragma once

#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "support/test_support.hpp"

namespace jitgemm::testing {

struct ToolResult {
  int status = -1;
  std::string out, err;
};

inline std::string read_file_text(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

inline std::string shell_quoted(const std::string& arg) {
  std::string q = "'";
  for (char c : arg) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

// Runs `binary` with `args` (and an optional "VAR=value " prefix for the environment).
inline ToolResult run_tool(const std::string& binary, const std::vector<std::string>& args,
                           const std::string& env = "") {
  static const std::string dir = temp_dir("jitgemm_tool_run");
  const std::string out = dir + "/stdout", err = dir + "/stderr";
  std::string command = env + shell_quoted(binary);
  for (const std::string& arg : args) command += " " + shell_quoted(arg);
  command += " >" + shell_quoted(out) + " 2>" + shell_quoted(err) + " </dev/null";
  const int raw = std::system(command.c_str());
  ToolResult r;
  r.status = WIFEXITED(raw) ? WEXITSTATUS(raw) : 128 + WTERMSIG(raw);
  r.out = read_file_text(out);
  r.err = read_file_text(err);
  return r;
}

}  // namespace jitgemm::testing
