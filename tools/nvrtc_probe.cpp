// NVRTC's version by dlopen (see nvrtc_probe.hpp).
#include "nvrtc_probe.hpp"

#include <dlfcn.h>

#include <string>

#ifndef JITGEMM_NVRTC_SONAME
#error "JITGEMM_NVRTC_SONAME (e.g. \"libnvrtc.so.13\") comes from CMakeLists.txt"
#endif
#ifndef JITGEMM_NVRTC_DIR
#define JITGEMM_NVRTC_DIR ""
#endif

namespace jitgemm {
namespace {

// nvrtcVersion's signature (nvrtc.h): nvrtcResult is an enum whose success value is 0.
using NvrtcVersionFunction = int (*)(int* major, int* minor);

// Owns a dlopen handle.
class Library {
 public:
  explicit Library(const std::string& name) : handle_(::dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE)) {}
  ~Library() {
    if (handle_ != nullptr) ::dlclose(handle_);
  }
  Library(const Library&) = delete;
  Library& operator=(const Library&) = delete;
  void* symbol(const char* name) const { return handle_ != nullptr ? ::dlsym(handle_, name) : nullptr; }

 private:
  void* handle_;
};

std::optional<int> version_from(const std::string& library) {
  const Library nvrtc(library);
  const auto version = reinterpret_cast<NvrtcVersionFunction>(nvrtc.symbol("nvrtcVersion"));
  int major = 0, minor = 0;
  if (version == nullptr || version(&major, &minor) != 0) return std::nullopt;
  return major * 1000 + minor * 10;
}

}  // namespace

std::optional<int> probe_nvrtc_version() {
  if (std::optional<int> v = version_from(JITGEMM_NVRTC_SONAME)) return v;
  const std::string dir = JITGEMM_NVRTC_DIR;
  if (dir.empty()) return std::nullopt;
  return version_from(dir + "/" + JITGEMM_NVRTC_SONAME);
}

}  // namespace jitgemm
