// Locks, atomic replacement and move-aside for database files (see atomic_file.hpp).
#include "database/atomic_file.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <random>
#include <utility>

#include <fmt/format.h>

#include "jitgemm/error.hpp"

namespace jitgemm {
namespace {

int open_file(const char* path, int flags, mode_t mode) { return ::open(path, flags, mode); }

FileSystemCalls& calls() noexcept {
  static FileSystemCalls active = posix_file_system_calls();
  return active;
}

[[noreturn]] void throw_errno(std::string_view call, const std::filesystem::path& path, int err) {
  throw DatabaseError(fmt::format("{}({}) failed: {}", call, path.string(), std::strerror(err)));
}

// Owns a file descriptor; close() errors are reported by the callers that care.
class UniqueFd {
 public:
  explicit UniqueFd(int fd) : fd_(fd) {}
  ~UniqueFd() {
    if (fd_ >= 0) ::close(fd_);
  }
  UniqueFd(const UniqueFd&) = delete;
  UniqueFd& operator=(const UniqueFd&) = delete;
  int get() const noexcept { return fd_; }
  int release() noexcept { return std::exchange(fd_, -1); }

 private:
  int fd_;
};

// Removes the temp file unless dismissed (after the rename succeeded).
class TempFileGuard {
 public:
  explicit TempFileGuard(std::filesystem::path path) : path_(std::move(path)) {}
  ~TempFileGuard() {
    if (!path_.empty()) ::unlink(path_.c_str());
  }
  TempFileGuard(const TempFileGuard&) = delete;
  TempFileGuard& operator=(const TempFileGuard&) = delete;
  void dismiss() noexcept { path_.clear(); }

 private:
  std::filesystem::path path_;
};

std::filesystem::path temp_path_for(const std::filesystem::path& path) {
  std::random_device entropy;
  uint64_t token = (static_cast<uint64_t>(entropy()) << 32) ^ entropy();
  return path.string() + fmt::format(".tmp.{}.{:016x}", ::getpid(), token);
}

void write_all(int fd, std::string_view text, const std::filesystem::path& path) {
  while (!text.empty()) {
    ssize_t n = calls().write(fd, text.data(), text.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw_errno("write", path, errno);
    text.remove_prefix(static_cast<size_t>(n));
  }
}

void fsync_directory(const std::filesystem::path& dir) {
  UniqueFd fd(calls().open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC, 0));
  if (fd.get() < 0) throw_errno("open", dir, errno);
  if (calls().fsync(fd.get()) != 0) throw_errno("fsync", dir, errno);
}

std::filesystem::path directory_of(const std::filesystem::path& path) {
  std::filesystem::path dir = path.parent_path();
  return dir.empty() ? std::filesystem::path(".") : dir;
}

}  // namespace

FileSystemCalls posix_file_system_calls() noexcept {
  return FileSystemCalls{&open_file, &::write, &::fsync, &::close, &::rename};
}

FileSystemCalls set_file_system_calls_for_testing(const FileSystemCalls& replacement) noexcept {
  return std::exchange(calls(), replacement);
}

FileLock::FileLock(const std::filesystem::path& lock_path) {
  std::error_code ec;
  std::filesystem::create_directories(directory_of(lock_path), ec);
  fd_ = ::open(lock_path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd_ < 0) throw_errno("open", lock_path, errno);
  while (::flock(fd_, LOCK_EX) != 0) {
    if (errno == EINTR) continue;
    int err = errno;
    ::close(fd_);
    throw_errno("flock", lock_path, err);
  }
}

FileLock::~FileLock() {
  if (fd_ >= 0) ::close(fd_);  // closing the descriptor releases the lock
}

FileLock::FileLock(FileLock&& other) noexcept : fd_(std::exchange(other.fd_, -1)) {}

FileLock& FileLock::operator=(FileLock&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = std::exchange(other.fd_, -1);
  }
  return *this;
}

std::filesystem::path resolve_links(const std::filesystem::path& path) {
  std::error_code ec;
  std::filesystem::path resolved = std::filesystem::weakly_canonical(path, ec);
  if (ec) throw DatabaseError(fmt::format("{}: cannot resolve the path: {}", path.string(), ec.message()));
  return resolved;
}

std::filesystem::path lock_path_for(const std::filesystem::path& path) {
  return resolve_links(path).string() + ".lock";
}

