// The Runtime's in-memory module cache: one loaded module per rendered kernel, built on
// first use (render -> NVRTC through the on-disk binary cache -> cuModuleLoadData) and
// kept for the Runtime's life. Thread-safe.
#pragma once

#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>

#include "codegen/kernel_config.hpp"
#include "cuda/module.hpp"

namespace jitgemm {

class Compiler;
class TemplateStore;

struct LoadedKernel {
  KernelConfig config;
  KernelSpecialization specialization;
  std::string kernel_name;
  cuda::Module module;
  cuda::Function function;
};

class KernelCache {
 public:
  KernelCache(const Compiler& compiler, const TemplateStore& templates);

  // The loaded kernel for (config, specialization); compiles on a miss. Throws
  // CompileError / CudaError when the kernel cannot be built or loaded.
  const LoadedKernel& get(const KernelConfig& config, const KernelSpecialization& specialization);
  size_t size() const;

 private:
  const Compiler& compiler_;
  const TemplateStore& templates_;
  mutable std::mutex mutex_;
  std::unordered_map<std::string, std::unique_ptr<LoadedKernel>> kernels_;
};

}  // namespace jitgemm
