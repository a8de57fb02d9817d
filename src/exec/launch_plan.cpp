// make_launch_plan: the workspace layout, geometry and pre-passes of a config on a problem.
#include "exec/launch_plan.hpp"

#include <fmt/format.h>

#include "codegen/simt_family.hpp"
#include "codegen/split_k_policy.hpp"
#include "codegen/wgmma_family.hpp"
#include "jitgemm/error.hpp"
#include "problem/operand_structure.hpp"

namespace jitgemm {
namespace {

constexpr size_t kRegionAlign = 256;

size_t align_up(size_t bytes) { return (bytes + kRegionAlign - 1) / kRegionAlign * kRegionAlign; }
size_t floats(int64_t count) { return sizeof(float) * static_cast<size_t>(count); }

// Appends regions one after another, each on a kRegionAlign boundary.
class RegionAllocator {
 public:
  WorkspaceRegion take(size_t bytes) {
    if (bytes == 0) return {};
    const WorkspaceRegion r{align_up(end_), bytes};
    end_ = r.end();
    return r;
  }
  size_t total() const { return end_ == 0 ? 0 : align_up(end_); }

 private:
  size_t end_ = 0;
};

// Which operands a kernel needs copied dense first: the structured ones it reads in place
// unmasked, all of them for the split-K families; for wgmma the one in registers and the
// source of a B converted or transformed in the kernel, unless the kernel masks it (a
// triangular operand read raw, or a symmetric A' read from its stored triangle:
// wgmma_operand_masks). The pre-pass reads a plane-fed operand's
// structure itself. And the general operands the SIMT kernel reads from an aligned copy: the ones its
// specialization, the kernel it was compiled as, says (simt_operand_copies).
void mark_copied_operands(const KernelConfig& c, const ProblemKey& p, PlannedOperand& a, PlannedOperand& b) {
  const KernelSpecialization spec = specialization_of(p);
  bool a_in_place = true, b_in_place = true;
  if (const WgmmaParams* w = c.if_wgmma()) {
    const WgmmaOperandMasks masks = wgmma_operand_masks(c, spec);
    const bool kernel_a_in_place = w->a_in_registers() && masks.a_keep == 0 && masks.a_sym == 0;
    const bool kernel_b_in_place = w->b != WgmmaB::Planes && masks.b_keep == 0;
    a_in_place = w->swap_ab ? kernel_b_in_place : kernel_a_in_place;
    b_in_place = w->swap_ab ? kernel_a_in_place : kernel_b_in_place;
  }
  const bool simt = c.family() == KernelFamily::Simt;
  auto mark = [](PlannedOperand& op, Structure s, bool in_place, bool aligned_copy) {
    // The SIMT kernel's copy is M- or N-contiguous: the stored matrix transposed when it is not.
    op.transposed_copy = aligned_copy && !op.rows_contiguous;
    op.copied = (s != Structure::General && in_place) || aligned_copy;
    op.structure = op.copied ? Structure::General : s;
    op.copy_ld = op.copied ? dense_copy_ld(op.copy_shape().cols) : 0;
  };
  mark(a, p.structure_a, a_in_place, simt && spec.a_aligned_copy);
  mark(b, p.structure_b, b_in_place, simt && spec.b_aligned_copy);
}

void plan_copies(LaunchPlan& plan, RegionAllocator& regions) {
  for (auto [op, region] : {std::pair{&plan.a, &plan.workspace.copy_a}, std::pair{&plan.b, &plan.workspace.copy_b}}) {
    if (!op->copied) continue;
    *region = regions.take(floats(op->copy_shape().rows * op->copy_ld));
  }
}

// The work list of a structured product on the kernel's M' x N' output, after the other
// regions: persistent wgmma CTAs each walk a share in K units of GROUP_STAGES stages; the
// split-K families take one tile per CTA in units of BLOCK_K.
void plan_work_list(LaunchPlan& plan, RegionAllocator& regions) {
  const KernelConfig& c = plan.config;
  const bool persistent = c.family() == KernelFamily::Wgmma;
  const int pieces = persistent ? c.split_k : 1;  // wgmma K pieces walk the list too
  if (!plan.triangles.any() && pieces == 1) return;
  const WorkShape shape = persistent ? WorkShape{plan.kernel_a.rows, plan.kernel_b.rows, plan.key.k}
                                     : WorkShape{plan.key.m, plan.key.n, plan.key.k};
  const int unit_k = persistent ? wgmma_group_stages(c) * c.block_k : c.block_k;
  plan.work = build_work_list(plan.triangles, shape, {c.block_m, c.block_n, unit_k},
                              persistent ? static_cast<int>(plan.main.grid_x) : 0, pieces);
  plan.work_words = plan.work.words();
  plan.workspace.work_list = regions.take(sizeof(int32_t) * plan.work_words.size());
}

void plan_split_k(LaunchPlan& plan, const DeviceSlots& device, RegionAllocator& regions) {
  const ProblemKey& p = plan.key;
  if (plan.config.family() == KernelFamily::Simt) {
    plan.strips = simt_edge_strips(p);  // {M, N} where there are none
    const KernelSpecialization view = simt_view(specialization_of(p));
    plan.simt_a_rows_contiguous = view.trans_a == Op::T, plan.simt_b_rows_contiguous = view.trans_b == Op::N;
  }
  plan.main = launch_geometry(plan.config, plan.strips.m0, plan.strips.n0, p.k, device.sm_count);
  plan.split_k_ld = split_k_workspace_ld(p.n);
  if (plan.config.split_k > 1)
    plan.workspace.split_k_partials = regions.take(floats(plan.config.split_k * p.m * plan.split_k_ld));
  plan.split_k_finish = simt_finishes_split_k(plan.config, plan.main.grid_x, device.sm_count);
  if (plan.split_k_finish) plan.workspace.split_k_arrivals = regions.take(sizeof(uint32_t) * plan.main.grid_x);
  plan.triangles = product_triangles(p);
}

void plan_wgmma(LaunchPlan& plan, const DeviceSlots& device, RegionAllocator& regions) {
  const KernelConfig& c = plan.config;
  const WgmmaParams& w = c.wgmma();
  const ProblemKey& p = plan.key;
  if (!rules_of(c).runs_in_place(c, p))
    throw InvalidArgument(fmt::format("launch plan {}: reads {} in place, which needs a 16-byte aligned base and a "
                                      "leading dimension that is a multiple of 4 (vector widths A {}, B {})",
                                      c.name(), w.swap_ab ? "B" : "A", p.vec_a, p.vec_b));
  plan.kernel_a = w.swap_ab ? plan.b : plan.a;
  plan.kernel_b = w.swap_ab ? plan.a : plan.b;
  // A symmetric A' read from its stored triangle is read as rows of K, whatever op it came with.
  plan.a_sym = wgmma_operand_masks(c, specialization_of(p)).a_sym;
  if (plan.a_sym != 0) plan.kernel_a.rows_contiguous = false;
  if (w.b == WgmmaB::Rounded && plan.kernel_b.rows_contiguous)
    throw InvalidArgument(fmt::format("launch plan {}: B rounded in shared memory needs {} stored K-major ({}), got {}",
                                      c.name(), w.swap_ab ? "A" : "B", w.swap_ab ? "trans_a = N" : "trans_b = T",
                                      w.swap_ab ? "trans_a = T" : "trans_b = N"));
  if (w.b == WgmmaB::Transformed && !plan.kernel_b.rows_contiguous)
    throw InvalidArgument(fmt::format("launch plan {}: B transformed in shared memory needs {} stored MN-major ({}), "
                                      "got {}",
                                      c.name(), w.swap_ab ? "A" : "B", w.swap_ab ? "trans_a = T" : "trans_b = N",
                                      w.swap_ab ? "trans_a = N" : "trans_b = T"));
  if (!wgmma_walks_work_list(c, p))
    throw InvalidArgument(fmt::format("launch plan {}: a structured product ({}) walks a work list of whole tiles, "
                                      "which a stream-K tail or CTA pairs do not",
                                      c.name(), p.canonical()));
  plan.planes = c.precision == Precision::TF32x3 ? 2 : 1;
  plan.plane_ld = (p.k + kPlaneAlign - 1) / kPlaneAlign * kPlaneAlign;
  plan.prepass_a = !w.a_in_registers();
  plan.prepass_b = w.b == WgmmaB::Planes;
  // Only pre-pass-fed operands qualify (the rule checks), and general ones are never copied first.
  const WgmmaBigPlanes in_place = wgmma_big_planes_in_place(c, p);
  plan.a_big_in_place = in_place.a && !plan.kernel_a.copied;
  plan.b_big_in_place = in_place.b && !plan.kernel_b.copied;
  plan.b_planes_permuted = wgmma_b_planes_permuted(c, specialization_of(p));
  plan.b_plane_map_k = plan.b_planes_permuted ? plan.plane_ld : p.k;
  plan.main_dependent = wgmma_dependent_launch(c, specialization_of(p));
  const int slots = w.cluster > 1 && device.cluster_slots > 0 ? device.cluster_slots : device.sm_count;
  plan.main = launch_geometry(c, plan.kernel_a.rows, plan.kernel_b.rows, p.k, slots);

  // Only tf32x3 reads the pre-pass's flag (the NaN rule; with B transformed no pre-pass sets it),
  // and only the stream-K tail the flags after it; a plain tf32 kernel saves the memset.
  const bool b_raw = w.b_read_raw();  // no pre-pass sets the flag
  plan.flag_words = plan.planes == 2 && !b_raw ? 1 : 0;
  if (w.schedule == TileSchedule::StreamK) {
    const size_t sk_flags = static_cast<size_t>(plan.main.grid_x) * static_cast<size_t>(w.consumers);
    if (sk_flags > kMaxStreamKFlags)
      throw NotSupported(fmt::format("launch plan {}: {} stream-K flags exceed the {} reserved", c.name(), sk_flags,
                                     kMaxStreamKFlags));
    plan.flag_words = 1 + sk_flags;
  }
  WorkspaceLayout& ws = plan.workspace;
  ws.flags = regions.take(kFlagBytes);
  if (w.b == WgmmaB::Converted)
    ws.convert_counters = regions.take(sizeof(unsigned) * static_cast<size_t>(1 + convert_chunks(plan.plane_ld)));
  const int a_planes = plan.a_big_in_place ? 1 : plan.planes, b_planes = plan.b_big_in_place ? 1 : plan.planes;
  if (plan.prepass_a) ws.a_planes = regions.take(floats(a_planes * plan.kernel_a.rows * plan.plane_ld));
  if (!b_raw)  // B converted: the kernel writes its one plane here
    ws.b_planes = regions.take(floats(b_planes * plan.kernel_b.rows * plan.plane_ld));
  if (w.schedule == TileSchedule::StreamK)
    ws.stream_k_partials = regions.take(floats(int64_t{c.block_m} * c.block_n * device.sm_count));
  if (c.split_k > 1) {  // K pieces: one C-shaped partial sum per piece of a tile
    plan.split_k_ld = split_k_workspace_ld(p.n);
    ws.split_k_partials = regions.take(floats(c.split_k * p.m * plan.split_k_ld));
  }
  plan.triangles = w.swap_ab ? product_triangles(p).swapped() : product_triangles(p);
  const int unit_k = wgmma_group_stages(c) * c.block_k;
  if (plan.triangles.a != Triangle::None) plan.skip_band_a = c.block_m + unit_k;
  if (plan.triangles.b != Triangle::None) plan.skip_band_b = c.block_n + unit_k;
}

}  // namespace

PlanSplitPasses split_passes(const LaunchPlan& plan) {
  PlanSplitPasses out;
  const ProblemKey& key = plan.key;
  // A dense copy is written row by row in the stored layout, or transposed (no rounding).
  if (plan.a.copied) out.copy_a = SplitPass{0, plan.a.transposed_copy, key.structure_a, key.vec_a};
  if (plan.b.copied) out.copy_b = SplitPass{0, plan.b.transposed_copy, key.structure_b, key.vec_b};
  if (plan.config.family() != KernelFamily::Wgmma) return out;
  // The pre-passes read the kernel's operands: the caller's matrices (swapped: A' is B), or
  // their dense copies, which are 16-byte aligned with rows of a multiple of 32 floats.
  const bool swap = plan.config.wgmma().swap_ab;
  auto source_vec = [&](bool caller_a) {
    const PlannedOperand& op = caller_a ? plan.a : plan.b;
    return op.copied ? 4 : caller_a ? key.vec_a : key.vec_b;
  };
  auto written = [](bool big_in_place) { return big_in_place ? SplitPlanes::SmallOnly : SplitPlanes::All; };
  if (plan.prepass_a)
    out.split_a = SplitPass{plan.planes, plan.kernel_a.rows_contiguous, plan.kernel_a.structure, source_vec(!swap),
                            written(plan.a_big_in_place)};
  if (plan.prepass_b)
    out.split_b = SplitPass{plan.planes, plan.kernel_b.rows_contiguous, plan.kernel_b.structure, source_vec(swap),
                            written(plan.b_big_in_place), plan.b_planes_permuted};
  return out;
}

LaunchPlan make_launch_plan(const KernelConfig& config, const ProblemKey& problem, const DeviceSlots& device) {
  if (device.sm_count < 1)
    throw InvalidArgument(fmt::format("launch plan {}: sm_count={} must be >= 1", config.name(), device.sm_count));
  // Plans are made from keys, past GemmProblem::validate for the Runtime's calls but not for
  // every caller of the launcher: a symmetric operand read from one triangle must be square.
  if (const std::string e =
          symmetric_shape_error(problem.structure_a, problem.structure_b, problem.m, problem.n, problem.k);
      !e.empty())
    throw InvalidArgument(fmt::format("launch plan {}: {} ({})", config.name(), e, problem.canonical()));
  LaunchPlan plan;
  plan.config = config;
  plan.key = problem;
  plan.a.rows = problem.m, plan.a.rows_contiguous = problem.trans_a == Op::T;
  plan.a.stored = stored_shape(problem.trans_a, problem.m, problem.k);
  plan.b.rows = problem.n, plan.b.rows_contiguous = problem.trans_b == Op::N;
  plan.b.stored = stored_shape(problem.trans_b, problem.k, problem.n);
  plan.strips = {problem.m, problem.n};  // none, unless plan_split_k finds some
  mark_copied_operands(config, problem, plan.a, plan.b);
  RegionAllocator regions;
  if (config.family() == KernelFamily::Wgmma) {
    plan_wgmma(plan, device, regions);
  } else {
    plan_split_k(plan, device, regions);
  }
  plan_copies(plan, regions);
  plan_work_list(plan, regions);
  plan.workspace.total_bytes = regions.total();
  return plan;
}

}  // namespace jitgemm
