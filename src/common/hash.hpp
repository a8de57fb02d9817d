// 128-bit content hashes as 32 hex digits, for cache keys (compile/) and template hashes (codegen/);
// in common/ because codegen/ needs it too and sits left of compile/ (architecture.md). Not
// cryptographic: two independent FNV-1a-64 streams, each passed through a final mixer.
//
//   std::string key = jitgemm::hash_hex(source);
//   jitgemm::Hasher h; h.add(source); h.add(options); std::string key2 = h.hex();
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <type_traits>

namespace jitgemm {

// Incremental hasher. add() prefixes each part with its length, so ("ab","c") and
// ("a","bc") hash differently.
class Hasher {
 public:
  Hasher& add(std::string_view part) noexcept;
  Hasher& add(std::int64_t value) noexcept;
  Hasher& add(double value) noexcept;                  // its bits: 0.0 and -0.0 differ
  Hasher& add_bytes(std::string_view bytes) noexcept;  // no length prefix
  std::string hex() const;                             // 32 lower-case hex digits

 private:

  std::uint64_t low_ = 0xcbf29ce484222325ull;   // FNV-1a offset basis
  std::uint64_t high_ = 0x6c62272e07bb0142ull;  // a second, unrelated basis
};

// The splitmix64 finaliser: spreads every input bit over the output (the last step of every
// hash here, and of hashes that accumulate words their own way).
constexpr std::uint64_t avalanche(std::uint64_t x) noexcept {
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ull;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebull;
  x ^= x >> 31;
  return x;
}

// The hash of a key made of small integer fields (enums, sizes, flags), for unordered containers:
// each field folded in through the finaliser, so that keys that differ in any one field spread
// over the buckets (std::hash<int> is the identity, and a shift-xor combine of small integers
// collided within one candidate space). Not a content hash: values differ between builds.
//   size_t h = FieldHash().add(key.m).add(key.n).add(key.precision).value();
class FieldHash {
 public:
  template <class T>
    requires(std::is_integral_v<T> || std::is_enum_v<T>)
  constexpr FieldHash& add(T field) noexcept {
    h_ = avalanche((h_ ^ static_cast<std::uint64_t>(field)) + 0x9e3779b97f4a7c15ull);
    return *this;
  }
  constexpr std::size_t value() const noexcept { return static_cast<std::size_t>(h_); }

 private:
  std::uint64_t h_ = 0;
};

// The hash of `data` alone (no length prefix): 32 lower-case hex digits.
std::string hash_hex(std::string_view data);

}  // namespace jitgemm
