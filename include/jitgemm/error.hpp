// jitgemm error types. Every failure the library reports is one of these, split by
// what the caller can do about it.
#pragma once

#include <stdexcept>
#include <string>

namespace jitgemm {

// Base of every exception jitgemm throws.
class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A caller-supplied value breaks a rule: the message names the argument and the rule,
// e.g. "Runtime::gemm: ldb=4000 is smaller than N=4096 for row-major B (trans_b=N)".
class InvalidArgument : public Error {
 public:
  using Error::Error;
};

// A valid request that this version cannot serve yet (a structure or precision that a
// later release adds). The caller may fall back to another library.
class NotSupported : public Error {
 public:
  using Error::Error;
};

// A CUDA Driver, runtime or cuBLAS call failed: the message names the call, its
// arguments and the error code. Also thrown when no driver or device exists.
class CudaError : public Error {
 public:
  CudaError(const std::string& message, int code) : Error(message), code_(code) {}
  int code() const noexcept { return code_; }

 private:
  int code_;
};

// NVRTC rejected a kernel source: the message carries the kernel name and the log.
class CompileError : public Error {
 public:
  CompileError(const std::string& message, std::string log) : Error(message), log_(std::move(log)) {}
  const std::string& log() const noexcept { return log_; }

 private:
  std::string log_;
};

// A tuning database file is unreadable, damaged or fails validation: the message names
// the file and the position (byte offset, record index, field path).
class DatabaseError : public Error {
 public:
  using Error::Error;
};

}  // namespace jitgemm
