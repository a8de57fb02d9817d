#include "common/library_directory.hpp"

#include <dlfcn.h>

namespace jitgemm {

std::filesystem::path library_directory() {
  Dl_info info{};
  if (::dladdr(reinterpret_cast<const void*>(&library_directory), &info) == 0 || info.dli_fname == nullptr) return {};
  std::error_code ec;
  const std::filesystem::path object = std::filesystem::absolute(info.dli_fname, ec);
  return ec ? std::filesystem::path() : object.parent_path();
}

}  // namespace jitgemm
