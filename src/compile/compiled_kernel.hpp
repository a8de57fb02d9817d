// The product of one successful compile: the cubin and what ptxas said about it. Shared
// by the compiler and the binary cache.
#pragma once

#include <string>
#include <vector>

#include "compile/resource_report.hpp"

namespace jitgemm {

struct CompiledKernel {
  std::string kernel_name;   // as requested: the name expression ("gemm", "ns::gemm<4>")
  std::string lowered_name;  // the symbol to look up in the module (Module::function)
  std::vector<char> cubin;
  std::string log;           // the NVRTC/ptxas log of the compile
  ResourceUsage resources;
  bool from_cache = false;
  double compile_ms = 0;     // time NVRTC took (of the original compile, for a cache hit)
};

}  // namespace jitgemm
