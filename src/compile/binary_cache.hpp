// The on-disk cache of compiled kernels: one file "<key>.bin" per entry in one directory,
// holding a small self-describing header, the resource report, the log and the cubin.
// Writes are atomic (unique temp file, fsync, rename), so concurrent processes may share
// a directory; a damaged entry is reported, removed and treated as a miss.
#pragma once

#include <filesystem>
#include <optional>
#include <string>

#include "compile/compiled_kernel.hpp"

namespace jitgemm {

class BinaryCache {
 public:
  // Entries live in `dir`, created on the first store().
  explicit BinaryCache(std::filesystem::path dir);

  // $JITGEMM_CACHE_DIR, else $XDG_CACHE_HOME/jitgemm, else $HOME/.cache/jitgemm.
  static std::filesystem::path default_dir();

  // The entry for `key` (32 hex digits, see hash.hpp), or nullopt on a miss. A truncated
  // or corrupt entry prints a warning to stderr, is removed, and counts as a miss.
  std::optional<CompiledKernel> load(const std::string& key) const;
  // Writes the entry atomically; a concurrent writer of the same key may win the race.
  // Throws Error when the directory or file cannot be written.
  void store(const std::string& key, const CompiledKernel& kernel) const;

  std::filesystem::path entry_path(const std::string& key) const;
  const std::filesystem::path& dir() const noexcept { return dir_; }

 private:
  std::filesystem::path dir_;
};

}  // namespace jitgemm
