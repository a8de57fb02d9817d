// 128-bit content hashes as 32 hex digits, for cache keys (compile/) and template hashes (codegen/);
// in common/ because codegen/ needs it too and sits left of compile/ (architecture.md). Not
// cryptographic: two independent FNV-1a-64 streams, each passed through a final mixer.
//
//   std::string key = jitgemm::hash_hex(source);
//   jitgemm::Hasher h; h.add(source); h.add(options); std::string key2 = h.hex();
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

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

// The hash of `data` alone (no length prefix): 32 lower-case hex digits.
std::string hash_hex(std::string_view data);

}  // namespace jitgemm
