#include "exec/gemm_launch.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "codegen/candidate_space.hpp"
#include "codegen/kernel_abi.hpp"
#include "codegen/split_operand_render.hpp"
#include "codegen/template_store.hpp"
#include "cuda/driver_api.hpp"
#include "exec/compiled_module.hpp"
#include "jitgemm/error.hpp"
#include "problem/problem_key.hpp"

namespace jitgemm {
namespace {

constexpr unsigned kReduceThreads = 256;
constexpr int64_t kPlaneAlign = 32;    // planes hold K rounded up to 32 floats (one 128-byte swizzle row)
// The pre-pass's non-finite flag, then the stream-K flags (2 per CTA, up to 2047 CTAs), then the
// converter's counters.
constexpr size_t kFlagBytes = 16384;
constexpr size_t kMaxStreamKFlags = kFlagBytes / 4 - 1;
constexpr int64_t kConvertChunk = 64;  // K per chunk of the in-kernel converter (CONVERT_TILE)
constexpr size_t kMaxTensorMaps = 4096;  // encoded tensor maps kept (128 bytes each)

// Row length of a split-K workspace slice: N rounded up to 4 floats, so that every row and
// slice stays 16-byte aligned for a kernel compiled with 16-byte stores of C.
int64_t workspace_ld(const GemmProblem& p) { return (p.n + 3) / 4 * 4; }
int64_t plane_ld(const GemmProblem& p) { return (p.k + kPlaneAlign - 1) / kPlaneAlign * kPlaneAlign; }
int planes_of(const KernelConfig& c) { return c.family == KernelFamily::WgmmaTf32x3 ? 2 : 1; }
size_t plane_bytes(const KernelConfig& c, const GemmProblem& p) {
  // Planes of both operands, or with A in registers only of the kernel's B (op(B), or op(A)
  // when swapped), and none when the kernel transforms B in shared memory.
  const int64_t rows = c.a_in_registers == 0 ? p.m + p.n : c.transform_b != 0 ? 0 : c.swap_ab != 0 ? p.m : p.n;
  return sizeof(float) * static_cast<size_t>(planes_of(c)) * static_cast<size_t>(rows) * static_cast<size_t>(plane_ld(p));
}
// The converter's chunks of K (one counter each) and the bytes before the planes: the flag, then
// the unit counter and the chunk counters, rounded up to 256 bytes.
int64_t convert_chunks(const GemmProblem& p) { return (plane_ld(p) + kConvertChunk - 1) / kConvertChunk; }
size_t counter_bytes(const GemmProblem& p) {
  return kFlagBytes + (static_cast<size_t>(4 * (1 + convert_chunks(p))) + 255) / 256 * 256;
}

// Which symmetric operands `c` reads in place (and so needs expanded first): all of them
// for SIMT and mma.sync; for wgmma the one in registers and the converter's or the transform
// warps' source, the pre-pass expanding the others itself.
struct InPlaceSymmetric {
  bool a = false, b = false;
};
InPlaceSymmetric in_place_symmetric(const KernelConfig& c, const GemmProblem& p) {
  const bool sa = p.structure_a == Structure::Symmetric, sb = p.structure_b == Structure::Symmetric;
  if (!is_wgmma(c.family)) return {sa, sb};
  const bool swap = c.swap_ab != 0;
  const bool kernel_a_in_place = c.a_in_registers != 0, kernel_b_in_place = c.convert_b != 0 || c.transform_b != 0;
  const bool a_in_place = swap ? kernel_b_in_place : kernel_a_in_place;
  const bool b_in_place = swap ? kernel_a_in_place : kernel_b_in_place;
  return {sa && a_in_place, sb && b_in_place};
}
// A full copy of a symmetric operand of `rows` rows: rows rounded up to 32 floats per row (TMA
// and 16-byte vectors can read it).
int64_t expanded_ld(int64_t rows) { return (rows + 31) / 32 * 32; }
size_t expanded_bytes(int64_t rows) { return sizeof(float) * static_cast<size_t>(rows * expanded_ld(rows)); }
size_t expansions_bytes(const KernelConfig& c, const GemmProblem& p) {
  const InPlaceSymmetric e = in_place_symmetric(c, p);
  return (e.a ? expanded_bytes(p.m) : 0) + (e.b ? expanded_bytes(p.n) : 0);
}

CompiledModule compile_reducer(const Compiler& compiler, const TemplateStore& templates) {
  return compile_module(compiler, templates.expand_includes("fp32/split_k_reduce.cu"), "split_k_reduce", {},
                        "fp32/split_k_reduce.cu");
}

}  // namespace

GemmLauncher::GemmLauncher(const Compiler& compiler, const TemplateStore& templates, int sm_count)
    : compiler_(compiler), templates_(templates), sm_count_(sm_count) {
  CompiledModule reducer = compile_reducer(compiler, templates);
  reduce_module_ = std::move(reducer.module);
  reduce_ = std::move(reducer.function);
}

size_t GemmLauncher::workspace_bytes(const KernelConfig& config, const GemmProblem& p) const {
  return main_workspace_bytes(config, p) + expansions_bytes(config, p);
}

size_t GemmLauncher::main_workspace_bytes(const KernelConfig& config, const GemmProblem& p) const {
  if (is_wgmma(config.family)) {
    // Counters, planes, then with the stream-K tail one partial tile per CTA (at most one per SM).
    const size_t partials = config.stream_k == 0 ? 0
                                                 : sizeof(float) * static_cast<size_t>(config.block_m) *
                                                       static_cast<size_t>(config.block_n) *
                                                       static_cast<size_t>(sm_count_);
    return counter_bytes(p) + plane_bytes(config, p) + partials;
  }
  if (config.split_k <= 1) return 0;
  return sizeof(float) * static_cast<size_t>(config.split_k) * static_cast<size_t>(p.m) *
         static_cast<size_t>(workspace_ld(p));
}

void GemmLauncher::launch(const cuda::Function& main, const KernelConfig& config, const GemmProblem& p,
                          CUdeviceptr a, CUdeviceptr b, CUdeviceptr c, CUdeviceptr workspace, CUstream stream) {
  if (workspace_bytes(config, p) > 0 && workspace == 0)
    throw InvalidArgument(fmt::format("GemmLauncher::launch({}): needs {} bytes of workspace, got none", config.name(),
                                      workspace_bytes(config, p)));
  const GemmProblem q = expand_symmetric(config, p, a, b, workspace, stream);
  if (is_wgmma(config.family)) return launch_wgmma(main, config, q, a, b, c, workspace, stream);
  if (config.split_k > 1) return launch_split_k(main, config, q, a, b, c, workspace, stream);
  const LaunchGeometry g = launch_geometry(config, q.m, q.n, q.k);
  GemmKernelArgs args(q, a, b, c);
  auto params = args.pointers();
  cuda::launch(main, {g.grid_x, g.grid_y, g.grid_z}, {g.block_x, 1, 1}, static_cast<unsigned>(g.smem_bytes), stream,
               params.data());
}

void GemmLauncher::launch_split_k(const cuda::Function& main, const KernelConfig& config, const GemmProblem& p,
                                  CUdeviceptr a, CUdeviceptr b, CUdeviceptr c, CUdeviceptr workspace,
                                  CUstream stream) const {
  // Each CTA row y writes the plain partial product of its K slice to slice y of the
  // workspace (alpha 1, beta 0); the reduction applies alpha and beta once.
  GemmProblem partial = p;
  partial.alpha = 1.0f;
  partial.beta = 0.0f;
  partial.ldc = workspace_ld(p);
  const LaunchGeometry g = launch_geometry(config, p.m, p.n, p.k);
  GemmKernelArgs args(partial, a, b, workspace);
  auto params = args.pointers();
  cuda::launch(main, {g.grid_x, g.grid_y, g.grid_z}, {g.block_x, 1, 1}, static_cast<unsigned>(g.smem_bytes), stream,
               params.data());
  int s = config.split_k, m = static_cast<int>(p.m), n = static_cast<int>(p.n);
  long long ldw = workspace_ld(p), ldc = p.effective_ldc();
  float alpha = p.alpha, beta = p.beta;
  void* reduce_args[] = {&workspace, &s, &m, &n, &ldw, &c, &ldc, &alpha, &beta};
  const int64_t blocks = std::clamp<int64_t>((p.m * p.n + kReduceThreads - 1) / kReduceThreads, 1, 132 * 16);
  cuda::launch(reduce_, {static_cast<unsigned>(blocks), 1, 1}, {kReduceThreads, 1, 1}, 0, stream, reduce_args);
}

GemmProblem GemmLauncher::expand_symmetric(const KernelConfig& config, const GemmProblem& p, CUdeviceptr& a,
                                           CUdeviceptr& b, CUdeviceptr workspace, CUstream stream) {
  const InPlaceSymmetric e = in_place_symmetric(config, p);
  GemmProblem q = p;
  CUdeviceptr to = workspace + main_workspace_bytes(config, p);  // the copies follow the main workspace
  // `ld` is the caller's (0: tight) on entry, the copy's on return.
  auto expand = [&](CUdeviceptr& ptr, int64_t& ld, int64_t rows) {
    const int64_t ld_in = ld != 0 ? ld : rows;  // a symmetric operand is square
    run_split_operand({0, false, true}, ptr, ld_in, rows, rows, to, to, expanded_ld(rows), workspace, stream);
    ptr = to, ld = expanded_ld(rows);
    to += expanded_bytes(rows);
  };
  if (e.a) expand(a, q.lda, p.m);
  if (e.b) expand(b, q.ldb, p.n);
  return q;
}

void GemmLauncher::run_split_operand(SplitMode mode, CUdeviceptr src, int64_t ld_src, int64_t rows, int64_t k,
                                     CUdeviceptr big, CUdeviceptr small, int64_t ld_dst, CUdeviceptr flag,
                                     CUstream stream) {
  const int vec = vector_width(ld_src, reinterpret_cast<const void*>(src));
  const cuda::Function& fn = split_operand(mode.planes, mode.transposed, vec, mode.symmetric);
  const SplitOperandGeometry g = split_operand_geometry(rows, ld_dst, mode.symmetric);
  long long ld_in = ld_src, ld_out = ld_dst;
  int r = static_cast<int>(rows), kk = static_cast<int>(k);
  void* args[] = {&src, &ld_in, &r, &kk, &big, &small, &ld_out, &flag};
  cuda::launch(fn, {g.grid_x, g.grid_y, 1}, {g.block_x, 1, 1}, 0, stream, args);
}

const cuda::Function& GemmLauncher::split_operand(int planes, bool transpose, int vec, bool symmetric) {
  std::lock_guard lock(mutex_);
  const auto key = std::make_tuple(planes, transpose, vec, symmetric);
  if (auto it = split_operand_.find(key); it != split_operand_.end()) return it->second.function;
  const RenderedKernel rendered = render_split_operand(planes, transpose, vec, symmetric, templates_);
  CompiledModule compiled = compile_module(compiler_, rendered.source, rendered.kernel_name, CompileOptions{});
  return split_operand_.emplace(key, std::move(compiled)).first->second.function;
}

CUtensorMap GemmLauncher::tensor_map(CUdeviceptr plane, int64_t rows, int64_t k, int64_t ld, int box_rows,
                                     int box_k) {
  std::lock_guard lock(mutex_);
  const auto key = std::make_tuple(plane, rows, k, ld, box_rows, box_k);
  if (auto it = tensor_maps_.find(key); it != tensor_maps_.end()) return it->second;
  // Maps of callers' matrices (A in registers) follow their pointers: keep the cache bounded.
  if (tensor_maps_.size() >= kMaxTensorMaps) tensor_maps_.clear();
  // A plane is `rows` rows of `k` floats (the contiguous dimension: K, or M for an A stored
  // K x M) with `ld` floats between rows; a box is box_k contiguous values (one swizzle row)
  // by box_rows rows. Reads past either dimension come back as zeros.
  CUtensorMap map;
  const cuuint64_t dims[2] = {static_cast<cuuint64_t>(k), static_cast<cuuint64_t>(rows)};
  const cuuint64_t strides[1] = {static_cast<cuuint64_t>(ld) * sizeof(float)};
  const cuuint32_t box[2] = {static_cast<cuuint32_t>(box_k), static_cast<cuuint32_t>(box_rows)};
  const cuuint32_t element_strides[2] = {1, 1};
  const CUtensorMapSwizzle swizzle = box_k == 32   ? CU_TENSOR_MAP_SWIZZLE_128B
                                     : box_k == 16 ? CU_TENSOR_MAP_SWIZZLE_64B
                                                   : CU_TENSOR_MAP_SWIZZLE_32B;
  JITGEMM_CU(cuda::driver().cuTensorMapEncodeTiled(&map, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 2,
                                                   reinterpret_cast<void*>(plane), dims, strides, box, element_strides,
                                                   CU_TENSOR_MAP_INTERLEAVE_NONE, swizzle,
                                                   CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE),
             "plane {:#x}, {} rows x {} K, ld {}, box {}x{}", plane, rows, k, ld, box_rows, box_k);
  return tensor_maps_.emplace(key, map).first->second;
}

int GemmLauncher::cluster_slots(const cuda::Function& main, const KernelConfig& config) {
  std::lock_guard lock(mutex_);
  if (auto it = cluster_slots_.find(main.handle); it != cluster_slots_.end()) return it->second;
  const unsigned grid = static_cast<unsigned>(sm_count_ / config.cluster * config.cluster);
  const int clusters = cuda::max_active_clusters(main, {grid, 1, 1}, {static_cast<unsigned>(config.threads()), 1, 1},
                                                 static_cast<unsigned>(shared_memory_bytes(config)));
  if (clusters < 1)
    throw NotSupported(fmt::format("GemmLauncher::launch({}): no cluster of {} CTAs fits this device", config.name(),
                                   config.cluster));
  return cluster_slots_.emplace(main.handle, std::min(clusters * config.cluster, sm_count_)).first->second;
}

void GemmLauncher::launch_wgmma(const cuda::Function& main, const KernelConfig& config, const GemmProblem& p,
                                CUdeviceptr a, CUdeviceptr b, CUdeviceptr c, CUdeviceptr workspace,
                                CUstream stream) {
  // The kernel computes C' = A' B'^T with A' M' x K and B' N' x K: A' = op(A), B' = op(B)^T,
  // or with swap_ab A' = op(B)^T, B' = op(A) and C' = C^T (the kernel stores transposed).
  const bool rs = config.a_in_registers != 0, swap = config.swap_ab != 0;
  struct Operand {
    CUdeviceptr ptr;
    int64_t ld, rows;
    bool r_contiguous;  // stored K x rows (the rows index contiguous)
    bool symmetric;     // read from its lower triangle (not yet expanded by expand_symmetric)
  };
  const InPlaceSymmetric expanded = in_place_symmetric(config, p);
  const Operand op_a{a, p.effective_lda(), p.m, p.trans_a == Op::T,
                     p.structure_a == Structure::Symmetric && !expanded.a};
  const Operand op_b{b, p.effective_ldb(), p.n, p.trans_b == Op::N,
                     p.structure_b == Structure::Symmetric && !expanded.b};
  const Operand& kernel_a = swap ? op_b : op_a;
  const Operand& kernel_b = swap ? op_a : op_b;

  const int planes = planes_of(config);
  const int64_t ldp = plane_ld(p);
  // Workspace: [flags, counters][A' big][A' small][B' big][B' small][stream-K partials] (tf32:
  // no small planes; RS: no A'; no partials without the stream-K tail).
  CUdeviceptr flag = workspace;
  const CUdeviceptr counters = workspace + kFlagBytes;
  const CUdeviceptr a_big = workspace + counter_bytes(p);
  const CUdeviceptr a_small = planes == 2 ? a_big + sizeof(float) * kernel_a.rows * ldp : a_big;
  const CUdeviceptr b_big = rs ? a_big : a_big + sizeof(float) * planes * kernel_a.rows * ldp;
  const CUdeviceptr b_small = planes == 2 ? b_big + sizeof(float) * kernel_b.rows * ldp : b_big;
  // CTA pairs: no more than the clusters that can be resident at once.
  const int slots = config.cluster > 1 ? cluster_slots(main, config) : sm_count_;
  const LaunchGeometry g = launch_geometry(config, swap ? p.n : p.m, swap ? p.m : p.n, p.k, slots);
  // Only tf32x3 reads the flag (the NaN rule; with transform_b no pre-pass sets it and the
  // kernel gets none) and only the stream-K tail the flags after it; a plain tf32 kernel
  // saves the memset's gap in the stream.
  const bool transform = config.transform_b != 0;
  StreamKSpace sk;
  size_t flag_words = planes == 2 && !transform ? 1 : 0;
  if (config.stream_k != 0) {
    const size_t sk_flags = static_cast<size_t>(g.grid_x) * static_cast<size_t>(config.consumers);
    if (sk_flags > kMaxStreamKFlags)
      throw NotSupported(fmt::format("GemmLauncher::launch({}): {} stream-K flags exceed the {} reserved", config.name(),
                                     sk_flags, kMaxStreamKFlags));
    sk = {workspace + counter_bytes(p) + plane_bytes(config, p), flag + 4};
    flag_words = 1 + sk_flags;
  }
  if (flag_words > 0) JITGEMM_CU(cuda::driver().cuMemsetD32Async(flag, 0, flag_words, stream), "flags");

  // Pre-pass: an operand as `rows` rows of K, K-major, rounded or split.
  auto split = [&](const Operand& src, CUdeviceptr big, CUdeviceptr small) {
    run_split_operand({planes, src.r_contiguous, src.symmetric}, src.ptr, src.ld, src.rows, p.k, big, small, ldp, flag,
                      stream);
  };
  if (!rs) split(kernel_a, a_big, a_small);
  // A raw operand read by TMA in place: a 16-byte aligned base and row pitch.
  auto check_in_place = [&](const Operand& op, const char* which) {
    if (vector_width(op.ld, reinterpret_cast<const void*>(op.ptr)) != 4)
      throw InvalidArgument(fmt::format(
          "GemmLauncher::launch({}): {} at {:#x} with leading dimension {} is read by TMA in place and needs a "
          "16-byte aligned base and a leading dimension that is a multiple of 4",
          config.name(), which, op.ptr, op.ld));
  };
  ConvertJob job;
  if (transform) {
    // The transform warps read B' raw through TMA and need it MN-major (stored K x N').
    check_in_place(kernel_b, swap ? "A" : "B");
    if (!kernel_b.r_contiguous)
      throw InvalidArgument(fmt::format("GemmLauncher::launch({}): transform_b needs {} stored MN-major ({}), got {}",
                                        config.name(), swap ? "A" : "B", swap ? "trans_a = T" : "trans_b = N",
                                        swap ? "trans_a = N" : "trans_b = T"));
  } else if (config.convert_b != 0) {
    // The kernel writes B's plane itself (tf32/convert_operand.cuh): zero its counters.
    job = {kernel_b.ptr, kernel_b.ld, b_big, ldp, counters, counters + 4, static_cast<int>(kernel_b.rows),
           static_cast<int>(p.k)};
    JITGEMM_CU(cuda::driver().cuMemsetD32Async(counters, 0, static_cast<size_t>(1 + convert_chunks(p)), stream),
               "converter counters");
  } else {
    split(kernel_b, b_big, b_small);
  }

  const int box_k = std::min(config.block_k, 32);
  // A CTA pair loads half of A's rows each (tf32/wgmma_gemm.cu, load_stage).
  const int a_box_rows = config.block_m / config.cluster;
  CUtensorMap maps[4];
  if (rs) {
    check_in_place(kernel_a, swap ? "B" : "A");
    maps[0] = kernel_a.r_contiguous
                  ? tensor_map(kernel_a.ptr, p.k, kernel_a.rows, kernel_a.ld, config.block_k, 32)  // {M', K}
                  : tensor_map(kernel_a.ptr, kernel_a.rows, p.k, kernel_a.ld, a_box_rows, 32);  // {K, M'}
    maps[2] = maps[0];
  } else {
    maps[0] = tensor_map(a_big, kernel_a.rows, p.k, ldp, a_box_rows, box_k);
    maps[2] = tensor_map(a_small, kernel_a.rows, p.k, ldp, a_box_rows, box_k);
  }
  if (transform) {
    maps[1] = tensor_map(kernel_b.ptr, p.k, kernel_b.rows, kernel_b.ld, config.block_k, 32);  // {N', K}
    maps[3] = maps[1];
  } else {
    maps[1] = tensor_map(b_big, kernel_b.rows, p.k, ldp, config.block_n, box_k);
    maps[3] = tensor_map(b_small, kernel_b.rows, p.k, ldp, config.block_n, box_k);
  }
  long long ldc = p.effective_ldc();
  int m = static_cast<int>(kernel_a.rows), n = static_cast<int>(kernel_b.rows), k = static_cast<int>(p.k);
  float alpha = p.alpha, beta = p.beta;
  CUdeviceptr nonfinite = transform ? 0 : flag;  // the pre-pass's flag (transform_b: no pre-pass)
  void* args[] = {&maps[0], &maps[1], &maps[2], &maps[3], &c, &ldc, &m, &n, &k, &alpha, &beta, &nonfinite, &job, &sk};
  cuda::launch(main, {g.grid_x, g.grid_y, g.grid_z}, {g.block_x, 1, 1}, static_cast<unsigned>(g.smem_bytes), stream,
               args);
}

}  // namespace jitgemm
