// The rules a stored KernelConfig's values must meet, in one place for every form a file
// holds a config in: the object of named fields (the record's winner; record_json.cpp and
// record_reader.cpp read it) and the name() string (the top candidates and the history).
// Each check throws FieldError naming the field ("stages: expected 1..8, got 0").
//
//   c.stages = checked_tile_value("stages", in.integer(INT64_MIN, INT64_MAX), family);
//   KernelConfig c = config_from_name("wgmma_tf32x3_128x128x32_c2_s3_a32_b1_m0_g8");
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>

#include "codegen/kernel_config.hpp"
#include "codegen/kernel_family.hpp"

namespace jitgemm {

// The tile every family has, in the order the object form writes it (after "family" and
// "precision", before "params").
struct TileField {
  std::string_view name;
  int KernelConfig::*member;
};
std::span<const TileField> tile_fields() noexcept;

// `value` for the tile field `name` of a config of `family`, once checked: block_m a power of
// two in 16..256; block_n the same (wgmma: one of its widths 64..256); block_k a multiple of 4
// in 4..64; stages 1..8; split_k 1..256; raster_group 1..64.
int checked_tile_value(std::string_view name, int64_t value, KernelFamily family);

// `value` for the family parameter `f` once checked: Integer: in [min, max] and a multiple of
// multiple_of; Boolean: 0 or 1; Name: an index into f.names.
int checked_param_value(const ConfigField& f, int64_t value);
// The index of `text` in f.names (a Name field): "unknown value "x" (expected a, b)".
int param_index(const ConfigField& f, std::string_view text);

// The rules between fields: a wgmma config's block_m is 64 * consumers.
void check_config_fields_agree(const KernelConfig& c);

// The family of `text` ("simt", "mma", "wgmma"); InvalidArgument otherwise.
KernelFamily parse_family(std::string_view text);

// The config a name() string names, every value checked as the object form checks it;
// FieldError (empty path) quoting the name otherwise.
KernelConfig config_from_name(std::string_view name);

// config_from_name once per name: a file names the same few hundred configs thousands of
// times (its records' top candidates, a history's tables). One per file being read.
class ConfigNameCache {
 public:
  const KernelConfig& operator()(std::string_view name);

 private:
  struct Hash {
    using is_transparent = void;
    size_t operator()(std::string_view s) const noexcept { return std::hash<std::string_view>{}(s); }
  };
  std::unordered_map<std::string, KernelConfig, Hash, std::equal_to<>> configs_;
};

}  // namespace jitgemm
