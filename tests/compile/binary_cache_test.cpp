// BinaryCache entries and hash.hpp keys: round trip, damaged entries, races, locations.
#include "compile/binary_cache.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <thread>
#include <unordered_set>
#include <vector>

#include "compile/compiler.hpp"
#include "common/hash.hpp"
#include "jitgemm/error.hpp"
#include "support/test_support.hpp"

namespace jitgemm {
namespace {

namespace fs = std::filesystem;

CompiledKernel sample_kernel(std::size_t cubin_bytes = 5000) {
  CompiledKernel k;
  k.kernel_name = "ns::gemm<128>";
  k.lowered_name = "_ZN2ns4gemmILi128EEEvPf";
  k.log = "ptxas info    : Used 168 registers, used 1 barriers, 4096 bytes smem\n";
  for (std::size_t i = 0; i < cubin_bytes; ++i) k.cubin.push_back(static_cast<char>(i * 7 + 1));
  k.resources = {168, 4096, 16, 8, 4, 12, 1, true};
  k.compile_ms = 123.5;
  return k;
}

std::string read_all(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

void write_all(const fs::path& p, const std::string& bytes) {
  std::ofstream out(p, std::ios::binary | std::ios::trunc);
  out << bytes;
}

// Sets an environment variable for one scope and restores it afterwards.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    if (value) ::setenv(name, value, 1); else ::unsetenv(name);
  }
  ~ScopedEnv() {
    if (old_) ::setenv(name_, old_->c_str(), 1); else ::unsetenv(name_);
  }

