// Reading a config's object form from JSON text (see config_reader.hpp).
#include "database/config_reader.hpp"

#include <array>
#include <limits>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "codegen/kernel_family.hpp"
#include "database/config_fields.hpp"
#include "database/printable_text.hpp"
#include "jitgemm/error.hpp"

namespace jitgemm {
namespace {

constexpr int64_t kAnyMin = std::numeric_limits<int64_t>::min();
constexpr int64_t kAnyMax = std::numeric_limits<int64_t>::max();

// A member of "params" as read before the family (which says what it must be) is known.
struct RawParam {
  std::string name;
  JsonType type = JsonType::Null;
  int64_t integer = 0;  // an integral number
  bool integral = false;
  bool flag = false;
  std::string text;
  size_t offset = 0;  // of the value, for messages
};

// More members than any family has fields: damage, whatever the family (and a bound on the
// duplicate check's work).
constexpr size_t kMostParams = 32;

std::vector<RawParam> read_raw_params(JsonCursor& in) {
  std::vector<RawParam> params;
  params.reserve(12);
  in.begin_object();
  std::string_view key;
  while (in.next_member(key)) {
    if (params.size() == kMostParams)
      throw FieldError(printable(key), fmt::format("unknown field (more than {} members)", kMostParams))
          .at_byte(in.key_byte());
    RawParam p;
    p.name = key;
    for (const RawParam& earlier : params)
      if (earlier.name == p.name)
        throw FieldError("", fmt::format("duplicate key \"{}\" in one object (the file is damaged)", printable(key)))
            .at_byte(in.key_byte());
    p.offset = in.offset();
    p.type = in.peek();
    switch (p.type) {
      case JsonType::String: p.text = in.string(); break;
      case JsonType::Boolean: p.flag = in.boolean(); break;
      case JsonType::Number:
        p.integral = in.integer_next();
        if (p.integral)
          p.integer = in.integer(kAnyMin, kAnyMax);
        else
          in.number();
        break;
      default: in.skip(); break;
    }
    params.push_back(std::move(p));
  }
  return params;
}

// The raw parameters as the family's fields: exactly its fields, each of its kind.
void apply_params(JsonCursor& in, const std::vector<RawParam>& raw, KernelConfig& c) {
  const std::span<const ConfigField> fields = rules_of(c).fields();
  const auto wrong_type = [&](const RawParam& p, std::string_view expected) {
    in.seek(p.offset);
    return FieldError(p.name, fmt::format("expected {}, got {}", expected, in.shown_next())).at_byte(p.offset + 1);
  };
  for (const RawParam& p : raw) {
    bool known = false;
    for (const ConfigField& f : fields) known = known || f.name == p.name;
    if (!known) throw FieldError(printable(p.name), "unknown field").at_byte(p.offset + 1);
  }
  for (const ConfigField& f : fields) {
    const RawParam* p = nullptr;
    for (const RawParam& candidate : raw)
      if (candidate.name == f.name) p = &candidate;
    if (p == nullptr && f.absent != ConfigField::kRequired) {
      f.set(c, f.absent);
      continue;
    }
    if (p == nullptr) throw FieldError(std::string(f.name), "missing");
    try {
      switch (f.kind) {
        case ConfigField::Kind::Boolean:
          if (p->type != JsonType::Boolean) throw wrong_type(*p, "boolean");
          f.set(c, p->flag ? 1 : 0);
          break;
        case ConfigField::Kind::Name:
          if (p->type != JsonType::String) throw wrong_type(*p, "string");
          f.set(c, param_index(f, p->text));
          break;
        case ConfigField::Kind::Integer:
          if (p->type != JsonType::Number || !p->integral) throw wrong_type(*p, "integer");
          f.set(c, checked_param_value(f, p->integer));
          break;
      }
    } catch (const FieldError& e) {
      throw e.at_byte(p->offset + 1);
    }
  }
}

constexpr std::string_view kConfigFields[] = {"family",  "precision", "block_m",      "block_n", "block_k",
                                              "stages", "split_k",   "raster_group", "params"};

}  // namespace

KernelConfig read_config_object(JsonCursor& in) {
  std::string family_text, precision_text;
  std::array<int64_t, 6> tile{};
  std::array<size_t, 6> tile_bytes{};
  size_t family_byte = 0, precision_byte = 0;
  std::vector<RawParam> params;
  size_t params_byte = 0;
  read_members(in, kConfigFields, 0, [&](size_t i) {
    const size_t at = in.byte();
    if (i == 0) {
      family_text = in.string(), family_byte = at;
    } else if (i == 1) {
      precision_text = in.string(), precision_byte = at;
    } else if (i < 8) {
      tile[i - 2] = in.integer(kAnyMin, kAnyMax), tile_bytes[i - 2] = at;
    } else {
      params = read_raw_params(in), params_byte = at;
    }
  });
  const auto with_name = [](const char* name, const auto& parse) {
    try {
      return parse();
    } catch (const Error& e) {
      throw FieldError(name, printable(e.what()));
    }
  };
  KernelFamily family{};
  Precision precision{};
  try {
    family = with_name("family", [&] { return parse_family(family_text); });
  } catch (const FieldError& e) {
    throw e.at_byte(family_byte);
  }
  try {
    precision = with_name("precision", [&] { return parse_precision(precision_text); });
    if (!family_rules(family).computes(precision))
      throw FieldError("precision",
                       fmt::format("family {} does not compute {}", to_string(family), to_string(precision)));
  } catch (const FieldError& e) {
    throw e.at_byte(precision_byte);
  }
  KernelConfig c = make_config(family, precision);
  for (size_t i = 0; i < tile_fields().size(); ++i) {
    const TileField& f = tile_fields()[i];
    try {
      c.*f.member = checked_tile_value(f.name, tile[i], family);
    } catch (const FieldError& e) {
      throw e.at_byte(tile_bytes[i]);
    }
  }
  try {
    apply_params(in, params, c);
  } catch (const FieldError& e) {
    throw e.at_byte(params_byte).nested_in("params");
  }
  check_config_fields_agree(c);
  return c;
}

}  // namespace jitgemm
