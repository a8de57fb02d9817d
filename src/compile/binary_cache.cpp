#include "compile/binary_cache.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <fmt/format.h>

#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <iterator>
#include <thread>

#include "jitgemm/error.hpp"

namespace jitgemm {
namespace {

// Entry layout, all integers little-endian:
//   magic "JGMCUBIN" | u32 format version | u32 header bytes |
//   i32 registers, shared, stack, spill stores, spill loads, const, barriers | u32 parsed |
//   f64 compile_ms (as u64 bits) | u64 sizes of kernel name, lowered name, log, cubin |
//   u64 FNV-1a-64 of the payload | payload: kernel name, lowered name, log, cubin
constexpr char kMagic[8] = {'J', 'G', 'M', 'C', 'U', 'B', 'I', 'N'};
constexpr std::uint32_t kFormatVersion = 1;
constexpr std::size_t kHeaderBytes = 8 + 4 + 4 + 7 * 4 + 4 + 8 + 4 * 8 + 8;

std::uint64_t checksum(std::string_view bytes) {
  std::uint64_t h = 0xcbf29ce484222325ull;
  for (unsigned char c : bytes) h = (h ^ c) * 0x100000001b3ull;
  return h;
}

void put(std::string& out, std::uint64_t value, int bytes) {
  for (int i = 0; i < bytes; ++i) out.push_back(static_cast<char>((value >> (8 * i)) & 0xff));
}

std::uint64_t get(std::string_view in, std::size_t& at, int bytes) {
  std::uint64_t value = 0;
  for (int i = 0; i < bytes; ++i) value |= static_cast<std::uint64_t>(static_cast<unsigned char>(in[at + i])) << (8 * i);
  at += bytes;
  return value;
}

std::string encode(const CompiledKernel& k) {
  std::string payload = k.kernel_name + k.lowered_name + k.log;
  payload.append(k.cubin.begin(), k.cubin.end());
  std::string out(kMagic, sizeof kMagic);
  put(out, kFormatVersion, 4);
  put(out, kHeaderBytes, 4);
  const ResourceUsage& r = k.resources;
  for (int v : {r.registers, r.shared_bytes, r.stack_bytes, r.spill_store_bytes, r.spill_load_bytes, r.const_bytes,
                r.barriers})
    put(out, static_cast<std::uint32_t>(v), 4);
  put(out, r.parsed ? 1 : 0, 4);
  std::uint64_t ms_bits = 0;
  std::memcpy(&ms_bits, &k.compile_ms, sizeof ms_bits);
  put(out, ms_bits, 8);
  for (std::size_t n : {k.kernel_name.size(), k.lowered_name.size(), k.log.size(), k.cubin.size()}) put(out, n, 8);
  put(out, checksum(payload), 8);
  return out + payload;
}

// Decodes an entry; on damage returns nullopt and says why in `problem`.
std::optional<CompiledKernel> decode(std::string_view in, std::string& problem) {
  if (in.size() < kHeaderBytes) {
    problem = fmt::format("truncated: {} bytes, shorter than the {}-byte header", in.size(), kHeaderBytes);
    return std::nullopt;
  }
  if (std::memcmp(in.data(), kMagic, sizeof kMagic) != 0) {
    problem = "bad magic (not a jitgemm cache entry)";
    return std::nullopt;
  }
  std::size_t at = sizeof kMagic;
  const auto version = get(in, at, 4);
  const auto header_bytes = get(in, at, 4);
  if (version != kFormatVersion || header_bytes != kHeaderBytes) {
    problem = fmt::format("format version {} (header {} bytes), expected {} ({} bytes)", version, header_bytes,
                          kFormatVersion, kHeaderBytes);
    return std::nullopt;
  }
  CompiledKernel k;
  ResourceUsage& r = k.resources;
  for (int* v : {&r.registers, &r.shared_bytes, &r.stack_bytes, &r.spill_store_bytes, &r.spill_load_bytes,
                 &r.const_bytes, &r.barriers})
    *v = static_cast<int>(static_cast<std::int32_t>(get(in, at, 4)));
  r.parsed = get(in, at, 4) != 0;
  const std::uint64_t ms_bits = get(in, at, 8);
  std::memcpy(&k.compile_ms, &ms_bits, sizeof ms_bits);
  std::uint64_t sizes[4];
  std::uint64_t total = 0;
  for (std::uint64_t& n : sizes) {
    n = get(in, at, 8);
    if (n > in.size()) {
      problem = fmt::format("a field size of {} bytes exceeds the file size {}", n, in.size());
      return std::nullopt;
    }
    total += n;
  }
  const std::uint64_t expected_sum = get(in, at, 8);
  if (total != in.size() - kHeaderBytes) {
    problem = fmt::format("size mismatch: header promises {} payload bytes, file has {}", total,
                          in.size() - kHeaderBytes);
    return std::nullopt;
  }
  const std::string_view payload = in.substr(kHeaderBytes);
  if (checksum(payload) != expected_sum) {
    problem = "payload checksum mismatch";
    return std::nullopt;
  }
  std::size_t p = 0;
  auto take = [&](std::uint64_t n) {
    std::string_view s = payload.substr(p, n);
    p += n;
    return s;
  };
  k.kernel_name = take(sizes[0]);
  k.lowered_name = take(sizes[1]);
  k.log = take(sizes[2]);
  const std::string_view cubin = take(sizes[3]);
  k.cubin.assign(cubin.begin(), cubin.end());
  if (k.cubin.empty()) {
    problem = "empty cubin";
    return std::nullopt;
  }
  k.from_cache = true;
  return k;
}

void check_key(const std::string& key) {
  const bool hex = !key.empty() && key.size() <= 64 &&
                   key.find_first_not_of("0123456789abcdef") == std::string::npos;
  if (!hex) throw InvalidArgument(fmt::format("BinaryCache: key \"{}\" is not 1..64 lower-case hex digits", key));
}

std::string errno_text() { return std::strerror(errno); }

// Writes `data` to a new file at `path` and fsyncs it; throws Error.
void write_file_synced(const std::filesystem::path& path, std::string_view data) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0) throw Error(fmt::format("BinaryCache: open({}) failed: {}", path.string(), errno_text()));
  std::size_t written = 0;
  while (written < data.size()) {
    const ssize_t n = ::write(fd, data.data() + written, data.size() - written);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      const std::string why = errno_text();
      ::close(fd);
      throw Error(fmt::format("BinaryCache: write({}) failed: {}", path.string(), why));
    }
    written += static_cast<std::size_t>(n);
  }
  if (::fsync(fd) != 0 || ::close(fd) != 0)
    throw Error(fmt::format("BinaryCache: fsync/close({}) failed: {}", path.string(), errno_text()));
}

