#include "common/hash.hpp"

#include <bit>

#include <fmt/format.h>

namespace jitgemm {
namespace {

constexpr std::uint64_t kFnvPrime = 0x100000001b3ull;
// A different odd multiplier for the second stream, so the two are not shifted copies.
constexpr std::uint64_t kSecondPrime = 0x00000100000001b3ull ^ 0x9e3779b97f4a7c15ull;

}  // namespace

Hasher& Hasher::add_bytes(std::string_view bytes) noexcept {
  for (unsigned char c : bytes) {
    low_ = (low_ ^ c) * kFnvPrime;
    high_ = (high_ ^ c) * (kSecondPrime | 1);
  }
  return *this;
}

Hasher& Hasher::add(std::string_view part) noexcept {
  add(static_cast<std::int64_t>(part.size()));
  add_bytes(part);
  return *this;
}

Hasher& Hasher::add(std::int64_t value) noexcept {
  char bytes[8];
  for (int i = 0; i < 8; ++i) bytes[i] = static_cast<char>((static_cast<std::uint64_t>(value) >> (8 * i)) & 0xff);
  add_bytes(std::string_view(bytes, 8));
  return *this;
}

Hasher& Hasher::add(double value) noexcept { return add(std::bit_cast<std::int64_t>(value)); }

std::string Hasher::hex() const { return fmt::format("{:016x}{:016x}", avalanche(high_), avalanche(low_)); }

std::string hash_hex(std::string_view data) {
  Hasher h;
  h.add_bytes(data);
  return h.hex();
}

}  // namespace jitgemm
