// The Runtime's in-memory module cache: one loaded module per rendered kernel, built on
// first use (render -> NVRTC through the on-disk binary cache -> cuModuleLoadData) and
// kept for the Runtime's life. Thread-safe; no lock is held while a kernel compiles, so threads
// that need different new kernels compile them at once, and one that needs a kernel another
// thread is compiling waits for that compile (OnceMap).
//
// Specializations that render the same kernel share its module: a family reads only some of a
// specialization's fields (the wgmma kernel, say, gets a symmetric operand as a copy and never
// sees the flag), so (config, specialization) pairs map many to one onto rendered kernels.
#pragma once

#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>

#include "codegen/kernel_config.hpp"
#include "cuda/module.hpp"
#include "common/once_map.hpp"

namespace jitgemm {

class Compiler;
class TemplateStore;

// config and specialization: the first pair that rendered this kernel.
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

  // The loaded kernel for (config, specialization); renders on a miss, and compiles and loads
  // only a kernel no other pair rendered. Throws CompileError / CudaError when the kernel
  // cannot be built or loaded.
  const LoadedKernel& get(const KernelConfig& config, const KernelSpecialization& specialization);
  size_t size() const;     // distinct modules loaded
  size_t pairs() const;    // (config, specialization) pairs seen

 private:
  // Keyed by the typed (config, specialization) pair: a hit costs a hash of a few integers, not
  // the formatted kernel name (about 0.5 us) on every call.
  struct Key {
    KernelConfig config;
    KernelSpecialization specialization;
    friend bool operator==(const Key&, const Key&) = default;
  };
  struct KeyHash {
    size_t operator()(const Key& k) const noexcept;
  };

  const Compiler& compiler_;
  const TemplateStore& templates_;
  mutable std::mutex mutex_;  // guards kernels_
  std::unordered_map<Key, const LoadedKernel*, KeyHash> kernels_;
  // The owners, keyed by a hash of the rendered kernel's name and source.
  OnceMap<std::string, std::unique_ptr<LoadedKernel>> modules_;
};

}  // namespace jitgemm
