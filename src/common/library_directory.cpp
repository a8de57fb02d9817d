#include "common/library_directory.hpp"

#include <dlfcn.h>

namespace jitgemm {

std::filesystem::path library_directory() {
  namespace fs = std::filesystem;
  Dl_info info{};
  if (::dladdr(reinterpret_cast<const void*>(&library_directory), &info) == 0 || info.dli_fname == nullptr) return {};
  // In a shared library dli_fname is the path it was loaded from. Linked into an executable
  // (jitgemm-db), glibc gives the program's argv[0], a bare name when it was found through
  // PATH: then the kernel's link to the running executable says where it is.
  const fs::path named(info.dli_fname);
  std::error_code ec;
  fs::path object = named.has_parent_path() ? fs::absolute(named, ec) : fs::path();
  if (ec || object.empty() || !fs::exists(object, ec)) object = fs::read_symlink("/proc/self/exe", ec);
  return ec ? fs::path() : object.parent_path();
}

}  // namespace jitgemm
