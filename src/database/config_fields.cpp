// The value rules of a stored KernelConfig (see config_fields.hpp).
#include "database/config_fields.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "database/field_error.hpp"
#include "database/printable_text.hpp"
#include "jitgemm/error.hpp"

namespace jitgemm {
namespace {

constexpr TileField kTileFields[] = {
    {"block_m", &KernelConfig::block_m}, {"block_n", &KernelConfig::block_n}, {"block_k", &KernelConfig::block_k},
    {"stages", &KernelConfig::stages},   {"split_k", &KernelConfig::split_k}, {"raster_group", &KernelConfig::raster_group},
};

int in_range(std::string_view name, int64_t v, int lo, int hi) {
  if (v < lo || v > hi) throw FieldError(std::string(name), fmt::format("expected {}..{}, got {}", lo, hi, v));
  return static_cast<int>(v);
}

// A power of two in [lo, hi].
int pow2(std::string_view name, int64_t value, int lo, int hi) {
  const int v = in_range(name, value, lo, hi);
  if ((v & (v - 1)) != 0)
    throw FieldError(std::string(name), fmt::format("expected a power of two in {}..{}, got {}", lo, hi, v));
  return v;
}

// block_n: wgmma tiles are the wgmma widths; the other families' are powers of two in 16..256.
int block_n(int64_t value, KernelFamily family) {
  if (family != KernelFamily::Wgmma) return pow2("block_n", value, 16, 256);
  const int v = in_range("block_n", value, 64, 256);
  for (int width : {64, 96, 128, 160, 192, 256})
    if (v == width) return v;
  throw FieldError("block_n", fmt::format("expected one of 64, 96, 128, 160, 192, 256 for {}, got {}",
                                          to_string(family), v));
}

}  // namespace

std::span<const TileField> tile_fields() noexcept { return kTileFields; }

int checked_tile_value(std::string_view name, int64_t value, KernelFamily family) {
  if (name == "block_m") return pow2(name, value, 16, 256);
  if (name == "block_n") return block_n(value, family);
  if (name == "block_k") {
    const int v = in_range(name, value, 4, 64);
    if (v % 4 != 0) throw FieldError("block_k", fmt::format("expected a multiple of 4 in 4..64, got {}", v));
    return v;
  }
  if (name == "stages") return in_range(name, value, 1, 8);
  if (name == "split_k") return in_range(name, value, 1, 256);
  return in_range(name, value, 1, 64);  // raster_group
}

int checked_param_value(const ConfigField& f, int64_t value) {
  switch (f.kind) {
    case ConfigField::Kind::Boolean: return in_range(f.name, value, 0, 1);
    case ConfigField::Kind::Name: return in_range(f.name, value, 0, static_cast<int>(f.names.size()) - 1);
    case ConfigField::Kind::Integer: break;
  }
  const int v = in_range(f.name, value, f.min, f.max);
  if (v % f.multiple_of != 0)
    throw FieldError(std::string(f.name),
                     fmt::format("expected a multiple of {} in {}..{}, got {}", f.multiple_of, f.min, f.max, v));
  return v;
}

int param_index(const ConfigField& f, std::string_view text) {
  for (size_t i = 0; i < f.names.size(); ++i)
    if (f.names[i] == text) return static_cast<int>(i);
  throw FieldError(std::string(f.name),
                   fmt::format("unknown value \"{}\" (expected {})", printable(text), fmt::join(f.names, ", ")));
}

void check_config_fields_agree(const KernelConfig& c) {
  if (const WgmmaParams* w = c.if_wgmma(); w != nullptr && c.block_m != 64 * w->consumers)
    throw FieldError("block_m", fmt::format("expected 64 * consumers ({}) for {}, got {}", 64 * w->consumers,
                                            to_string(c.family()), c.block_m));
}

KernelFamily parse_family(std::string_view text) {
  if (const std::optional<KernelFamily> family = family_named(text)) return *family;
  throw InvalidArgument(fmt::format("unknown family '{}' (simt, mma, wgmma)", text));
}

KernelConfig config_from_name(std::string_view name) {
  KernelConfig c;
  try {
    c = KernelConfig::parse(name);
  } catch (const InvalidArgument& e) {
    throw FieldError("", printable(e.what()));
  }
  try {
    for (const TileField& f : kTileFields) checked_tile_value(f.name, c.*f.member, c.family());
    for (const ConfigField& f : rules_of(c).fields()) checked_param_value(f, f.get(c));
    check_config_fields_agree(c);
  } catch (const FieldError& e) {
    throw FieldError("", fmt::format("{}: {}", printable(name), e.what()));
  }
  return c;
}

const KernelConfig& ConfigNameCache::operator()(std::string_view name) {
  if (const auto it = configs_.find(name); it != configs_.end()) return it->second;
  return configs_.emplace(std::string(name), config_from_name(name)).first->second;
}

}  // namespace jitgemm
