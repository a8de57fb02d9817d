#include "cuda/driver_api.hpp"

#include <dlfcn.h>

#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <utility>

#include "jitgemm/error.hpp"

namespace jitgemm::cuda {
namespace {

constexpr const char* kDefaultLibrary = "libcuda.so.1";

// Owns one dlopen handle. A loaded driver is kept open for the life of the process
// (release()); a library that fails to resolve or initialise is closed again.
class SharedLibrary {
 public:
  explicit SharedLibrary(const std::string& path) : handle_(dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL)) {
    if (handle_ == nullptr) {
      const char* why = dlerror();
      throw CudaError(fmt::format("no CUDA driver: dlopen({}) failed: {}", path, why ? why : "unknown error"),
                      CUDA_ERROR_NOT_FOUND);
    }
  }
  SharedLibrary(const SharedLibrary&) = delete;
  SharedLibrary& operator=(const SharedLibrary&) = delete;
  ~SharedLibrary() {
    if (handle_ != nullptr && dlclose(handle_) != 0) {
      const char* why = dlerror();
      fmt::print(stderr, "jitgemm: warning: dlclose failed: {}\n", why ? why : "unknown error");
    }
  }

  void* symbol(const char* name) const noexcept { return dlsym(handle_, name); }
  void* release() noexcept { return std::exchange(handle_, nullptr); }

 private:
  void* handle_;
};

using GetProcAddressV2 = CUresult (*)(const char*, void**, int, cuuint64_t, CUdriverProcAddressQueryResult*);
using GetProcAddressV1 = CUresult (*)(const char*, void**, int, cuuint64_t);

std::string describe_with(const DriverApi* api, CUresult r) noexcept {
  try {
    const char* name = nullptr;
    const char* text = nullptr;
    if (api != nullptr && api->cuGetErrorName != nullptr && api->cuGetErrorName(r, &name) == CUDA_SUCCESS &&
        name != nullptr) {
      if (api->cuGetErrorString != nullptr && api->cuGetErrorString(r, &text) == CUDA_SUCCESS && text != nullptr)
        return fmt::format("{} ({})", name, text);
      return name;
    }
    return fmt::format("CUresult {}", static_cast<int>(r));
  } catch (...) {
    return "CUresult (unprintable)";
  }
}

// The driver's own version, read straight from the library, for error messages.
std::string driver_version_of(const SharedLibrary& lib) {
  auto get_version = reinterpret_cast<CUresult (*)(int*)>(lib.symbol("cuDriverGetVersion"));
  int version = 0;
  if (get_version == nullptr || get_version(&version) != CUDA_SUCCESS) return "unknown";
  return fmt::format("{}.{}", version / 1000, version % 1000 / 10);
}

// Resolves every entry point of the table through the driver's cuGetProcAddress, asking
// for each at the CUDA version whose ABI the table's type describes.
DriverApi resolve_table(const SharedLibrary& lib, const std::string& path) {
  auto get_v2 = reinterpret_cast<GetProcAddressV2>(lib.symbol("cuGetProcAddress_v2"));
  auto get_v1 = reinterpret_cast<GetProcAddressV1>(lib.symbol("cuGetProcAddress"));
  if (get_v2 == nullptr && get_v1 == nullptr)
    throw CudaError(fmt::format("no CUDA driver: {} exports neither cuGetProcAddress_v2 nor cuGetProcAddress "
                                "(not a CUDA driver, or one older than CUDA 11.3)",
                                path),
                    CUDA_ERROR_NOT_FOUND);

  auto lookup = [&](const char* name, int version) -> void* {
    void* fn = nullptr;
    CUdriverProcAddressQueryResult status = CU_GET_PROC_ADDRESS_SUCCESS;
    const CUresult r = get_v2 != nullptr ? get_v2(name, &fn, version, CU_GET_PROC_ADDRESS_DEFAULT, &status)
                                         : get_v1(name, &fn, version, CU_GET_PROC_ADDRESS_DEFAULT);
    if (r != CUDA_SUCCESS || fn == nullptr || status != CU_GET_PROC_ADDRESS_SUCCESS) {
      const char* why = status == CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT ? "version not sufficient"
                        : status == CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND      ? "symbol not found"
                                                                              : "lookup failed";
      throw CudaError(fmt::format("no usable CUDA driver: {} (driver {}) lacks entry point {} (CUDA {}.{} ABI): "
                                  "cuGetProcAddress: {}, {}",
                                  path, driver_version_of(lib), name, version / 1000, version % 1000 / 10, why,
                                  describe_with(nullptr, r)),
                      r != CUDA_SUCCESS ? r : CUDA_ERROR_NOT_FOUND);
    }
    return fn;
  };

  DriverApi api;
#define JITGEMM_RESOLVE(name, version) api.name = reinterpret_cast<decltype(api.name)>(lookup(#name, version));
  JITGEMM_DRIVER_FUNCTIONS(JITGEMM_RESOLVE)
#undef JITGEMM_RESOLVE
  return api;
}

// The loaded tables, one per library path, never unloaded: references handed out by
// driver() stay valid for the life of the process. Failures are not stored.
class DriverRegistry {
 public:
  const DriverApi& get() {
    if (const DriverApi* api = current_.load(std::memory_order_acquire)) return *api;
    std::lock_guard lock(mutex_);
    if (const DriverApi* api = current_.load(std::memory_order_relaxed)) return *api;
    auto it = loaded_.find(path_);
    if (it == loaded_.end()) it = loaded_.emplace(path_, load(path_)).first;
    current_.store(it->second.get(), std::memory_order_release);
    return *it->second;
  }

