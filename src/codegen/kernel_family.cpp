// The table of kernel families and the dispatchers that ask a config's family.
#include "codegen/kernel_family.hpp"

#include <fmt/format.h>

#include <climits>

#include "codegen/mma_sync_family.hpp"
#include "codegen/simt_family.hpp"
#include "codegen/wgmma_family.hpp"
#include "jitgemm/error.hpp"

namespace jitgemm {

KernelSpecialization specialization_of(const ProblemKey& key) noexcept {
  const ProductTriangles t = product_triangles(key);
  auto symmetric = [](Structure s) { return is_symmetric(s) ? stored_triangle(s) : Triangle::None; };
  const SimtCopies copies = simt_operand_copies(key);
  return {key.trans_a, key.trans_b, key.vec_a, key.vec_b, key.vec_c, t.c, t.any(), t.a, t.b,
          has_unit_diagonal(key.structure_a), has_unit_diagonal(key.structure_b), symmetric(key.structure_a),
          symmetric(key.structure_b), copies.a, copies.b, simt_edge_strips(key).any(key.m, key.n)};
}

const KernelFamilyRules& family_rules(KernelFamily family) noexcept {
  switch (family) {
    case KernelFamily::Simt: return simt_rules();
    case KernelFamily::MmaSync: return mma_sync_rules();
    case KernelFamily::Wgmma: return wgmma_rules();
  }
  return simt_rules();
}

std::string field_text(const ConfigField& f, const KernelConfig& c) {
  const int v = f.get(c);
  switch (f.kind) {
    case ConfigField::Kind::Boolean: return v != 0 ? "true" : "false";
    case ConfigField::Kind::Name: return std::string(f.names[static_cast<size_t>(v)]);
    case ConfigField::Kind::Integer: break;
  }
  return std::to_string(v);
}

bool statically_valid(const KernelConfig& c, const StaticLimits& limits, std::string* why) {
  std::string reason = rules_of(c).invalid_reason(c, limits);
  if (reason.empty()) return true;
  if (why != nullptr) *why = std::move(reason);
  return false;
}

size_t shared_memory_bytes(const KernelConfig& c) { return rules_of(c).shared_memory_bytes(c); }

int estimated_registers(const KernelConfig& c) { return rules_of(c).estimated_registers(c); }

LaunchGeometry launch_geometry(const KernelConfig& c, int64_t m, int64_t n, int64_t k, int sm_count) {
  for (auto [value, name] : {std::pair{m, "M"}, std::pair{n, "N"}, std::pair{k, "K"}})
    if (value < 1 || value > INT_MAX)
      throw InvalidArgument(fmt::format("launch_geometry({}): {}={} is outside 1..{} (the kernel takes int sizes)",
                                        c.name(), name, value, INT_MAX));
  const int64_t tiles = c.output_tiles(m, n);
  if (tiles > INT_MAX)
    throw InvalidArgument(fmt::format("launch_geometry({}): {}x{} needs {} CTAs, more than a 1-D grid holds ({})",
                                      c.name(), m, n, tiles, INT_MAX));
  return rules_of(c).geometry(c, m, n, k, sm_count);
}

std::string structure_constants(const KernelSpecialization& s, bool transposed_c) {
  const Triangle fill = transposed_c ? transposed(s.fill) : s.fill;
  return fmt::format("constexpr int FILL = {}, WORK_LIST = {};\n", triangle_code(fill), s.work_list ? 1 : 0);
}

}  // namespace jitgemm
