// Record checksums (see record_checksum.hpp).
#include "database/record_checksum.hpp"

#include <cstdint>
#include <limits>

#include <nlohmann/json.hpp>

#include "common/hash.hpp"

namespace jitgemm {
namespace {

using nlohmann::json;

// One tag byte per value type, so that "1" and 1, [] and {} hash differently.
void add_tag(Hasher& h, char tag) { h.add_bytes(std::string_view(&tag, 1)); }

// A signed integer, whichever way the JSON library holds it: a parser reads 25 as unsigned,
// to_json writes an int as signed.
void add_integer(Hasher& h, const json& j) {
  if (j.is_number_integer() && !j.is_number_unsigned()) {
    add_tag(h, 'i');
    h.add(j.get<std::int64_t>());
    return;
  }
  const std::uint64_t v = j.get<std::uint64_t>();
  if (v <= static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) {
    add_tag(h, 'i');
    h.add(static_cast<std::int64_t>(v));
  } else {
    add_tag(h, 'u');
    h.add(static_cast<std::int64_t>(v - (std::uint64_t{1} << 63)));
  }
}

void add_value(Hasher& h, const json& j, const std::string& skipped_key = "") {
  switch (j.type()) {
    case json::value_t::object: {
      const bool skips = !skipped_key.empty() && j.contains(skipped_key);
      add_tag(h, '{');
      h.add(static_cast<std::int64_t>(j.size() - (skips ? 1 : 0)));
      for (auto it = j.begin(); it != j.end(); ++it) {  // std::map order: sorted by key
        if (skips && it.key() == skipped_key) continue;
        h.add(it.key());
        add_value(h, it.value());
      }
      break;
    }
    case json::value_t::array:
      add_tag(h, '[');
      h.add(static_cast<std::int64_t>(j.size()));
      for (const json& element : j) add_value(h, element);
      break;
    case json::value_t::string:
      add_tag(h, 's');
      h.add(j.get_ref<const std::string&>());
      break;
    case json::value_t::number_integer:
    case json::value_t::number_unsigned: add_integer(h, j); break;
    case json::value_t::number_float:
      add_tag(h, 'f');
      h.add(j.get<double>());
      break;
    case json::value_t::boolean: add_tag(h, j.get<bool>() ? 't' : 'b'); break;
    case json::value_t::null:
    case json::value_t::discarded:
    case json::value_t::binary: add_tag(h, 'n'); break;
  }
}

}  // namespace

std::string record_checksum(const json& record_json) {
  Hasher h;
  h.add("jitgemm-record-v1");
  add_value(h, record_json, "checksum");
  return h.hex();
}

bool is_checksum_text(std::string_view text) noexcept {
  if (text.size() != 32) return false;
  for (char c : text)
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  return true;
}

}  // namespace jitgemm