  const DriverApi* current() const noexcept { return current_.load(std::memory_order_acquire); }

  void set_path(std::string path) {
    std::lock_guard lock(mutex_);
    path_ = path.empty() ? kDefaultLibrary : std::move(path);
    auto it = loaded_.find(path_);
    current_.store(it == loaded_.end() ? nullptr : it->second.get(), std::memory_order_release);
  }

 private:
  static std::unique_ptr<DriverApi> load(const std::string& path) {
    SharedLibrary lib(path);
    auto api = std::make_unique<DriverApi>(resolve_table(lib, path));
    if (const CUresult r = api->cuInit(0); r != CUDA_SUCCESS)
      throw CudaError(fmt::format("no usable CUDA driver: cuInit(0) failed: {}", describe_with(api.get(), r)), r);
    lib.release();  // the driver stays loaded for the life of the process
    return api;
  }

  std::mutex mutex_;
  std::string path_ = kDefaultLibrary;
  std::map<std::string, std::unique_ptr<DriverApi>> loaded_;
  std::atomic<const DriverApi*> current_{nullptr};
};

// Deliberately never destroyed, so objects released during static destruction can
// still reach the driver.
DriverRegistry& registry() {
  static DriverRegistry* instance = new DriverRegistry;
  return *instance;
}

}  // namespace

const DriverApi& driver() { return registry().get(); }

bool gpu_available(std::string* reason) noexcept {
  try {
    const DriverApi& api = driver();
    int count = 0;
    if (const CUresult r = api.cuDeviceGetCount(&count); r != CUDA_SUCCESS) {
      if (reason) *reason = fmt::format("cuDeviceGetCount() failed: {}", describe_with(&api, r));
      return false;
    }
    if (count < 1) {
      if (reason) *reason = "the CUDA driver loaded but reports no devices";
      return false;
    }
    return true;
  } catch (const std::exception& e) {
    try {
      if (reason) *reason = e.what();
    } catch (...) {
    }
    return false;
  } catch (...) {
    return false;
  }
}

std::string describe_result(CUresult r) noexcept { return describe_with(registry().current(), r); }

void check(CUresult r, std::string_view call, std::string_view args) {
  if (r == CUDA_SUCCESS) return;
  throw CudaError(fmt::format("{}({}) failed: {}", call, args, describe_result(r)), static_cast<int>(r));
}

std::string format_bytes(std::size_t bytes) {
  if (bytes < 1024) return fmt::format("{} B", bytes);
  if (bytes < 1024 * 1024) return fmt::format("{} KiB", (bytes + 512) / 1024);
  return fmt::format("{:.1f} MiB", static_cast<double>(bytes) / (1024.0 * 1024.0));
}

void set_driver_library_for_testing(std::string path) { registry().set_path(std::move(path)); }

namespace detail {

std::string_view call_name(std::string_view expression) noexcept {
  auto is_ident = [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
  };
  // The first identifier starting with "cu" that is called: skips "driver()." and "api->".
  for (size_t paren = expression.find('('); paren != std::string_view::npos;
       paren = expression.find('(', paren + 1)) {
    size_t begin = paren;
    while (begin > 0 && is_ident(expression[begin - 1])) --begin;
    std::string_view ident = expression.substr(begin, paren - begin);
    if (ident.starts_with("cu")) return ident;
  }
  return expression.substr(0, expression.find('('));
}

void throw_cu_error(CUresult r, std::string_view expression, const std::string& args) {
  check(r, call_name(expression), args);
  throw CudaError(fmt::format("{} failed", expression), static_cast<int>(r));  // r was CUDA_SUCCESS: misuse
}

}  // namespace detail
}  // namespace jitgemm::cuda
