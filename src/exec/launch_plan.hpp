// launch_plan.hpp — everything about running a config on a problem key (sizes, transposes,
// structure, layout classes) that does not depend on the call's addresses, leading dimensions,
// alpha and beta, worked out once: whether it can run, the workspace layout with named
// offsets, the main kernel's grid, block and shared memory, and which pre-passes run. The
// tuner and the Runtime both launch through a plan (GemmLauncher::launch), and the Runtime
// memoizes plans per (config, problem).
//
//   LaunchPlan plan = make_launch_plan(config, key, {device.sm_count, cluster_slots});
//   WorkspacePool::Lease buffer = workspaces.get(stream, plan.workspace.total_bytes, capturing);
//   launcher.launch(plan, problem, kernel, a, b, c, buffer, stream);   // problem: lds, alpha, beta
//
// Workspace of a wgmma kernel (K' = K rounded up to 32 floats; A', B' the kernel's operands,
// op(B)^T and op(A) when swapped):
//   [flags: pre-pass non-finite flag, stream-K flags][converter counters]
//   [A' big][A' small][B' big][B' small][stream-K partials][partial products][copy of A]
//   [copy of B][work list]
// (partial products: K pieces, split_k > 1, split_k x M x ld floats in C's layout) and of a
// split-K kernel: [partial products, split_k x M x ld][copy of A][copy of B][work list].
// Structured operands: the wgmma pre-pass reads them in place (it writes zeros outside a
// triangle, mirrors a symmetric one); a triangular operand a wgmma kernel reads raw (A in
// registers, B transformed or rounded) is masked by the kernel itself; any other structured
// operand a kernel reads in place is first copied into the workspace as the dense matrix it
// stands for, in its stored layout; so are the general operands the SIMT kernel reads from a
// transposed copy, transposed. Triangular operands, a fill or wgmma K pieces add the work list
// (exec/work_list.hpp), uploaded before the launch.
// Every region starts on a 256-byte boundary; absent regions have 0 bytes.
#pragma once

#include <cuda.h>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "codegen/kernel_family.hpp"
#include "codegen/simt_family.hpp"
#include "codegen/split_operand_render.hpp"
#include "common/hash.hpp"
#include "exec/work_list.hpp"
#include "problem/stored_shape.hpp"
#include "problem/problem_key.hpp"

namespace jitgemm {

// The layout's constants, shared with the kernels' host side.
inline constexpr int64_t kPlaneAlign = 32;  // plane rows hold K rounded up to 32 floats (one 128-byte swizzle row)
// The pre-pass's non-finite flag, then the stream-K flags (one per consumer warpgroup of each
// tail tile, fewer tiles than CTAs: up to 2047 CTAs of two warpgroups).
inline constexpr size_t kFlagBytes = 16384;
inline constexpr size_t kMaxStreamKFlags = kFlagBytes / 4 - 1;
inline constexpr int64_t kConvertChunk = 64;  // K per chunk of the in-kernel converter (CONVERT_TILE)
// The converter's chunks of K (one counter each) for planes of `plane_ld` floats per row.
constexpr int64_t convert_chunks(int64_t plane_ld) { return (plane_ld + kConvertChunk - 1) / kConvertChunk; }
// A dense copy whose rows hold `cols` floats (PlannedOperand::copy_shape): rows rounded up to
// 32 floats (TMA and 16-byte vectors can read it).
constexpr int64_t dense_copy_ld(int64_t cols) { return (cols + 31) / 32 * 32; }

struct WorkspaceRegion {
  size_t offset = 0;
  size_t bytes = 0;
  size_t end() const noexcept { return offset + bytes; }
};

struct WorkspaceLayout {
  WorkspaceRegion flags;              // wgmma: the pre-pass's non-finite flag, then the stream-K tail's flags
  WorkspaceRegion convert_counters;   // wgmma, B converted: the unit counter, then one per 64-K chunk
  WorkspaceRegion a_planes;           // wgmma: A' as K-major TF32 planes (big, then small for tf32x3)
  WorkspaceRegion b_planes;           // wgmma: B' likewise
  WorkspaceRegion stream_k_partials;  // wgmma, stream-K: one block_m x block_n partial sum per tail tile (< CTAs)
  WorkspaceRegion split_k_partials;   // split-K families, wgmma K pieces: split_k slices of M x split_k_ld floats
  WorkspaceRegion split_k_arrivals;   // split_k_finish: one unsigned per tile, zeroed before the launch
  WorkspaceRegion copy_a;             // A read in place, copied dense first (PlannedOperand::copied)
  WorkspaceRegion copy_b;             // the same for B
  WorkspaceRegion work_list;          // structured products: WorkList::words()
  size_t total_bytes = 0;
};

// One operand as the main kernel sees it.
struct PlannedOperand {
  int64_t rows = 0;              // M' or N'
  bool rows_contiguous = false;  // stored K x rows (the rows index contiguous)
  StoredShape stored;            // as it lies in memory
  // What the pre-pass reads: the declared structure, or General when the operand was copied.
  Structure structure = Structure::General;
  bool copied = false;           // copied dense into the workspace first (a structured operand, or
                                 // a general one the SIMT kernel reads from an aligned copy)
  bool transposed_copy = false;  // the copy is the stored matrix transposed
  int64_t copy_ld = 0;           // the copy's leading dimension

