// KernelConfig names and their parser (the family writes and reads its part), the enums'
// names, KernelSpecialization suffixes, the config hash.
#include "codegen/kernel_config.hpp"

#include <fmt/format.h>

#include <cstdint>

#include "codegen/kernel_family.hpp"
#include "codegen/name_reader.hpp"
#include "common/hash.hpp"
#include "jitgemm/error.hpp"

namespace jitgemm {

std::string_view to_string(KernelFamily f) noexcept {
  switch (f) {
    case KernelFamily::Simt: return "simt";
    case KernelFamily::MmaSync: return "mma";
    case KernelFamily::Wgmma: return "wgmma";
  }
  return "?";
}

std::optional<KernelFamily> family_named(std::string_view name) noexcept {
  for (KernelFamily f : kKernelFamilies)
    if (to_string(f) == name) return f;
  return std::nullopt;
}

std::string_view to_string(WgmmaA a) noexcept {
  switch (a) {
    case WgmmaA::Planes: return "planes";
    case WgmmaA::Registers: return "registers";
    case WgmmaA::RegistersTruncated: return "registers_truncated";
  }
  return "?";
}

std::string_view to_string(WgmmaB b) noexcept {
  switch (b) {
    case WgmmaB::Planes: return "planes";
    case WgmmaB::Converted: return "converted";
    case WgmmaB::Transformed: return "transformed";
    case WgmmaB::Rounded: return "rounded";
  }
  return "?";
}

std::string_view to_string(TileSchedule s) noexcept {
  switch (s) {
    case TileSchedule::DataParallel: return "data_parallel";
    case TileSchedule::StreamK: return "stream_k";
  }
  return "?";
}

KernelConfig make_config(KernelFamily family, Precision precision) {
  KernelConfig c;
  c.precision = precision;
  switch (family) {
    case KernelFamily::Simt: c.params = SimtParams{}; break;
    case KernelFamily::MmaSync: c.params = MmaSyncParams{}; break;
    case KernelFamily::Wgmma: c.params = WgmmaParams{}; break;
  }
  return c;
}

int KernelConfig::threads() const { return rules_of(*this).threads(*this); }

std::string KernelConfig::name() const {
  return fmt::format("{}_{}_{}x{}x{}{}", to_string(family()), to_string(precision), block_m, block_n, block_k,
                     rules_of(*this).name_suffix(*this));
}

KernelConfig KernelConfig::parse(std::string_view name) {
  const auto fail = [&](std::string_view why) {
    std::string forms;
    for (KernelFamily f : kKernelFamilies) forms += fmt::format("; {}", family_rules(f).name_form());
    return InvalidArgument(fmt::format("kernel config name '{}': {} (expected <family>_<precision>_<bm>x<bn>x<bk> "
                                       "and the family's fields{})",
                                       name, why, forms));
  };
  // "<family>_<precision>" ends at the first "_<digit>" (the precision names hold digits but
  // never right after an underscore).
  size_t prefix_end = std::string_view::npos;
  for (size_t i = 0; i + 1 < name.size(); ++i)
    if (name[i] == '_' && name[i + 1] >= '0' && name[i + 1] <= '9') {
      prefix_end = i;
      break;
    }
  if (prefix_end == std::string_view::npos) throw fail("no tile sizes after the family");
  const std::string_view prefix = name.substr(0, prefix_end);
  const size_t split = prefix.find('_');
  if (split == std::string_view::npos) throw fail(fmt::format("'{}' is not <family>_<precision>", prefix));
  const std::string_view family_name = prefix.substr(0, split), precision_name = prefix.substr(split + 1);
  const std::optional<KernelFamily> family = family_named(family_name);
  if (!family) throw fail(fmt::format("unknown family '{}' (simt, mma, wgmma)", family_name));
  const KernelFamilyRules* rules = &family_rules(*family);
  Precision precision{};
  try {
    precision = parse_precision(precision_name, "precision");
  } catch (const InvalidArgument&) {
    throw fail(fmt::format("unknown precision '{}'", precision_name));
  }
  if (!rules->computes(precision))
    throw fail(fmt::format("family {} does not compute {}", family_name, precision_name));
  KernelConfig c = make_config(rules->family(), precision);
  std::string_view rest = name.substr(prefix_end);
  bool ok = name_reader::take(rest, "_") && name_reader::take_int(rest, c.block_m) && name_reader::take(rest, "x") &&
            name_reader::take_int(rest, c.block_n) && name_reader::take(rest, "x") &&
            name_reader::take_int(rest, c.block_k);
  ok = ok && rules->parse_name_suffix(rest, c) && rest.empty();
  if (!ok) throw fail(rest.empty() ? "truncated" : fmt::format("unexpected text at '{}'", rest));
  return c;
}

std::string KernelSpecialization::suffix() const {
  return fmt::format("{}{}_v{}v{}v{}{}{}", to_string(trans_a), to_string(trans_b), vec_a, vec_b, vec_c,
                     fill == Triangle::Lower ? "_fl" : fill == Triangle::Upper ? "_fu" : "", work_list ? "_wl" : "");
}

size_t KernelConfigHash::operator()(const KernelConfig& c) const noexcept {
  FieldHash h;
  h.add(c.family()).add(c.precision);
  for (int v : {c.block_m, c.block_n, c.block_k, c.stages, c.split_k, c.raster_group}) h.add(v);
  for (const ConfigField& f : rules_of(c).fields()) h.add(f.get(c));
  return h.value();
}

}  // namespace jitgemm
