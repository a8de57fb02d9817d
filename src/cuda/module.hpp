// Owns a loaded CUmodule (cuModuleLoadData / cuModuleUnload), the non-owning Function
// views into it, and the launch helper that names kernel, grid, block and shared memory
// when a launch fails.
#pragma once

#include <cuda.h>

#include <atomic>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <vector>

namespace jitgemm::cuda {

struct Dim3 {
  unsigned x = 1, y = 1, z = 1;
};

// Per-kernel launch state shared by copies of a Function: the dynamic shared memory
// limit already raised with cuFuncSetAttribute, so that happens once per size.
struct FunctionLaunchState {
  std::atomic<unsigned> max_dynamic_smem_bytes{48 * 1024};
  std::mutex mutex;  // serialises raising the limit
};

// A kernel inside a Module. Non-owning: valid while its Module is alive.
struct Function {
  CUfunction handle = nullptr;
  std::string name;
  std::shared_ptr<FunctionLaunchState> state = std::make_shared<FunctionLaunchState>();
};

class Module {
 public:
  Module() = default;
  // Loads a cubin into the current context. `label` names it in messages, e.g.
  // "kernel gemm_tf32x3_128x128x32_s4". Throws CudaError.
  Module(std::span<const char> image, std::string label);
  Module(const std::vector<char>& image, std::string label)
      : Module(std::span<const char>(image.data(), image.size()), std::move(label)) {}
  ~Module();
  Module(const Module&) = delete;
  Module& operator=(const Module&) = delete;
  Module(Module&& other) noexcept;
  Module& operator=(Module&& other) noexcept;

  // Looks up a kernel by its (lowered) symbol name; throws CudaError naming both.
  Function function(const std::string& name) const;

  CUmodule get() const noexcept { return module_; }
  const std::string& label() const noexcept { return label_; }
  explicit operator bool() const noexcept { return module_ != nullptr; }
  // Unloads now and throws CudaError on failure; the object is empty afterwards.
  void release();

 private:
  CUmodule module_ = nullptr;
  std::string label_;
};

// Launches `function` with cuLaunchKernel. Raises the kernel's dynamic shared memory
// limit first when smem_bytes exceeds 48 KiB (once per size and Function). Throws
// CudaError naming the kernel, grid, block and shared memory.
void launch(const Function& function, Dim3 grid, Dim3 block, unsigned smem_bytes, CUstream stream, void** args);

// The same through cuLaunchKernelEx with programmatic stream serialization (programmatic
// dependent launch): the kernel may start while the previous kernel in the stream is still
// running, once every CTA of that one has executed griddepcontrol.launch_dependents (or
// exited); it must execute griddepcontrol.wait before it reads what that kernel wrote
// (common/grid_dependency.cuh).
void launch_dependent(const Function& function, Dim3 grid, Dim3 block, unsigned smem_bytes, CUstream stream,
                      void** args);

// Clusters of `function` (compiled with __cluster_dims__) that can be resident at once when
// launched with `grid` (a multiple of the cluster size), `block` and `smem_bytes` of dynamic
// shared memory per CTA: cuOccupancyMaxActiveClusters. Throws CudaError.
int max_active_clusters(const Function& function, Dim3 grid, Dim3 block, unsigned smem_bytes);

// cuFuncGetAttribute, e.g. CU_FUNC_ATTRIBUTE_NUM_REGS. Throws CudaError.
int function_attribute(const Function& function, CUfunction_attribute attribute);

}  // namespace jitgemm::cuda