std::optional<std::string> read_file_if_exists(const std::filesystem::path& path) {
  UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (fd.get() < 0) {
    if (errno == ENOENT) return std::nullopt;
    throw_errno("open", path, errno);
  }
  // A regular file's size is known before reading it: one past the cap is refused unread.
  struct stat st{};
  if (::fstat(fd.get(), &st) == 0 && S_ISREG(st.st_mode) && static_cast<uint64_t>(st.st_size) > kMaxDatabaseFileBytes)
    throw DatabaseError(fmt::format("{}: larger than the {} MiB a tuning database file may hold ({} bytes; not read)",
                                    path.string(), kMaxDatabaseFileBytes >> 20, st.st_size));
  // Read straight into the string, sized for a regular file's length (one byte more, so that the
  // read that finds the end has room): no copies as it grows (a 24 MB file read through a
  // 64 KiB buffer spent a third of its load in reallocation).
  std::string text;
  text.resize(S_ISREG(st.st_mode) ? static_cast<size_t>(st.st_size) + 1 : size_t{65536});
  size_t filled = 0;
  for (;;) {
    if (filled == text.size()) text.resize(std::min(2 * text.size(), kMaxDatabaseFileBytes + 1));
    ssize_t n = ::read(fd.get(), text.data() + filled, text.size() - filled);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw_errno("read", path, errno);
    if (n == 0) break;
    filled += static_cast<size_t>(n);
    if (filled > kMaxDatabaseFileBytes)
      throw DatabaseError(fmt::format("{}: larger than the {} MiB a tuning database file may hold (read stopped)",
                                      path.string(), kMaxDatabaseFileBytes >> 20));
  }
  text.resize(filled);
  return text;
}

void write_file_atomically(const std::filesystem::path& link_or_path, std::string_view text) {
  // A symbolic link is followed: the file it names is replaced, the link stays.
  const std::filesystem::path path = resolve_links(link_or_path);
  std::filesystem::path dir = directory_of(path);
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  std::filesystem::path temp = temp_path_for(path);
  UniqueFd fd(calls().open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644));
  if (fd.get() < 0) throw_errno("open", temp, errno);
  TempFileGuard guard(temp);
  struct stat old_stat{};
  if (::stat(path.c_str(), &old_stat) == 0) ::fchmod(fd.get(), old_stat.st_mode & 07777);
  write_all(fd.get(), text, temp);
  if (calls().fsync(fd.get()) != 0) throw_errno("fsync", temp, errno);
  if (calls().close(fd.release()) != 0) throw_errno("close", temp, errno);  // the descriptor is gone either way
  if (calls().rename(temp.c_str(), path.c_str()) != 0) {
    const int err = errno;
    throw DatabaseError(fmt::format("rename({}, {}) failed: {}", temp.string(), path.string(), std::strerror(err)));
  }
  guard.dismiss();
  fsync_directory(dir);
}

int remove_stale_temp_files(const std::filesystem::path& path) {
  const std::string prefix = path.filename().string() + ".tmp.";
  std::error_code ec;
  int removed = 0;
  for (const auto& entry : std::filesystem::directory_iterator(directory_of(path), ec)) {
    const std::string name = entry.path().filename().string();
    if (!name.starts_with(prefix) || !entry.is_regular_file(ec)) continue;
    if (std::filesystem::remove(entry.path(), ec)) ++removed;
  }
  return removed;
}

std::filesystem::path move_aside(const std::filesystem::path& path, std::string_view timestamp) {
  std::string base = path.string() + ".damaged-" + std::string(timestamp);
  for (int attempt = 1;; ++attempt) {
    std::filesystem::path target = attempt == 1 ? base : fmt::format("{}-{}", base, attempt);
    // RENAME_NOREPLACE: fails with EEXIST instead of replacing an earlier damaged copy.
    if (::renameat2(AT_FDCWD, path.c_str(), AT_FDCWD, target.c_str(), RENAME_NOREPLACE) == 0) {
      fsync_directory(directory_of(path));
      return target;
    }
    if (errno == EEXIST) continue;
    if (errno != EINVAL && errno != ENOSYS) throw_errno("rename", path, errno);
    // The file system cannot refuse to replace: check first (we hold the lock).
    if (std::filesystem::exists(target)) continue;
    if (::rename(path.c_str(), target.c_str()) != 0) throw_errno("rename", path, errno);
    fsync_directory(directory_of(path));
    return target;
  }
}

}  // namespace jitgemm
