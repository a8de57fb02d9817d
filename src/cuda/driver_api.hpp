// The CUDA Driver API, loaded at run time: libcuda is opened with dlopen on first use and
// every entry point is resolved through cuGetProcAddress into one read-only table, so the
// library loads (and its CPU paths work) where no driver exists. Also owns the check
// helpers that turn a failed CUresult into a CudaError naming the call and its arguments.
//
//   using namespace jitgemm::cuda;
//   CUdeviceptr p;
//   JITGEMM_CU(driver().cuMemAlloc(&p, bytes), "{} bytes", bytes);
//   // on failure: CudaError "cuMemAlloc(4096 bytes) failed: CUDA_ERROR_OUT_OF_MEMORY (out of memory)"
#pragma once

#include <cuda.h>
#include <fmt/format.h>

#include <cstddef>
#include <string>
#include <string_view>

namespace jitgemm::cuda {

// X-macro of every driver entry point the library uses, by its base name (no _v2: the
// driver picks the version matching the CUDA_VERSION we were built against).
#define JITGEMM_DRIVER_FUNCTIONS(X)                                                        \
  X(cuInit) X(cuDriverGetVersion) X(cuDeviceGet) X(cuDeviceGetCount) X(cuDeviceGetName)    \
  X(cuDeviceGetAttribute) X(cuDeviceTotalMem) X(cuDevicePrimaryCtxRetain)                  \
  X(cuDevicePrimaryCtxRelease) X(cuCtxSetCurrent) X(cuCtxGetCurrent) X(cuCtxSynchronize)   \
  X(cuModuleLoadData) X(cuModuleUnload) X(cuModuleGetFunction) X(cuFuncSetAttribute)      \
  X(cuFuncGetAttribute) X(cuLaunchKernel) X(cuLaunchKernelEx) X(cuMemAlloc) X(cuMemFree)   \
  X(cuMemcpyHtoD) X(cuMemcpyDtoH) X(cuMemcpyDtoD) X(cuMemcpyHtoDAsync)                     \
  X(cuMemcpyDtoHAsync) X(cuMemcpyDtoDAsync) X(cuMemsetD8Async) X(cuMemsetD32Async)         \
  X(cuMemsetD32) X(cuStreamCreate) X(cuStreamDestroy) X(cuStreamSynchronize)               \
  X(cuEventCreate) X(cuEventDestroy) X(cuEventRecord) X(cuEventSynchronize)                \
  X(cuEventElapsedTime) X(cuGetErrorName) X(cuGetErrorString) X(cuPointerGetAttribute)     \
  X(cuTensorMapEncodeTiled) X(cuOccupancyMaxActiveBlocksPerMultiprocessor)

// One typed function pointer per entry point, named as in cuda.h. (cuda.h maps some names
// to versioned symbols, e.g. cuMemAlloc -> cuMemAlloc_v2; the member is renamed the same
// way, so `driver().cuMemAlloc(...)` calls the versioned entry point.)
struct DriverApi {
#define JITGEMM_DRIVER_MEMBER(name) decltype(&::name) name = nullptr;
  JITGEMM_DRIVER_FUNCTIONS(JITGEMM_DRIVER_MEMBER)
#undef JITGEMM_DRIVER_MEMBER
};

// The table, loading libcuda and calling cuInit(0) on first use (thread-safe). Throws
// CudaError "no CUDA driver: dlopen(libcuda.so.1) failed: <dlerror>", one naming a missing
// entry point, or "cuInit(0) failed: ...". A failure is not remembered: the next call
// tries again. A successful load is kept, read-only, for the life of the process.
const DriverApi& driver();

// True when the driver loads, cuInit succeeds and at least one device exists. Never
// throws; on false, `reason` (if given) says which step failed.
bool gpu_available(std::string* reason = nullptr) noexcept;

// Throws CudaError "<call>(<args>) failed: <NAME> (<description>)" unless r is
// CUDA_SUCCESS. Names come from the driver when it is loaded, else "CUresult <n>".
void check(CUresult r, std::string_view call, std::string_view args);

// "CUDA_ERROR_INVALID_IMAGE (device kernel image is invalid)", or "CUresult 200" when no
// driver is loaded. Never throws.
std::string describe_result(CUresult r) noexcept;

// "512 B", "412 KiB", "1.5 MiB": sizes in messages.
std::string format_bytes(std::size_t bytes);

// Points the loader at another library (empty: back to libcuda.so.1) so tests can check
// the no-driver errors. Tables already loaded stay valid; driver() then serves the table
// of this path, loading it on its next call.
void set_driver_library_for_testing(std::string path);

namespace detail {
// The failure path of JITGEMM_CU: takes the stringified expression, keeps the entry point
// name ("driver().cuMemAlloc(&p, n)" -> "cuMemAlloc") and throws via check().
[[noreturn]] void throw_cu_error(CUresult r, std::string_view expression, const std::string& args);
std::string_view call_name(std::string_view expression) noexcept;
}  // namespace detail

}  // namespace jitgemm::cuda

// Evaluates a driver call; on failure throws CudaError naming the call, the arguments
// formatted with fmt (only built on failure), and the error code.
#define JITGEMM_CU(call_expr, ...)                                                        \
  do {                                                                                    \
    const CUresult jitgemm_cu_result_ = (call_expr);                                      \
    if (jitgemm_cu_result_ != CUDA_SUCCESS)                                               \
      ::jitgemm::cuda::detail::throw_cu_error(                                            \
          jitgemm_cu_result_, #call_expr, std::string(__VA_OPT__(::fmt::format(__VA_ARGS__)))); \
  } while (0)