  // The copy as it lies in the workspace.
  StoredShape copy_shape() const { return transposed_copy ? StoredShape{stored.cols, stored.rows} : stored; }
};

// What the device contributes to a plan.
struct DeviceSlots {
  int sm_count = 0;       // persistent kernels launch at most one CTA per SM
  int cluster_slots = 0;  // CTA pairs: the SMs their co-resident clusters cover (0: sm_count)
};

struct LaunchPlan {
  KernelConfig config;
  ProblemKey key;
  LaunchGeometry main;       // the main kernel
  WorkspaceLayout workspace;
  // wgmma: the kernel computes C' = A' B'^T; swapped, A' = op(B)^T, B' = op(A), C' = C^T.
  PlannedOperand kernel_a, kernel_b;
  PlannedOperand a, b;       // the caller's A and B (rows M and N), for the symmetric copies
  int64_t plane_ld = 0;      // wgmma: floats per plane row (K rounded up to 32)
  int planes = 0;            // wgmma: 2 (tf32x3) or 1 (tf32)
  bool prepass_a = false;    // wgmma: the pre-pass writes A' planes
  bool prepass_b = false;    // wgmma: the pre-pass writes B' planes
  // tf32x3, a pre-pass of a general operand stored K-major with 16-byte aligned rows (and not
  // copied first): its big plane is the caller's matrix itself, read through a TFLOAT32 tensor
  // map (the copy rounds to nearest even), and the pre-pass writes only the small plane
  // (tf32/split_operand.cu, SMALL_ONLY); the workspace holds that one plane.
  bool a_big_in_place = false, b_big_in_place = false;
  // wgmma: B' planes written in the kernel's permuted K order (wgmma_b_planes_permuted; the
  // kernel reads A' two k8 steps a 16-byte load).
  bool b_planes_permuted = false;
  // wgmma: the K extent of the tensor maps over B' planes: K, or the whole row (plane_ld) when
  // permuted, whose last block holds K values < K at positions >= K (zeros where past K).
  int64_t b_plane_map_k = 0;
  // wgmma, triangular operands: the pre-pass leaves planes unwritten farther than this from the
  // diagonal on the zero side (tf32/split_operand.cu skip_band): the operand's tile rows plus one
  // K unit, beyond which the work list never reads. 0: every plane value is written.
  int skip_band_a = 0, skip_band_b = 0;
  // wgmma: A' in registers is symmetric and read from its stored triangle (A_SYM of the kernel:
  // 1 lower, 2 upper stored), in 32 x 32 boxes as rows of K; no copy of it.
  int a_sym = 0;
  size_t flag_words = 0;     // wgmma: 32-bit flags zeroed before the launch (0: no memset)
  bool main_dependent = false;  // wgmma: the main kernel launched as a dependent of the pre-pass (PDL)
  int64_t split_k_ld = 0;    // split-K, wgmma K pieces: row length of a slice
  // Split-K finished by the main kernel (simt_finishes_split_k: 2..8 slices, at least one tile
  // per SM): its tiles' last CTAs add the slices into C, and no reduction kernel runs.
  bool split_k_finish = false;
  // SIMT, edges past whole tiles (simt_edge_strips; kernel specialization edge_strips): the
  // main kernel runs on rows [0, strips.m0) x columns [0, strips.n0) of C (its grid, its split-K
  // slices and their reduction), fp32/edge_strips.cu on the rest. m0 = M and n0 = N: none.
  EdgeStrips strips;
  // SIMT: the layout its kernel, and the strips' kernel, read op(A) and op(B) in (simt_view: a
  // dense copy may be the stored matrix transposed): op(A) as K x M, op(B) as K x N.
  bool simt_a_rows_contiguous = false, simt_b_rows_contiguous = false;
  // Structured products, in the kernel's terms (wgmma swapped: of C^T = op(B)^T op(A)^T):
  // which triangles of its operands may be nonzero and which of its output is kept, and the
  // tiles with their K ranges (empty without triangles or a fill).
  ProductTriangles triangles;
  WorkList work;
  std::vector<int32_t> work_words;  // what is uploaded to workspace.work_list
  // A device copy of work_words that the plan's owner keeps (the Runtime's PlanCache): the
  // kernel reads it there and nothing is uploaded per launch (CUDA-graph capturable). 0: the
  // launch uploads work_words into workspace.work_list.
  CUdeviceptr work_list_device = 0;
};

// Throws InvalidArgument when `config` cannot run problems of `key` (sizes out of range, an
// operand layout the config does not read, an operand it reads in place whose vector width
// is not 4) naming why, NotSupported for more stream-K CTAs than the flags hold.
LaunchPlan make_launch_plan(const KernelConfig& config, const ProblemKey& key, const DeviceSlots& device);

// A run of the pre-pass template (tf32/split_operand.cu) that a plan launches: `planes` 2
// (tf32x3), 1 (tf32) or 0 (a raw dense copy), from a rows-contiguous (transposed) source or not,
// read as `structure` says, with 16-byte loads (vec 4) or not.
struct SplitPass {
  int planes = 0;
  bool transposed = false;
  Structure structure = Structure::General;
  int vec = 4;
  SplitPlanes written = SplitPlanes::All;  // SmallOnly: the plan reads the big plane in place
  bool permute_k = false;                  // LaunchPlan::b_planes_permuted
  RenderedKernel render(const TemplateStore& templates) const {
    return render_split_operand(planes, transposed, vec, structure, written, permute_k, templates);
  }
  friend bool operator==(const SplitPass&, const SplitPass&) = default;
};
// The passes as keys of a hash map (GemmLauncher's compiled pre-pass kernels): equal passes
// render the same kernel.
struct SplitPassHash {
  size_t operator()(const SplitPass& p) const noexcept {
    return FieldHash().add(p.planes).add(p.transposed).add(p.structure).add(p.vec).add(p.written).add(p.permute_k).value();
  }
};
// The plan's pre-passes: dense copies of the caller's A and B, then (wgmma) A' and B' planes from
// the kernel's operands (the caller's matrices, swapped when the config swaps them, or their copies).
struct PlanSplitPasses {
  std::optional<SplitPass> copy_a, copy_b, split_a, split_b;
};
PlanSplitPasses split_passes(const LaunchPlan& plan);

}  // namespace jitgemm
