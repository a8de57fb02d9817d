#include "compile/compiler.hpp"

#include <fmt/format.h>

#include <chrono>
#include <cstdlib>
#include <fstream>

#include "common/hash.hpp"
#include "jitgemm/error.hpp"

namespace jitgemm {
namespace {

// Every debug switch of the compile stage, read from the environment in this one place.
struct DebugSwitches {
  std::optional<std::filesystem::path> dump_dir;  // JITGEMM_DUMP_DIR
};

DebugSwitches read_debug_switches() {
  DebugSwitches switches;
  if (const char* dir = std::getenv("JITGEMM_DUMP_DIR"); dir != nullptr && *dir != '\0') switches.dump_dir = dir;
  return switches;
}

// A kernel name expression made safe for a file name: "ns::gemm<4>" -> "ns__gemm_4_".
std::string file_stem(const std::string& kernel_name) {
  std::string out;
  for (char c : kernel_name) {
    const bool keep = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
    out.push_back(keep ? c : '_');
  }
  if (out.size() > 96) out.resize(96);
  return out.empty() ? "kernel" : out;
}

double elapsed_ms_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

int nvrtc_version() {
  int major = 0, minor = 0;
  if (const nvrtcResult r = nvrtcVersion(&major, &minor); r != NVRTC_SUCCESS)
    throw CompileError(fmt::format("nvrtcVersion() failed: {}", nvrtcGetErrorString(r)), "");
  return major * 1000 + minor * 10;
}

std::string nvrtc_version_string() {
  const int v = nvrtc_version();
  return fmt::format("{}.{}", v / 1000, v % 1000 / 10);
}

Compiler::Compiler(std::optional<std::filesystem::path> cache_dir) : dump_dir_(read_debug_switches().dump_dir) {
  if (cache_dir) cache_.emplace(std::move(*cache_dir));
}

std::string Compiler::cache_key(const std::string& source, const std::string& kernel_name,
                                const CompileOptions& options, const std::vector<SourceHeader>& headers) {
  Hasher h;
  h.add("jitgemm-binary-v1").add(nvrtc_version_string()).add(options.arch).add(kernel_name);
  const std::vector<std::string> flags = options.to_strings();
  h.add(static_cast<std::int64_t>(flags.size()));
  for (const std::string& flag : flags) h.add(flag);
  h.add(source);
  h.add(static_cast<std::int64_t>(headers.size()));
  for (const SourceHeader& header : headers) h.add(header.name).add(header.content);
  return h.hex();
}

CompileOutcome Compiler::compile(const std::string& source, const std::string& kernel_name,
                                 const CompileOptions& options, const std::vector<SourceHeader>& headers) const {
  if (kernel_name.empty()) throw InvalidArgument("Compiler::compile: kernel_name is empty");
  const std::vector<std::string> flags = options.to_strings();
  const std::string key = cache_key(source, kernel_name, options, headers);

  if (cache_) {
    if (std::optional<CompiledKernel> hit = cache_->load(key); hit && hit->kernel_name == kernel_name) {
      if (dump_dir_) dump(key, kernel_name, source, hit->log, "");
      CompileOutcome outcome{true, std::move(*hit), ""};
      outcome.log = outcome.kernel.log;
      return outcome;
    }
  }

  CompileOutcome outcome = compile_uncached(source, kernel_name, flags, headers, key);
  if (outcome.ok && cache_) {
    try {
      cache_->store(key, outcome.kernel);
    } catch (const Error& e) {
      if (!store_warned_->exchange(true))
        fmt::print(stderr, "jitgemm: warning: cannot write the binary cache ({}); compiling without it\n", e.what());
    }
  }
  return outcome;
}

CompileOutcome Compiler::compile_uncached(const std::string& source, const std::string& kernel_name,
                                          const std::vector<std::string>& options,
                                          const std::vector<SourceHeader>& headers, const std::string& key) const {
  const auto start = std::chrono::steady_clock::now();
  NvrtcProgram program(source, file_stem(kernel_name) + ".cu", headers);
  program.add_name_expression(kernel_name);
  const bool ok = program.compile(options);

  CompileOutcome outcome;
  outcome.ok = ok;
  outcome.log = program.log();
  outcome.kernel.kernel_name = kernel_name;
  outcome.kernel.log = outcome.log;
  if (ok) {
    outcome.kernel.lowered_name = program.lowered_name(kernel_name);
    outcome.kernel.cubin = program.cubin();
    outcome.kernel.resources = parse_ptxas_log(outcome.log, outcome.kernel.lowered_name);
  }
  outcome.kernel.compile_ms = elapsed_ms_since(start);
  if (dump_dir_) dump(key, kernel_name, source, outcome.log, ok ? program.ptx() : "");
  return outcome;
}

void Compiler::dump(const std::string& key, const std::string& kernel_name, const std::string& source,
                    const std::string& log, const std::string& ptx) const {
  std::error_code ec;
  std::filesystem::create_directories(*dump_dir_, ec);
  const std::string stem = fmt::format("{}-{}", file_stem(kernel_name), key.substr(0, 12));
  auto write = [&](const std::string& suffix, const std::string& text) {
    const std::filesystem::path path = *dump_dir_ / (stem + suffix);
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out << text;
    if (!out) fmt::print(stderr, "jitgemm: warning: JITGEMM_DUMP_DIR: cannot write {}\n", path.string());
  };
  write(".cu", source);
  write(".log", log);
  if (!ptx.empty()) write(".ptx", ptx);
}

}  // namespace jitgemm
