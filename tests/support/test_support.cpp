#include "support/test_support.hpp"

#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <string>
#include <vector>

#include "cuda/driver_api.hpp"

namespace jitgemm::testing {
namespace {

// Directories made by temp_dir(), removed when the test binary exits.
class TempDirs {
 public:
  ~TempDirs() {
    std::lock_guard lock(mutex_);
    for (const auto& dir : dirs_) {
      std::error_code ec;
      std::filesystem::remove_all(dir, ec);
    }
  }
  std::filesystem::path make(const std::string& tag) {
    const std::filesystem::path base = std::filesystem::temp_directory_path();
    for (;;) {
      std::filesystem::path dir =
          base / ("jitgemm-test-" + tag + "-" + std::to_string(::getpid()) + "-" + std::to_string(counter_++));
      if (std::filesystem::create_directories(dir)) {
        std::lock_guard lock(mutex_);
        dirs_.push_back(dir);
        return dir;
      }
    }
  }

 private:
  std::mutex mutex_;
  std::atomic<unsigned> counter_{0};
  std::vector<std::filesystem::path> dirs_;
};

}  // namespace

bool gpu_available(std::string* reason) { return ::jitgemm::cuda::gpu_available(reason); }

std::string temp_dir(const std::string& tag) {
  static TempDirs dirs;
  return dirs.make(tag).string();
}

TemplateStore templates_with_edit(const std::string& tag, std::string_view file,
                                  const std::function<std::string(std::string)>& edit) {
  const TemplateStore& embedded = TemplateStore::embedded();
  const std::filesystem::path root = temp_dir(tag);
  const std::filesystem::path source = std::filesystem::path(JITGEMM_SOURCE_DIR) / "kernel_templates";
  for (const auto& entry : std::filesystem::recursive_directory_iterator(source)) {
    if (!entry.is_regular_file()) continue;
    const std::string rel = std::filesystem::relative(entry.path(), source).generic_string();
    if (!embedded.contains(rel)) continue;
    const std::filesystem::path out = root / rel;
    std::filesystem::create_directories(out.parent_path());
    std::ofstream(out) << (rel == file ? edit(embedded.text(rel)) : embedded.text(rel));
  }
  return TemplateStore::from_directory(root.string());
}

}  // namespace jitgemm::testing
