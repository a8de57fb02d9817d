// The file-system side of the tuning database: an advisory lock held for a scope, whole-
// file reads, atomic replacement (temp file, fsync, rename, directory fsync) and moving a
// damaged file aside without ever overwriting or deleting anything.
#pragma once

#include <sys/types.h>

#include <cstddef>
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

// The most a tuning database or history file may hold: a read stops there with a DatabaseError
// (the shipped database of 49 records is 123 KB, its history 4.2 MB; 10,000 records are 24 MB).
inline constexpr size_t kMaxDatabaseFileBytes = size_t{256} << 20;

// `path` with every symbolic link followed (the parts that do not exist yet kept as they are).
std::filesystem::path resolve_links(const std::filesystem::path& path);

// The lock file that guards `path` (its links followed, so that a link and its target share
// one lock): "<target>.lock".
std::filesystem::path lock_path_for(const std::filesystem::path& path);

// The whole file, or nullopt when it does not exist. Throws DatabaseError on I/O errors and
// past kMaxDatabaseFileBytes.
std::optional<std::string> read_file_if_exists(const std::filesystem::path& path);

// Replaces `path` (the file a symbolic link names, when it is one) by a file holding `text`:
// writes "<path>.tmp.<pid>.<random>" in the same directory (created if missing), fsyncs it,
// closes it, renames it over `path` and fsyncs the directory. Keeps the old file's
// permissions. Throws DatabaseError naming the call and the file ("fsync(<temp path>) failed:
// Input/output error"). A failure up to the rename removes the temp file and leaves `path` as
// it was; a failed directory fsync comes after the rename: `path` then holds `text`, but whether
// that survives a power cut is what failed, and the caller hears of it.
void write_file_atomically(const std::filesystem::path& path, std::string_view text);

// The system calls write_file_atomically makes, one pointer each, so that a test can make any
// of them fail (fault injection in the manner of fmt's posix-mock). `fsync` serves the temp
// file and the directory (a fake tells them apart with fstat). The defaults are the POSIX calls.
struct FileSystemCalls {
  int (*open)(const char* path, int flags, mode_t mode);
  ssize_t (*write)(int fd, const void* data, size_t size);
  int (*fsync)(int fd);
  int (*close)(int fd);
  int (*rename)(const char* from, const char* to);
};

// The POSIX calls.
FileSystemCalls posix_file_system_calls() noexcept;
// For tests only: replaces the calls write_file_atomically makes until the next call, and
// returns the ones it replaced. Not synchronized: set it while no database is being written.
FileSystemCalls set_file_system_calls_for_testing(const FileSystemCalls& calls) noexcept;

// Removes the temp files write_file_atomically left for `path` ("<path>.tmp.*") when its writer
// was killed. Call it holding `path`'s FileLock: every writer writes its temp file under that
// lock, so none of them is still being written. Returns how many were removed.
int remove_stale_temp_files(const std::filesystem::path& path);

// Renames `path` to "<path>.damaged-<timestamp>" ("-2", "-3", ... appended while that
// name exists; nothing is ever overwritten). Returns the new path; throws DatabaseError.
std::filesystem::path move_aside(const std::filesystem::path& path, std::string_view timestamp);

}  // namespace jitgemm
