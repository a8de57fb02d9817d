// Schema 1 -> 2: the flat KernelConfig object becomes the tile and the family's parameters.
// Schema 2 -> 3: records gain their checksums on the next save.
#include "database/schema_migration.hpp"

#include <fmt/format.h>

#include <string>
#include <string_view>
#include <utility>

#include "database/json_reader.hpp"
#include "database/printable_text.hpp"

namespace jitgemm {
namespace {

using nlohmann::json;

// Schema 1's fields with their defaults (what a family that does not read them had to keep).
struct V1Field {
  std::string_view name;
  int default_value;
};
constexpr V1Field kSimtOnly[] = {{"thread_m", 8}, {"thread_n", 8}};
constexpr V1Field kWarps[] = {{"warps_m", 2}, {"warps_n", 4}};
constexpr V1Field kWgmmaOnly[] = {{"consumers", 2},     {"acc_buffers", 1}, {"sum_blocks", 0},
                                  {"a_in_registers", 0}, {"a_round", 1},     {"swap_ab", 0},
                                  {"convert_b", 0},      {"transform_b", 0}, {"stream_k", 0},
                                  {"cluster", 1}};

// A schema-1 integer field (absent: its default).
int v1_int(const json& v1, std::string_view name, int default_value) {
  if (!v1.contains(name)) return default_value;
  return static_cast<int>(json_reader::read_int(v1, name, -1000000, 1000000));
}

void expect_defaults(const json& v1, std::span<const V1Field> fields, std::string_view family) {
  for (const V1Field& f : fields)
    if (const int v = v1_int(v1, f.name, f.default_value); v != f.default_value)
      throw FieldError(std::string(f.name), fmt::format("{} does not read this field: expected its default {}, got {}",
                                                        family, f.default_value, v));
}

// "wgmma_tf32x3" -> {"wgmma", "tf32x3"}.
std::pair<std::string, std::string> split_family(const json& v1) {
  const std::string family = json_reader::read_string(v1, "family");
  for (std::string_view known : {"simt_fp32", "wgmma_tf32x3", "wgmma_tf32", "mma_tf32x3", "mma_tf32"})
    if (family == known) {
      const size_t split = family.find('_');
      return {family.substr(0, split), family.substr(split + 1)};
    }
  throw FieldError("family", fmt::format("\"{}\" is not a schema-1 kernel family (simt_fp32, wgmma_tf32x3, "
                                         "wgmma_tf32, mma_tf32x3, mma_tf32)",
                                         printable(family)));
}

json wgmma_params(const json& v1) {
  const int registers = v1_int(v1, "a_in_registers", 0), round = v1_int(v1, "a_round", 1);
  const int swap = v1_int(v1, "swap_ab", 0), convert = v1_int(v1, "convert_b", 0);
  const int transform = v1_int(v1, "transform_b", 0), stream_k = v1_int(v1, "stream_k", 0);
  for (auto [name, v] : {std::pair{"a_in_registers", registers}, std::pair{"a_round", round}, std::pair{"swap_ab", swap},
                         std::pair{"convert_b", convert}, std::pair{"transform_b", transform},
                         std::pair{"stream_k", stream_k}})
    if (v != 0 && v != 1) throw FieldError(name, fmt::format("expected 0 or 1, got {}", v));
  if (registers == 0 && (round != 1 || swap != 0))
    throw FieldError("a_round", fmt::format("a_round={} swap_ab={} describe an A in registers (a_in_registers=0)",
                                            round, swap));
  if (convert == 1 && transform == 1)
    throw FieldError("transform_b", "convert_b and transform_b are two sources of B: at most one may be 1");
  return json{{"consumers", v1_int(v1, "consumers", 2)},
              {"acc_block_k", v1_int(v1, "acc_block_k", 32)},
              {"acc_buffers", v1_int(v1, "acc_buffers", 1)},
              {"sum_blocks", v1_int(v1, "sum_blocks", 0)},
              {"a", registers == 0 ? "planes" : round == 1 ? "registers" : "registers_truncated"},
              {"swap_ab", swap == 1},
              {"b", convert == 1 ? "converted" : transform == 1 ? "transformed" : "planes"},
              {"schedule", stream_k == 1 ? "stream_k" : "data_parallel"},
              {"cluster", v1_int(v1, "cluster", 1)}};
}

// The config at `path` of `record` (an object member, or a member of each array element).
void migrate_config_at(json& holder, const char* key) {
  if (!holder.is_object() || !holder.contains(key) || !holder[key].is_object()) return;
  try {
    holder[key] = migrate_config_v1(holder[key]);
  } catch (const FieldError& e) {
    throw e.nested_in(key);
  }
}

}  // namespace

json migrate_config_v1(const json& v1) {
  json_reader::expect_fields(v1,
                             {"family", "block_m", "block_n", "block_k", "warps_m", "warps_n", "thread_m",
                              "thread_n", "stages", "split_k", "raster_group"},
                             {"consumers", "acc_block_k", "acc_buffers", "sum_blocks", "a_in_registers", "a_round",
                              "swap_ab", "convert_b", "transform_b", "stream_k", "cluster"});
  const auto [family, precision] = split_family(v1);
  json v2{{"family", family}, {"precision", precision}};
  for (const char* tile : {"block_m", "block_n", "block_k", "stages", "split_k", "raster_group"}) v2[tile] = v1[tile];
  if (family == "simt") {
    expect_defaults(v1, kWgmmaOnly, "simt");
    if (const int acc = v1_int(v1, "acc_block_k", 32); acc != 32)
      throw FieldError("acc_block_k", fmt::format("simt does not read this field: expected its default 32, got {}", acc));
    v2["params"] = json{{"warps_m", v1["warps_m"]}, {"warps_n", v1["warps_n"]}, {"thread_m", v1["thread_m"]},
                        {"thread_n", v1["thread_n"]}};
  } else if (family == "mma") {
    expect_defaults(v1, kSimtOnly, "mma");
    expect_defaults(v1, kWgmmaOnly, "mma");
    v2["params"] = json{{"warps_m", v1["warps_m"]}, {"warps_n", v1["warps_n"]},
                        {"acc_block_k", v1_int(v1, "acc_block_k", 32)}};
  } else {
    expect_defaults(v1, kSimtOnly, "wgmma");
    expect_defaults(v1, kWarps, "wgmma");
    v2["params"] = wgmma_params(v1);
  }
  return v2;
}

json migrate_v1_to_v2(const json& document) {
  json out = document;
  out["schema_version"] = 2;
  if (!out.contains("records") || !out["records"].is_array()) return out;
  json& records = out["records"];
  for (size_t i = 0; i < records.size(); ++i) {
    try {
      migrate_config_at(records[i], "config");
      if (records[i].is_object() && records[i].contains("candidates") && records[i]["candidates"].is_array()) {
        json& candidates = records[i]["candidates"];
        for (size_t c = 0; c < candidates.size(); ++c) {
          try {
            migrate_config_at(candidates[c], "config");
          } catch (const FieldError& e) {
            throw e.nested_in(fmt::format("[{}]", c)).nested_in("candidates");
          }
        }
      }
    } catch (const FieldError& e) {
      throw e.nested_in(fmt::format("records[{}]", i));
    }
  }
  return out;
}

json migrate_v2_to_v3(json document) {
  json out = std::move(document);
  out["schema_version"] = 3;
  if (!out.contains("records") || !out["records"].is_array()) return out;
  const json& records = out["records"];
  for (size_t i = 0; i < records.size(); ++i)
    if (records[i].is_object() && records[i].contains("checksum"))
      throw FieldError(fmt::format("records[{}].checksum", i), "unknown field in schema 2 (only schema 3 has checksums)");
  return out;
}

}  // namespace jitgemm
