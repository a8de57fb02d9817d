#include "cuda/module.hpp"

#include <utility>

#include "cuda/driver_api.hpp"
#include "jitgemm/error.hpp"

namespace jitgemm::cuda {
namespace {

constexpr unsigned kDefaultDynamicSmemBytes = 48 * 1024;

// Raises the kernel's opt-in dynamic shared memory limit to at least `smem_bytes`.
void ensure_dynamic_smem(const Function& function, unsigned smem_bytes) {
  if (smem_bytes <= kDefaultDynamicSmemBytes) return;
  auto raise = [&] {
    JITGEMM_CU(driver().cuFuncSetAttribute(function.handle, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                                           static_cast<int>(smem_bytes)),
               "kernel {}, MAX_DYNAMIC_SHARED_SIZE_BYTES, {}", function.name, smem_bytes);
  };
  FunctionLaunchState* state = function.state.get();
  if (state == nullptr) return raise();
  if (state->max_dynamic_smem_bytes.load(std::memory_order_acquire) >= smem_bytes) return;
  std::lock_guard lock(state->mutex);
  if (state->max_dynamic_smem_bytes.load(std::memory_order_relaxed) >= smem_bytes) return;
  raise();
  state->max_dynamic_smem_bytes.store(smem_bytes, std::memory_order_release);
}

// The grid, block, dynamic shared memory and stream of a cuLaunchKernelEx-style call, no attributes.
CUlaunchConfig launch_config(Dim3 grid, Dim3 block, unsigned smem_bytes, CUstream stream) {
  CUlaunchConfig config{};
  config.gridDimX = grid.x, config.gridDimY = grid.y, config.gridDimZ = grid.z;
  config.blockDimX = block.x, config.blockDimY = block.y, config.blockDimZ = block.z;
  config.sharedMemBytes = smem_bytes;
  config.hStream = stream;
  return config;
}

}  // namespace

Module::Module(std::span<const char> image, std::string label) : label_(std::move(label)) {
  if (image.empty()) throw InvalidArgument(fmt::format("Module({}): the cubin image is empty", label_));
  JITGEMM_CU(driver().cuModuleLoadData(&module_, image.data()), "{}, {} cubin", label_, format_bytes(image.size()));
}

Module::~Module() {
  if (module_ == nullptr) return;
  if (const CUresult r = driver().cuModuleUnload(module_); r != CUDA_SUCCESS)
    fmt::print(stderr, "jitgemm: warning: cuModuleUnload({}) failed in a destructor: {}\n", label_,
               describe_result(r));
}

Module::Module(Module&& other) noexcept
    : module_(std::exchange(other.module_, nullptr)), label_(std::move(other.label_)) {}

Module& Module::operator=(Module&& other) noexcept {
  if (this != &other) {
    Module old(std::move(*this));
    module_ = std::exchange(other.module_, nullptr);
    label_ = std::move(other.label_);
  }
  return *this;
}

Function Module::function(const std::string& name) const {
  if (module_ == nullptr)
    throw InvalidArgument(fmt::format("Module::function({}): the module was moved from or released", name));
  Function f;
  JITGEMM_CU(driver().cuModuleGetFunction(&f.handle, module_, name.c_str()), "module {}, function \"{}\"", label_,
             name);
  f.name = name;
  return f;
}

void Module::release() {
  if (module_ == nullptr) return;
  CUmodule module = std::exchange(module_, nullptr);
  JITGEMM_CU(driver().cuModuleUnload(module), "{}", label_);
}

void launch(const Function& function, Dim3 grid, Dim3 block, unsigned smem_bytes, CUstream stream, void** args) {
  if (function.handle == nullptr)
    throw InvalidArgument(fmt::format("launch: function \"{}\" has no handle", function.name));
  ensure_dynamic_smem(function, smem_bytes);
  JITGEMM_CU(driver().cuLaunchKernel(function.handle, grid.x, grid.y, grid.z, block.x, block.y, block.z, smem_bytes,
                                     stream, args, nullptr),
             "kernel {}, grid ({},{},{}), block ({},{},{}), smem {}", function.name, grid.x, grid.y, grid.z, block.x,
             block.y, block.z, format_bytes(smem_bytes));
}

void launch_dependent(const Function& function, Dim3 grid, Dim3 block, unsigned smem_bytes, CUstream stream,
                      void** args) {
  if (function.handle == nullptr)
    throw InvalidArgument(fmt::format("launch_dependent: function \"{}\" has no handle", function.name));
  ensure_dynamic_smem(function, smem_bytes);
  CUlaunchAttribute attribute{};
  attribute.id = CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION;
  attribute.value.programmaticStreamSerializationAllowed = 1;
  CUlaunchConfig config = launch_config(grid, block, smem_bytes, stream);
  config.attrs = &attribute;
  config.numAttrs = 1;
  JITGEMM_CU(driver().cuLaunchKernelEx(&config, function.handle, args, nullptr),
             "kernel {} (programmatic dependent launch), grid ({},{},{}), block ({},{},{}), smem {}", function.name,
             grid.x, grid.y, grid.z, block.x, block.y, block.z, format_bytes(smem_bytes));
}

int max_active_clusters(const Function& function, Dim3 grid, Dim3 block, unsigned smem_bytes) {
  ensure_dynamic_smem(function, smem_bytes);
  const CUlaunchConfig config = launch_config(grid, block, smem_bytes, nullptr);
  int clusters = 0;
  JITGEMM_CU(driver().cuOccupancyMaxActiveClusters(&clusters, function.handle, &config),
             "kernel {}, grid ({},{},{}), block ({},{},{}), smem {}", function.name, grid.x, grid.y, grid.z, block.x,
             block.y, block.z, format_bytes(smem_bytes));
  return clusters;
}

int function_attribute(const Function& function, CUfunction_attribute attribute) {
  int value = 0;
  JITGEMM_CU(driver().cuFuncGetAttribute(&value, attribute, function.handle), "kernel {}, attribute {}",
             function.name, static_cast<int>(attribute));
  return value;
}

}  // namespace jitgemm::cuda
