// The file-system side of the tuning database: an advisory lock held for a scope, whole-
// file reads, atomic replacement (temp file, fsync, rename, directory fsync) and moving a
// damaged file aside without ever overwriting or deleting anything.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

namespace jitgemm {

// An exclusive flock() on `lock_path` (created if missing, never deleted: deleting a
// lock file lets two processes lock different inodes). Blocks until granted; the lock is
// released when the object is destroyed. Throws DatabaseError naming the file.
class FileLock {
 public:
  explicit FileLock(const std::filesystem::path& lock_path);
  ~FileLock();
  FileLock(const FileLock&) = delete;
  FileLock& operator=(const FileLock&) = delete;
  FileLock(FileLock&& other) noexcept;
  FileLock& operator=(FileLock&& other) noexcept;

 private:
  int fd_ = -1;
};

// The lock file that guards `path`: "<path>.lock".
std::filesystem::path lock_path_for(const std::filesystem::path& path);

// The whole file, or nullopt when it does not exist. Throws DatabaseError on I/O errors.
std::optional<std::string> read_file_if_exists(const std::filesystem::path& path);

// Replaces `path` by a file holding `text`: writes "<path>.tmp.<pid>.<random>" in the
// same directory (created if missing), fsyncs it, renames it over `path` and fsyncs the
// directory. Keeps the old file's permissions. On failure the temp file is removed and
// `path` is untouched. Throws DatabaseError naming the call and the file.
void write_file_atomically(const std::filesystem::path& path, std::string_view text);

// Renames `path` to "<path>.damaged-<timestamp>" ("-2", "-3", ... appended while that
// name exists; nothing is ever overwritten). Returns the new path; throws DatabaseError.
std::filesystem::path move_aside(const std::filesystem::path& path, std::string_view timestamp);

}  // namespace jitgemm
