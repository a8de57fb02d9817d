// One kernel source compiled with the Compiler (through its binary cache) and loaded into
// the current context: the module and the kernel looked up in it. Used for the kernels the
// library builds for itself (split-K reduction, operand pre-pass, tuning helpers) and for
// the GEMM kernels the Runtime serves.
//
//   CompiledModule reducer = compile_module(compiler, source, "split_k_reduce", {},
//                                           "fp32/split_k_reduce.cu");
//   cuda::launch(reducer.function, ...);
#pragma once

#include <string>

#include "codegen/source_render.hpp"
#include "compile/compiler.hpp"
#include "cuda/module.hpp"

namespace jitgemm {

struct CompiledModule {
  cuda::Module module;
  cuda::Function function;  // the compiled kernel: a view into `module`
};

// The NVRTC options a rendered GEMM kernel is built with: its family's target, the resource
// report on (registers and spills are checked before a candidate may run).
CompileOptions compile_options_for(const RenderedKernel& kernel);

// Loads a successful compile's cubin and looks up its kernel (the lowered name, else the
// name as requested). `label` names the module in messages; empty: the kernel name.
// Throws CudaError.
CompiledModule load_module(const CompiledKernel& kernel, const std::string& label = "");

// Compiles `kernel_name` of `source` with `options` and loads it. Throws CompileError
// naming the kernel (and `label`, the source it came from, when given) and carrying the
// NVRTC log when the source does not compile; CudaError when it does not load.
CompiledModule compile_module(const Compiler& compiler, const std::string& source, const std::string& kernel_name,
                              const CompileOptions& options, const std::string& label = "");

}  // namespace jitgemm