std::filesystem::path unique_temp_path(const std::filesystem::path& final_path) {
  static std::atomic<unsigned> counter{0};
  const auto thread_hash = std::hash<std::thread::id>{}(std::this_thread::get_id());
  return final_path.string() +
         fmt::format(".{}.{:x}.{}.partial", ::getpid(), thread_hash & 0xffffff, counter.fetch_add(1));
}

}  // namespace

BinaryCache::BinaryCache(std::filesystem::path dir) : dir_(std::move(dir)) {
  if (dir_.empty()) throw InvalidArgument("BinaryCache: dir is empty");
}

std::filesystem::path BinaryCache::default_dir() {
  auto env = [](const char* name) -> std::string {
    const char* value = std::getenv(name);
    return value ? value : "";
  };
  if (std::string dir = env("JITGEMM_CACHE_DIR"); !dir.empty()) return dir;
  if (std::string dir = env("XDG_CACHE_HOME"); !dir.empty()) return std::filesystem::path(dir) / "jitgemm";
  if (std::string home = env("HOME"); !home.empty()) return std::filesystem::path(home) / ".cache" / "jitgemm";
  return std::filesystem::temp_directory_path() / "jitgemm-cache";
}

std::filesystem::path BinaryCache::entry_path(const std::string& key) const {
  check_key(key);
  return dir_ / (key + ".bin");
}

std::optional<CompiledKernel> BinaryCache::load(const std::string& key) const {
  const std::filesystem::path path = entry_path(key);
  std::ifstream file(path, std::ios::binary);
  if (!file) return std::nullopt;  // a miss (or unreadable: then the compile rewrites it)
  const std::string bytes((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  if (file.bad()) {
    fmt::print(stderr, "jitgemm: warning: binary cache entry {} could not be read; treating it as a miss\n",
               path.string());
    return std::nullopt;
  }
  std::string problem;
  std::optional<CompiledKernel> kernel = decode(bytes, problem);
  if (!kernel) {
    std::error_code ec;
    std::filesystem::remove(path, ec);
    fmt::print(stderr, "jitgemm: warning: binary cache entry {} is damaged ({}); {} it and recompiling\n",
               path.string(), problem, ec ? "could not remove" : "removed");
  }
  return kernel;
}

void BinaryCache::store(const std::string& key, const CompiledKernel& kernel) const {
  const std::filesystem::path path = entry_path(key);
  std::error_code ec;
  std::filesystem::create_directories(dir_, ec);
  if (ec) throw Error(fmt::format("BinaryCache: cannot create directory {}: {}", dir_.string(), ec.message()));
  const std::filesystem::path temp = unique_temp_path(path);
  try {
    write_file_synced(temp, encode(kernel));
    std::filesystem::rename(temp, path);  // atomic replace; the last writer wins
  } catch (const std::exception& e) {
    std::filesystem::remove(temp, ec);
    throw Error(fmt::format("BinaryCache::store({}): {}", path.string(), e.what()));
  }
  if (const int dir_fd = ::open(dir_.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC); dir_fd >= 0) {
    ::fsync(dir_fd);  // make the rename durable; best effort
    ::close(dir_fd);
  }
}

}  // namespace jitgemm
