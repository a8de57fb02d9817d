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
#include <cudaTypedefs.h>
#include <fmt/format.h>

#include <cstddef>
#include <string>
#include <string_view>
#include <type_traits>

namespace jitgemm::cuda {

// X-macro of every driver entry point the library uses: its base name and the CUDA
// version of the ABI we call. cuGetProcAddress is asked for exactly that version, so a
// newer driver never hands back a changed signature (CUDA 13's cuCtxSynchronize takes a
// context, for one); the PFN_<name>_v<version> types come from cudaTypedefs.h.
#define JITGEMM_DRIVER_FUNCTIONS(X)                                                                  \
  X(cuInit, 2000) X(cuDriverGetVersion, 2020) X(cuDeviceGet, 2000) X(cuDeviceGetCount, 2000)         \
  X(cuDeviceGetName, 2000) X(cuDeviceGetAttribute, 2000) X(cuDeviceTotalMem, 3020)                   \
  X(cuDevicePrimaryCtxRetain, 7000) X(cuDevicePrimaryCtxRelease, 11000) X(cuCtxSetCurrent, 4000)     \
  X(cuCtxGetCurrent, 4000) X(cuCtxSynchronize, 2000) X(cuModuleLoadData, 2000)                      \
  X(cuModuleUnload, 2000) X(cuModuleGetFunction, 2000) X(cuFuncSetAttribute, 9000)                   \
  X(cuFuncGetAttribute, 2020) X(cuLaunchKernel, 4000) X(cuLaunchKernelEx, 11060)                     \
  X(cuMemAlloc, 3020) X(cuMemFree, 3020) X(cuMemcpyHtoD, 3020) X(cuMemcpyDtoH, 3020)                 \
  X(cuMemcpyDtoD, 3020) X(cuMemcpyHtoDAsync, 3020) X(cuMemcpyDtoHAsync, 3020)                        \
  X(cuMemcpyDtoDAsync, 3020) X(cuMemsetD8Async, 3020) X(cuMemsetD32Async, 3020)                      \
  X(cuMemsetD32, 3020) X(cuMemsetD2D32Async, 3020) X(cuStreamCreate, 2000)                          \
  X(cuStreamDestroy, 4000) X(cuStreamIsCapturing, 10000) X(cuMemAllocAsync, 11020) X(cuMemFreeAsync, 11020)  \
  X(cuStreamSynchronize, 2000) X(cuEventCreate, 2000) X(cuEventDestroy, 4000)                        \
  X(cuEventRecord, 2000) X(cuEventSynchronize, 2000) X(cuEventElapsedTime, 12080)                    \
  X(cuGetErrorName, 6000) X(cuGetErrorString, 6000) X(cuPointerGetAttribute, 4000)                   \
  X(cuTensorMapEncodeTiled, 12000) X(cuOccupancyMaxActiveBlocksPerMultiprocessor, 6050) \
  X(cuOccupancyMaxActiveClusters, 11070)

// One typed function pointer per entry point, named as in cuda.h. (cuda.h maps some names
// to versioned symbols, e.g. cuMemAlloc -> cuMemAlloc_v2; the member is renamed the same
// way, so `driver().cuMemAlloc(...)` reads as usual.) Each type is checked against the
// declaration in cuda.h at compile time.
struct DriverApi {
#define JITGEMM_DRIVER_MEMBER(name, version) PFN_##name##_v##version name = nullptr;
  JITGEMM_DRIVER_FUNCTIONS(JITGEMM_DRIVER_MEMBER)
#undef JITGEMM_DRIVER_MEMBER
};

#define JITGEMM_DRIVER_CHECK_TYPE(name, version)                                      \
  static_assert(std::is_same_v<PFN_##name##_v##version, decltype(&::name)>,           \
                "the ABI version pinned for " #name " differs from its cuda.h declaration");
JITGEMM_DRIVER_FUNCTIONS(JITGEMM_DRIVER_CHECK_TYPE)
#undef JITGEMM_DRIVER_CHECK_TYPE

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