 private:
  const char* name_;
  std::optional<std::string> old_;
};

const std::string kKey = hash_hex("a cache key");

TEST(Hash, IsStable32HexDigitsAndSensitive) {
  const std::string h = hash_hex("source");
  EXPECT_EQ(h.size(), 32u);
  EXPECT_EQ(h.find_first_not_of("0123456789abcdef"), std::string::npos);
  EXPECT_EQ(h, hash_hex("source"));
  EXPECT_NE(h, hash_hex("sourcf"));
  EXPECT_NE(h, hash_hex("source "));
  EXPECT_NE(hash_hex(""), hash_hex(std::string(1, '\0')));
}

TEST(Hash, PartsAreLengthPrefixed) {
  EXPECT_NE(Hasher().add("ab").add("c").hex(), Hasher().add("a").add("bc").hex());
  EXPECT_EQ(Hasher().add("ab").add("c").hex(), Hasher().add("ab").add("c").hex());
}

// The key hash of unordered containers: order and every field count; small tuples that differ in
// one field by one never meet (the keys of a candidate space or a problem sweep are such tuples).
TEST(FieldHash, EveryFieldAndItsPlaceCount) {
  EXPECT_EQ(FieldHash().add(1).add(2).value(), FieldHash().add(1).add(2).value());
  EXPECT_NE(FieldHash().add(1).add(2).value(), FieldHash().add(2).add(1).value());
  EXPECT_NE(FieldHash().add(0).value(), FieldHash().value());
  EXPECT_NE(FieldHash().add(true).add(false).value(), FieldHash().add(false).add(true).value());
  std::unordered_set<size_t> seen;
  int tuples = 0;
  for (int a = -8; a < 8; ++a)
    for (int b = 0; b < 64; ++b)
      for (int c = 0; c < 64; ++c, ++tuples) seen.insert(FieldHash().add(a).add(b).add(c).value());
  EXPECT_EQ(seen.size(), static_cast<size_t>(tuples));
}

TEST(Hash, CacheKeyCoversSourceOptionsArchNameAndHeaders) {
  const std::string src = "extern \"C\" __global__ void k(float* x) {}";
  const CompileOptions base;
  const std::string key = Compiler::cache_key(src, "k", base);
  EXPECT_EQ(key, Compiler::cache_key(src, "k", base));
  EXPECT_NE(key, Compiler::cache_key(src + " ", "k", base));
  EXPECT_NE(key, Compiler::cache_key(src, "k2", base));
  CompileOptions regs = base;
  regs.max_registers = 128;
  EXPECT_NE(key, Compiler::cache_key(src, "k", regs));
  CompileOptions defs = base;
  defs.defines = {"BLOCK_M=64"};
  EXPECT_NE(key, Compiler::cache_key(src, "k", defs));
  CompileOptions arch = base;
  arch.arch = "sm_90";
  EXPECT_NE(key, Compiler::cache_key(src, "k", arch));
  EXPECT_NE(key, Compiler::cache_key(src, "k", base, {{"tile.cuh", "#define T 1"}}));
  EXPECT_NE(Compiler::cache_key(src, "k", base, {{"tile.cuh", "#define T 1"}}),
            Compiler::cache_key(src, "k", base, {{"tile.cuh", "#define T 2"}}));
}

TEST(BinaryCache, RoundTripsEveryField) {
  BinaryCache cache(testing::temp_dir("cache-roundtrip"));
  EXPECT_FALSE(cache.load(kKey).has_value());
  const CompiledKernel k = sample_kernel();
  cache.store(kKey, k);
  ASSERT_TRUE(fs::exists(cache.entry_path(kKey)));
  const std::optional<CompiledKernel> back = cache.load(kKey);
  ASSERT_TRUE(back.has_value());
  EXPECT_TRUE(back->from_cache);
  EXPECT_EQ(back->kernel_name, k.kernel_name);
  EXPECT_EQ(back->lowered_name, k.lowered_name);
  EXPECT_EQ(back->log, k.log);
  EXPECT_EQ(back->cubin, k.cubin);
  EXPECT_EQ(back->resources, k.resources);
  EXPECT_DOUBLE_EQ(back->compile_ms, k.compile_ms);
}

TEST(BinaryCache, RejectsKeysThatAreNotHex) {
  BinaryCache cache(testing::temp_dir("cache-keys"));
  EXPECT_THROW(cache.load("../../etc/passwd"), InvalidArgument);
  EXPECT_THROW(cache.store("", sample_kernel()), InvalidArgument);
}

// Each damage is detected, reported, removed, and the entry can be written again.
TEST(BinaryCache, DamagedEntriesAreMissesAndRemoved) {
  BinaryCache cache(testing::temp_dir("cache-damage"));
  const fs::path path = cache.entry_path(kKey);
  cache.store(kKey, sample_kernel());
  const std::string good = read_all(path);

  std::string flipped = good;
  flipped[flipped.size() - 10] ^= 0x40;
  std::string bad_magic = good;
  bad_magic[0] = 'X';
  std::string wrong_size = good;
  wrong_size[56] ^= 0x01;  // the kernel-name size field
  const std::vector<std::pair<std::string, std::string>> damages = {
      {"truncated", good.substr(0, good.size() / 2)},
      {"header only", good.substr(0, 40)},
      {"empty", ""},
      {"flipped byte", flipped},
      {"bad magic", bad_magic},
      {"bad size field", wrong_size},
      {"appended", good + "junk"},
  };
  for (const auto& [what, bytes] : damages) {
    write_all(path, bytes);
    ::testing::internal::CaptureStderr();
    EXPECT_FALSE(cache.load(kKey).has_value()) << what;
    const std::string warning = ::testing::internal::GetCapturedStderr();
    EXPECT_NE(warning.find("is damaged"), std::string::npos) << what << ": " << warning;
    EXPECT_NE(warning.find(path.string()), std::string::npos) << what << ": " << warning;
    EXPECT_FALSE(fs::exists(path)) << what;
    cache.store(kKey, sample_kernel());
    EXPECT_TRUE(cache.load(kKey).has_value()) << what;
  }
}

TEST(BinaryCache, ConcurrentWritersAndReadersNeverSeeAPartialEntry) {
  BinaryCache cache(testing::temp_dir("cache-race"));
  const CompiledKernel k = sample_kernel(200000);
  std::vector<std::thread> threads;
  std::atomic<int> bad{0};
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 10; ++i) {
        if ((t + i) % 2 == 0) {
          cache.store(kKey, k);
        } else if (auto got = cache.load(kKey); got && got->cubin != k.cubin) {
          ++bad;
        }
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(bad.load(), 0);
  ASSERT_TRUE(cache.load(kKey).has_value());
  for (const auto& entry : fs::directory_iterator(cache.dir()))
    EXPECT_EQ(entry.path().extension(), ".bin") << "left behind: " << entry.path();
}

TEST(BinaryCache, StoreIntoAnUnwritablePlaceThrows) {
  const fs::path file = fs::path(testing::temp_dir("cache-unwritable")) / "a_file";
  write_all(file, "x");
  BinaryCache cache(file / "sub");  // a directory below a regular file cannot exist
  EXPECT_THROW(cache.store(kKey, sample_kernel()), Error);
  EXPECT_FALSE(cache.load(kKey).has_value());
}

TEST(BinaryCache, DefaultDirFollowsTheEnvironment) {
  {
    ScopedEnv cache_dir("JITGEMM_CACHE_DIR", "/tmp/jg-cache");
    EXPECT_EQ(BinaryCache::default_dir(), fs::path("/tmp/jg-cache"));
  }
  ScopedEnv no_cache_dir("JITGEMM_CACHE_DIR", nullptr);
  {
    ScopedEnv xdg("XDG_CACHE_HOME", "/tmp/xdg");
    EXPECT_EQ(BinaryCache::default_dir(), fs::path("/tmp/xdg/jitgemm"));
  }
  ScopedEnv no_xdg("XDG_CACHE_HOME", nullptr);
  ScopedEnv home("HOME", "/home/someone");
  EXPECT_EQ(BinaryCache::default_dir(), fs::path("/home/someone/.cache/jitgemm"));
}

}  // namespace
}  // namespace jitgemm
