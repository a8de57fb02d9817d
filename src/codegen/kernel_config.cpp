// KernelConfig names and their parser, KernelSpecialization suffixes, the config hash.
#include "codegen/kernel_config.hpp"

#include <fmt/format.h>

#include <charconv>
#include <cstdint>
#include <functional>

#include "jitgemm/error.hpp"

namespace jitgemm {
namespace {

// Reads a decimal integer >= `min` at the front of `text` and advances past it.
bool take_int(std::string_view& text, int& out, int min = 1) {
  const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
  if (ec != std::errc() || ptr == text.data() || out < min) return false;
  text.remove_prefix(static_cast<size_t>(ptr - text.data()));
  return true;
}

// Consumes `literal` at the front of `text`.
bool take(std::string_view& text, std::string_view literal) {
  if (!text.starts_with(literal)) return false;
  text.remove_prefix(literal.size());
  return true;
}

}  // namespace

std::string_view to_string(KernelFamily f) noexcept {
  switch (f) {
    case KernelFamily::SimtFp32: return "simt_fp32";
    case KernelFamily::WgmmaTf32x3: return "wgmma_tf32x3";
    case KernelFamily::WgmmaTf32: return "wgmma_tf32";
    case KernelFamily::MmaTf32x3: return "mma_tf32x3";
    case KernelFamily::MmaTf32: return "mma_tf32";
  }
  return "?";
}

KernelFamily parse_kernel_family(std::string_view text, std::string_view what) {
  for (KernelFamily f : kKernelFamilies)
    if (text == to_string(f)) return f;
  throw InvalidArgument(fmt::format(
      "{}: '{}' is not a kernel family (known: 'simt_fp32', 'wgmma_tf32x3', 'wgmma_tf32', 'mma_tf32x3', "
      "'mma_tf32')",
      what, text));
}

std::string KernelConfig::name() const {
  if (is_wgmma(family))
    return fmt::format("{}_{}x{}x{}_c{}_s{}_a{}_b{}_m{}_g{}{}{}{}{}{}{}", to_string(family), block_m, block_n,
                       block_k, consumers, stages, acc_block_k, acc_buffers, sum_blocks, raster_group,
                       a_in_registers == 0 ? "" : a_round != 0 ? "_rs" : "_rst", swap_ab != 0 ? "_swap" : "",
                       convert_b != 0 ? "_cvt" : "", transform_b != 0 ? "_tw" : "", stream_k != 0 ? "_sk" : "",
                       cluster != 1 ? fmt::format("_x{}", cluster) : "");
  if (is_mma_sync(family))
    return fmt::format("{}_{}x{}x{}_w{}x{}_s{}_a{}_k{}_g{}", to_string(family), block_m, block_n, block_k, warps_m,
                       warps_n, stages, acc_block_k, split_k, raster_group);
  return fmt::format("{}_{}x{}x{}_w{}x{}_t{}x{}_s{}_k{}_g{}", to_string(family), block_m, block_n, block_k, warps_m,
                     warps_n, thread_m, thread_n, stages, split_k, raster_group);
}

KernelConfig KernelConfig::parse(std::string_view name) {
  // simt:  <family>_<bm>x<bn>x<bk>_w<wm>x<wn>_t<tm>x<tn>_s<stages>_k<split_k>_g<raster_group>
  // wgmma: <family>_<bm>x<bn>x<bk>_c<consumers>_s<stages>_a<acc_block_k>_b<acc_buffers>_m<sum_blocks>_g<group>
  //        [_rs | _rst][_swap][_cvt][_tw][_sk][_x<cluster>]
  // mma:   <family>_<bm>x<bn>x<bk>_w<wm>x<wn>_s<stages>_a<acc_block_k>_k<split_k>_g<group>
  // The family itself contains '_', so it is split off at the first "_<digit>". Fields a
  // family does not name keep their defaults.
  size_t family_end = std::string_view::npos;
  for (size_t i = 0; i + 1 < name.size(); ++i) {
    if (name[i] == '_' && name[i + 1] >= '0' && name[i + 1] <= '9') {
      family_end = i;
      break;
    }
  }
  const auto fail = [&](std::string_view why) {
    return InvalidArgument(fmt::format(
        "kernel config name '{}': {} (expected <family>_<bm>x<bn>x<bk>_w<wm>x<wn>_t<tm>x<tn>_s<stages>_k<split>_g<group>, "
        "e.g. simt_fp32_128x128x8_w2x4_t8x8_s3_k1_g8, or for wgmma families "
        "<family>_<bm>x<bn>x<bk>_c<consumers>_s<stages>_a<acc_block_k>_b<acc_buffers>_m<sum_blocks>_g<group>, "
        "e.g. wgmma_tf32x3_128x128x32_c2_s3_a32_b1_m0_g8, or for mma families "
        "<family>_<bm>x<bn>x<bk>_w<wm>x<wn>_s<stages>_a<acc_block_k>_k<split>_g<group>, "
        "e.g. mma_tf32x3_128x128x32_w2x4_s3_a32_k1_g8)",
        name, why));
  };
  if (family_end == std::string_view::npos) throw fail("no tile sizes after the family");
  KernelConfig c;
  c.family = parse_kernel_family(name.substr(0, family_end), fmt::format("kernel config name '{}': family", name));
  std::string_view rest = name.substr(family_end);
  bool ok = take(rest, "_") && take_int(rest, c.block_m) && take(rest, "x") && take_int(rest, c.block_n) &&
            take(rest, "x") && take_int(rest, c.block_k);
  if (is_wgmma(c.family)) {
    ok = ok && take(rest, "_c") && take_int(rest, c.consumers) && take(rest, "_s") && take_int(rest, c.stages) &&
         take(rest, "_a") && take_int(rest, c.acc_block_k, 0) && take(rest, "_b") && take_int(rest, c.acc_buffers) &&
         take(rest, "_m") && take_int(rest, c.sum_blocks, 0) && take(rest, "_g") && take_int(rest, c.raster_group);
    if (ok && take(rest, "_rst")) {
      c.a_in_registers = 1, c.a_round = 0;
    } else if (ok && take(rest, "_rs")) {
      c.a_in_registers = 1;
    }
    if (ok && take(rest, "_swap")) c.swap_ab = 1;
    if (ok && take(rest, "_cvt")) c.convert_b = 1;
    if (ok && take(rest, "_tw")) c.transform_b = 1;
    if (ok && take(rest, "_sk")) c.stream_k = 1;
    if (ok && take(rest, "_x")) ok = take_int(rest, c.cluster);
    ok = ok && rest.empty();
  } else if (is_mma_sync(c.family)) {
    ok = ok && take(rest, "_w") && take_int(rest, c.warps_m) && take(rest, "x") && take_int(rest, c.warps_n) &&
         take(rest, "_s") && take_int(rest, c.stages) && take(rest, "_a") && take_int(rest, c.acc_block_k, 0) &&
         take(rest, "_k") && take_int(rest, c.split_k) && take(rest, "_g") && take_int(rest, c.raster_group) &&
         rest.empty();
  } else {
    ok = ok && take(rest, "_w") && take_int(rest, c.warps_m) && take(rest, "x") && take_int(rest, c.warps_n) &&
         take(rest, "_t") && take_int(rest, c.thread_m) && take(rest, "x") && take_int(rest, c.thread_n) &&
         take(rest, "_s") && take_int(rest, c.stages) && take(rest, "_k") && take_int(rest, c.split_k) &&
         take(rest, "_g") && take_int(rest, c.raster_group) && rest.empty();
  }
  if (!ok) throw fail(rest.empty() ? "truncated" : fmt::format("unexpected text at '{}'", rest));
  return c;
}

std::string KernelSpecialization::suffix() const {
  return fmt::format("{}{}_v{}v{}v{}", to_string(trans_a), to_string(trans_b), vec_a, vec_b, vec_c);
}

bool wgmma_only_fields_at_defaults(const KernelConfig& c) noexcept {
  const KernelConfig d;
  return c.consumers == d.consumers && c.acc_buffers == d.acc_buffers && c.sum_blocks == d.sum_blocks &&
         c.a_in_registers == d.a_in_registers && c.a_round == d.a_round && c.swap_ab == d.swap_ab &&
         c.convert_b == d.convert_b && c.transform_b == d.transform_b && c.stream_k == d.stream_k &&
         c.cluster == d.cluster;
}

size_t KernelConfigHash::operator()(const KernelConfig& c) const noexcept {
  // Every field folded in through the splitmix64 finalizer (std::hash<int> is the identity,
  // and a plain shift-xor combine of small integers collided within one candidate space).
  auto mix = [](uint64_t x) {
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
  };
  uint64_t h = mix(static_cast<uint64_t>(c.family));
  for (int v : {c.block_m, c.block_n, c.block_k, c.warps_m, c.warps_n, c.thread_m, c.thread_n, c.stages, c.split_k,
                c.raster_group, c.consumers, c.acc_block_k, c.acc_buffers, c.sum_blocks, c.a_in_registers, c.a_round,
                c.swap_ab, c.convert_b, c.transform_b, c.stream_k, c.cluster})
    h = mix(h ^ static_cast<uint32_t>(v));
  return static_cast<size_t>(h);
}

}  // namespace jitgemm
