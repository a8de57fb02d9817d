#include "compile/nvrtc_program.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <utility>

#include "jitgemm/error.hpp"

namespace jitgemm {
namespace {

void check_nvrtc(nvrtcResult r, std::string_view call, std::string_view args, std::string log = {}) {
  if (r == NVRTC_SUCCESS) return;
  throw CompileError(fmt::format("{}({}) failed: {}", call, args, nvrtcGetErrorString(r)), std::move(log));
}

}  // namespace

NvrtcProgram::NvrtcProgram(const std::string& source, const std::string& name,
                           const std::vector<SourceHeader>& headers)
    : name_(name) {
  std::vector<const char*> header_sources, header_names;
  for (const SourceHeader& h : headers) {
    header_sources.push_back(h.content.c_str());
    header_names.push_back(h.name.c_str());
  }
  check_nvrtc(nvrtcCreateProgram(&program_, source.c_str(), name.c_str(), static_cast<int>(headers.size()),
                                 header_sources.data(), header_names.data()),
              "nvrtcCreateProgram", fmt::format("{}, {} bytes, {} headers", name, source.size(), headers.size()));
}

NvrtcProgram::~NvrtcProgram() {
  if (program_ == nullptr) return;
  if (const nvrtcResult r = nvrtcDestroyProgram(&program_); r != NVRTC_SUCCESS)
    fmt::print(stderr, "jitgemm: warning: nvrtcDestroyProgram({}) failed in a destructor: {}\n", name_,
               nvrtcGetErrorString(r));
}

NvrtcProgram::NvrtcProgram(NvrtcProgram&& other) noexcept
    : program_(std::exchange(other.program_, nullptr)),
      name_(std::move(other.name_)),
      compiled_(std::exchange(other.compiled_, false)) {}

NvrtcProgram& NvrtcProgram::operator=(NvrtcProgram&& other) noexcept {
  if (this != &other) {
    NvrtcProgram old(std::move(*this));
    program_ = std::exchange(other.program_, nullptr);
    name_ = std::move(other.name_);
    compiled_ = std::exchange(other.compiled_, false);
  }
  return *this;
}

void NvrtcProgram::add_name_expression(const std::string& expression) {
  if (program_ == nullptr) throw CompileError("NvrtcProgram::add_name_expression: the program was moved from", "");
  check_nvrtc(nvrtcAddNameExpression(program_, expression.c_str()), "nvrtcAddNameExpression",
              fmt::format("{}, \"{}\"", name_, expression));
}

bool NvrtcProgram::compile(const std::vector<std::string>& options) {
  if (program_ == nullptr) throw CompileError("NvrtcProgram::compile: the program was moved from", "");
  std::vector<const char*> argv;
  argv.reserve(options.size());
  for (const std::string& o : options) argv.push_back(o.c_str());
  const nvrtcResult r = nvrtcCompileProgram(program_, static_cast<int>(argv.size()), argv.data());
  if (r == NVRTC_ERROR_COMPILATION) return false;
  check_nvrtc(r, "nvrtcCompileProgram", fmt::format("{}, options: {}", name_, fmt::join(options, " ")), log());
  compiled_ = true;
  return true;
}

std::string NvrtcProgram::log() const {
  if (program_ == nullptr) return {};
  size_t size = 0;
  check_nvrtc(nvrtcGetProgramLogSize(program_, &size), "nvrtcGetProgramLogSize", name_);
  std::string log(size, '\0');
  if (size > 0) check_nvrtc(nvrtcGetProgramLog(program_, log.data()), "nvrtcGetProgramLog", name_);
  while (!log.empty() && log.back() == '\0') log.pop_back();
  return log;
}

std::vector<char> NvrtcProgram::cubin() const {
  if (!compiled_) throw CompileError(fmt::format("NvrtcProgram::cubin({}): no successful compile", name_), "");
  size_t size = 0;
  check_nvrtc(nvrtcGetCUBINSize(program_, &size), "nvrtcGetCUBINSize", name_);
  if (size == 0)
    throw CompileError(fmt::format("nvrtcGetCUBINSize({}) is 0: compile for a real architecture (sm_XX)", name_),
                       "");
  std::vector<char> cubin(size);
  check_nvrtc(nvrtcGetCUBIN(program_, cubin.data()), "nvrtcGetCUBIN", name_);
  return cubin;
}

std::string NvrtcProgram::ptx() const {
  if (!compiled_) throw CompileError(fmt::format("NvrtcProgram::ptx({}): no successful compile", name_), "");
  size_t size = 0;
  check_nvrtc(nvrtcGetPTXSize(program_, &size), "nvrtcGetPTXSize", name_);
  std::string ptx(size, '\0');
  if (size > 0) check_nvrtc(nvrtcGetPTX(program_, ptx.data()), "nvrtcGetPTX", name_);
  while (!ptx.empty() && ptx.back() == '\0') ptx.pop_back();
  return ptx;
}

std::string NvrtcProgram::lowered_name(const std::string& expression) const {
  if (!compiled_) throw CompileError(fmt::format("NvrtcProgram::lowered_name({}): no successful compile", name_), "");
  const char* lowered = nullptr;
  check_nvrtc(nvrtcGetLoweredName(program_, expression.c_str(), &lowered), "nvrtcGetLoweredName",
              fmt::format("{}, \"{}\"", name_, expression));
  return lowered;
}

}  // namespace jitgemm
