// Owns one nvrtcProgram (nvrtcCreateProgram / nvrtcDestroyProgram): compile, log, cubin,
// PTX and lowered names. A compile error is a result (compile() returns false, the log
// says why); misuse of the NVRTC API throws CompileError naming the call.
#pragma once

#include <nvrtc.h>

#include <string>
#include <vector>

namespace jitgemm {

// An in-memory header the source may #include by `name`.
struct SourceHeader {
  std::string name;
  std::string content;
};

class NvrtcProgram {
 public:
  // `name` is the file name NVRTC prints in diagnostics ("gemm_x.cu").
  NvrtcProgram(const std::string& source, const std::string& name, const std::vector<SourceHeader>& headers = {});
  ~NvrtcProgram();
  NvrtcProgram(const NvrtcProgram&) = delete;
  NvrtcProgram& operator=(const NvrtcProgram&) = delete;
  NvrtcProgram(NvrtcProgram&& other) noexcept;
  NvrtcProgram& operator=(NvrtcProgram&& other) noexcept;

  // Registers a kernel name expression ("gemm", "ns::gemm<128, 64>") before compile():
  // instantiates it and makes lowered_name() work. A name absent from the source makes
  // compile() fail with a log that names it.
  void add_name_expression(const std::string& expression);
  // True on success; false on a compile error (see log()). Throws CompileError for an
  // invalid option or other API failures.
  bool compile(const std::vector<std::string>& options);

  std::string log() const;
  std::vector<char> cubin() const;  // after a successful compile for an sm_ target
  std::string ptx() const;
  // The symbol of a registered name expression, e.g. "_ZN2ns4gemmILi128ELi64EEEvPf".
  std::string lowered_name(const std::string& expression) const;

  nvrtcProgram get() const noexcept { return program_; }

 private:
  nvrtcProgram program_ = nullptr;
  std::string name_;
  bool compiled_ = false;
};

}  // namespace jitgemm
