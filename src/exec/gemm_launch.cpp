#include "exec/gemm_launch.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <string_view>

#include "codegen/kernel_family.hpp"
#include "codegen/split_operand_render.hpp"
#include "codegen/support_templates.hpp"
#include "codegen/template_store.hpp"
#include "cuda/driver_api.hpp"
#include "exec/compiled_module.hpp"
#include "exec/kernel_args.hpp"
#include "exec/tensor_maps.hpp"
#include "jitgemm/error.hpp"
#include "problem/operand_structure.hpp"
#include "problem/problem_key.hpp"

namespace jitgemm {
namespace {

constexpr unsigned kReduceThreads = 256;  // THREADS of fp32/split_k_reduce.cu
// fp32/edge_strips.cu: THREADS, and the outputs of a CTA with lanes over K and with lanes along a line.
constexpr unsigned kEdgeStripThreads = 256;
constexpr int64_t kEdgeStripKOutputs = 16, kEdgeStripXOutputs = 32;

CompiledModule compile_reducer(const Compiler& compiler, const TemplateStore& templates) {
  return compile_module(compiler, templates.expand_includes(kSplitKReduceTemplate), "split_k_reduce", {},
                        std::string(kSplitKReduceTemplate));
}

CUdeviceptr at(CUdeviceptr workspace, const WorkspaceRegion& r) { return workspace + r.offset; }

// dependent: as a programmatic dependent of the kernel before it in the stream (cuda::launch_dependent).
void launch_on(const cuda::Function& kernel, const LaunchGeometry& g, CUstream stream, void** params,
               bool dependent = false) {
  const cuda::Dim3 grid{g.grid_x, g.grid_y, g.grid_z}, block{g.block_x, 1, 1};
  const auto smem = static_cast<unsigned>(g.smem_bytes);
  if (dependent)
    cuda::launch_dependent(kernel, grid, block, smem, stream, params);
  else
    cuda::launch(kernel, grid, block, smem, stream, params);
}

// A launch option that is on unless its environment variable is "0" (A/B runs of one build).
bool switched_on(const char* variable) {
  const char* v = std::getenv(variable);
  return v == nullptr || std::string_view(v) != "0";
}

// A raw operand read by TMA in place: a 16-byte aligned base and row pitch.
void check_in_place(const KernelConfig& config, CUdeviceptr ptr, int64_t ld, const char* which) {
  if (vector_width(ld, reinterpret_cast<const void*>(ptr)) != 4)
    throw InvalidArgument(fmt::format(
        "GemmLauncher::launch({}): {} at {:#x} with leading dimension {} is read by TMA in place and needs a "
        "16-byte aligned base and a leading dimension that is a multiple of 4",
        config.name(), which, ptr, ld));
}

// A tf32x3 big plane read in place (LaunchPlan::a_big_in_place): the caller's K-major matrix,
// `rows` rows of k, through a TFLOAT32 map: the copy rounds each float to nearest even, which is
// the big part the pre-pass's small plane was split from (tf32/split_operand.cu, SMALL_ONLY).
CUtensorMap in_place_big_plane(const KernelConfig& config, CUdeviceptr ptr, int64_t ld, int64_t rows, int64_t k,
                               int box_rows, int box_k, const char* which) {
  check_in_place(config, ptr, ld, which);
  return operand_tensor_map(ptr, rows, k, ld, box_rows, box_k, TmaElement::Tf32);
}

}  // namespace

GemmLauncher::GemmLauncher(const Compiler& compiler, const TemplateStore& templates, int sm_count)
    : compiler_(compiler),
      templates_(templates),
      sm_count_(sm_count),
      dependent_launch_(switched_on("JITGEMM_DEPENDENT_LAUNCH")),
      split_k_finish_(switched_on("JITGEMM_SPLIT_K_FINISH")) {
  CompiledModule reducer = compile_reducer(compiler, templates);
  reduce_module_ = std::move(reducer.module);
  reduce_ = std::move(reducer.function);
}

LaunchPlan GemmLauncher::plan(const cuda::Function& main, const KernelConfig& config, const ProblemKey& key) {
  const WgmmaParams* w = config.if_wgmma();
  const int slots = w != nullptr && w->cluster > 1 ? cluster_slots(main, config) : 0;
  return make_launch_plan(config, key, DeviceSlots{sm_count_, slots});
}

PlanKernels GemmLauncher::kernels(const LaunchPlan& plan, const cuda::Function& main) {
  PlanKernels k;
  k.main = &main;
  const ProblemKey& key = plan.key;
  const PlanSplitPasses passes = split_passes(plan);
  if (passes.copy_a) k.copy_a = &split_operand(*passes.copy_a);
  if (passes.copy_b) k.copy_b = &split_operand(*passes.copy_b);
  if (passes.split_a) k.split_a = &split_operand(*passes.split_a);
  if (passes.split_b) k.split_b = &split_operand(*passes.split_b);
  if (plan.strips.any(key.m, key.n))
    k.strips = &edge_strips_
                    .get(0,
                         [&] {
                           return compile_module(compiler_, templates_.expand_includes(kEdgeStripsTemplate),
                                                 "edge_strips", {}, std::string(kEdgeStripsTemplate));
                         })
                    .function;
  return k;
}

void GemmLauncher::launch(const LaunchPlan& plan, const PlanKernels& kernels, const GemmProblem& p, CUdeviceptr a,
                          CUdeviceptr b, CUdeviceptr c, CUdeviceptr workspace, CUstream stream) const {
  const ProblemKey& key = plan.key;
  if (p.m != key.m || p.n != key.n || p.k != key.k || p.trans_a != key.trans_a || p.trans_b != key.trans_b ||
      p.structure_a != key.structure_a || p.structure_b != key.structure_b || p.fill != key.fill)
    throw InvalidArgument(fmt::format("GemmLauncher::launch({}): problem {} is not the plan's {}", plan.config.name(),
                                      p.to_string(), key.canonical()));
  if (plan.workspace.total_bytes > 0 && workspace == 0)
    throw InvalidArgument(fmt::format("GemmLauncher::launch({}): needs {} bytes of workspace, got none",
                                      plan.config.name(), plan.workspace.total_bytes));
  if (plan.config.family() == KernelFamily::Wgmma) return launch_wgmma(plan, kernels, p, a, b, c, workspace, stream);
  return launch_split_k(plan, kernels, p, a, b, c, workspace, stream);
}

void GemmLauncher::launch(const LaunchPlan& plan, const GemmProblem& p, const cuda::Function& main, CUdeviceptr a,
                          CUdeviceptr b, CUdeviceptr c, CUdeviceptr workspace, CUstream stream) {
  launch(plan, kernels(plan, main), p, a, b, c, workspace, stream);
}

size_t GemmLauncher::workspace_bytes(const KernelConfig& config, const GemmProblem& p) const {
  // The layout depends on alignment: the SIMT family may read unaligned operands from aligned
  // copies (simt_operand_copies), and a tf32x3 pre-pass writes one plane of an aligned K-major
  // operand but two of an unaligned one (LaunchPlan::a_big_in_place). The leading dimensions
  // set the widest vector width each operand can have; its base address may leave it 1. Enough
  // for every combination the config runs.
  const ProblemKey widest = make_problem_key(p);
  size_t bytes = 0;
  bool first = true;  // the widest: planned whatever it reads, so that a config that cannot run `p` throws, naming why
  for (int vec_a : {widest.vec_a, 1})
    for (int vec_b : {widest.vec_b, 1})
      for (int vec_c : {widest.vec_c, 1}) {
        ProblemKey key = widest;
        key.vec_a = vec_a, key.vec_b = vec_b, key.vec_c = vec_c;
        if (first || rules_of(config).runs_in_place(config, key))  // else the launcher refuses it
          bytes = std::max(bytes, make_launch_plan(config, key, DeviceSlots{sm_count_, 0}).workspace.total_bytes);
        first = false;
      }
  return bytes;
}

void GemmLauncher::launch(const cuda::Function& main, const KernelConfig& config, const GemmProblem& p, CUdeviceptr a,
                          CUdeviceptr b, CUdeviceptr c, CUdeviceptr workspace, CUstream stream) {
  const ProblemKey key =
      make_problem_key(p, reinterpret_cast<const void*>(a), reinterpret_cast<const void*>(b), reinterpret_cast<const void*>(c));
  launch(plan(main, config, key), p, main, a, b, c, workspace, stream);
}

void GemmLauncher::scale_output(const GemmProblem& p, CUdeviceptr c, CUstream stream) const {
  // No slices: the sum is 0, and alpha 0 keeps it 0 whatever the caller's alpha (K = 0).
  run_reduce({0, 0, static_cast<int>(p.m), static_cast<int>(p.n), 0, c, p.effective_ldc(), 0.0f, p.beta,
              triangle_code(fill_triangle(p.fill))},
             stream);
}

void GemmLauncher::run_reduce(SplitKReduceArgs args, CUstream stream) const {
  args.groups = split_k_reduce_groups(args.slices);
  auto params = args.pointers();
  const int64_t quads = int64_t{args.m} * ((args.n + 3) / 4);
  const int64_t per_block = kReduceThreads / args.groups;
  const int64_t blocks = std::max<int64_t>((quads + per_block - 1) / per_block, 1);
  LaunchGeometry g;
  g.grid_x = static_cast<unsigned>(blocks), g.block_x = kReduceThreads;
  launch_on(reduce_, g, stream, params.data(), dependent_launch_);
}

void GemmLauncher::copy_operands(const LaunchPlan& plan, const PlanKernels& kernels, CUdeviceptr& a, int64_t& lda,
                                 CUdeviceptr& b, int64_t& ldb, CUdeviceptr workspace, CUstream stream) const {
  auto copy_one = [&](const PlannedOperand& op, const cuda::Function* fn, Structure structure,
                      const WorkspaceRegion& region, CUdeviceptr& ptr, int64_t& ld) {
    if (!op.copied) return;
    const CUdeviceptr to = at(workspace, region);
    // Row r of the copy holds its copy_shape().cols values: the stored row r, or with a
    // transposed copy the stored column r (the pre-pass's transposing view, rows = stored columns).
    const StoredShape copy = op.copy_shape();
    run_split_operand(*fn, structure, ptr, ld, copy.rows, copy.cols, to, to, op.copy_ld, workspace, stream);
    ptr = to, ld = op.copy_ld;
  };
  copy_one(plan.a, kernels.copy_a, plan.key.structure_a, plan.workspace.copy_a, a, lda);
  copy_one(plan.b, kernels.copy_b, plan.key.structure_b, plan.workspace.copy_b, b, ldb);
}

CUdeviceptr GemmLauncher::work_list(const LaunchPlan& plan, CUdeviceptr workspace, CUstream stream) const {
  if (plan.work_words.empty()) return 0;
  if (plan.work_list_device != 0) return plan.work_list_device;
  const CUdeviceptr to = at(workspace, plan.workspace.work_list);
  JITGEMM_CU(cuda::driver().cuMemcpyHtoDAsync(to, plan.work_words.data(), sizeof(int32_t) * plan.work_words.size(),
                                              stream),
             "work list of {} tiles", plan.work.items.size());
  return to;
}

void GemmLauncher::launch_split_k(const LaunchPlan& plan, const PlanKernels& kernels, const GemmProblem& p,
                                  CUdeviceptr a, CUdeviceptr b, CUdeviceptr c, CUdeviceptr workspace,
                                  CUstream stream) const {
  GemmProblem q = p;
  int64_t lda = q.effective_lda(), ldb = q.effective_ldb();
  copy_operands(plan, kernels, a, lda, b, ldb, workspace, stream);
  const CUdeviceptr work = work_list(plan, workspace, stream);
  q.lda = lda, q.ldb = ldb;
  // With split_k > 1 each CTA row y writes the plain partial product of its K slice to slice y
  // of the workspace (alpha 1, beta 0); the reduction applies alpha and beta once.
  const bool split = plan.config.split_k > 1;
  const CUdeviceptr partials = at(workspace, plan.workspace.split_k_partials);
  // The main kernel's part of C: the whole of it, or without the edge strips.
  // (C's leading dimension first: a tight one is N's, which the strips may shrink.)
  GemmProblem main_problem = q;
  main_problem.ldc = q.effective_ldc();
  main_problem.m = plan.strips.m0, main_problem.n = plan.strips.n0;
  if (split) main_problem.alpha = 1.0f, main_problem.beta = 0.0f, main_problem.ldc = plan.split_k_ld;
  GemmKernelArgs args(main_problem, a, b, split ? partials : c, work);
  const bool finish = plan.split_k_finish && split_k_finish_;
  if (finish) {
    const CUdeviceptr arrivals = at(workspace, plan.workspace.split_k_arrivals);
    JITGEMM_CU(cuda::driver().cuMemsetD32Async(arrivals, 0, plan.main.grid_x, stream), "split-K arrival counters");
    args.finish = {c, q.effective_ldc(), q.alpha, q.beta, arrivals};
  }
  auto params = args.pointers();
  launch_on(*kernels.main, plan.main, stream, params.data());
  // The edge strips' kernel as the main kernel's programmatic dependent: it runs in the SMs the
  // main kernel's last wave leaves idle, and completes after it (fp32/edge_strips.cu).
  if (kernels.strips != nullptr) run_edge_strips(plan, *kernels.strips, q, a, lda, b, ldb, c, stream);
  if (split && !finish)
    run_reduce({partials, plan.config.split_k, static_cast<int>(main_problem.m), static_cast<int>(main_problem.n),
                plan.split_k_ld, c, q.effective_ldc(), q.alpha, q.beta, triangle_code(plan.triangles.c)},
               stream);
}

void GemmLauncher::run_edge_strips(const LaunchPlan& plan, const cuda::Function& fn, const GemmProblem& p,
                                   CUdeviceptr a, int64_t lda, CUdeviceptr b, int64_t ldb, CUdeviceptr c,
                                   CUstream stream) const {
  // op(A)(m, k) = A[m * a_m + k * a_k], op(B)(k, n) = B[k * b_k + n * b_n] in the layout the
  // SIMT kernel reads (the plan's, worked out once).
  const bool a_km = plan.simt_a_rows_contiguous, b_kn = plan.simt_b_rows_contiguous;
  long long a_m = a_km ? 1 : lda, a_k = a_km ? lda : 1;
  long long b_k = b_kn ? ldb : 1, b_n = b_kn ? 1 : ldb;
  int m = static_cast<int>(p.m), n = static_cast<int>(p.n), k = static_cast<int>(p.k);
  int m0 = static_cast<int>(plan.strips.m0), n0 = static_cast<int>(plan.strips.n0);
  long long ldc = p.effective_ldc();
  float alpha = p.alpha, beta = p.beta;
  // The kernel's groups: per line of a strip (a column of the right one, a row of the bottom
  // one), its outputs in groups of K_OUTPUTS where the operand varying along the line is
  // K-contiguous (lanes over K), else X_OUTPUTS (lanes along the line).
  auto groups = [](int64_t lines, int64_t extent, bool lanes_over_k) {
    const int64_t outputs = lanes_over_k ? kEdgeStripKOutputs : kEdgeStripXOutputs;
    return lines * ((extent + outputs - 1) / outputs);
  };
  int right_groups = static_cast<int>(groups(p.n - n0, p.m, a_k == 1));
  const int64_t bottom_groups = groups(p.m - m0, n0, b_k == 1);
  void* args[] = {&m, &n, &k, &m0, &n0, &a, &a_m, &a_k, &b, &b_k, &b_n, &c, &ldc, &alpha, &beta, &right_groups};
  LaunchGeometry g;
  g.grid_x = static_cast<unsigned>(right_groups + bottom_groups);
  g.block_x = kEdgeStripThreads;
  launch_on(fn, g, stream, args, dependent_launch_);
}

void GemmLauncher::run_split_operand(const cuda::Function& fn, Structure structure, CUdeviceptr src, int64_t ld_src,
                                     int64_t rows, int64_t k, CUdeviceptr big, CUdeviceptr small, int64_t ld_dst,
                                     CUdeviceptr flag, CUstream stream, int skip_band) const {
  const SplitOperandGeometry g = split_operand_geometry(rows, ld_dst, is_symmetric(structure));
  long long ld_in = ld_src, ld_out = ld_dst;
  int r = static_cast<int>(rows), kk = static_cast<int>(k);
  void* args[] = {&src, &ld_in, &r, &kk, &big, &small, &ld_out, &flag, &skip_band};
  cuda::launch(fn, {g.grid_x, g.grid_y, 1}, {g.block_x, 1, 1}, 0, stream, args);
}

const cuda::Function& GemmLauncher::split_operand(const SplitPass& pass) {
  return split_operand_
      .get(pass,
           [&] {
             const RenderedKernel rendered = pass.render(templates_);
             return compile_module(compiler_, rendered.source, rendered.kernel_name, CompileOptions{});
           })
      .function;
}

int GemmLauncher::cluster_slots(const cuda::Function& main, const KernelConfig& config) {
  std::lock_guard lock(mutex_);
  if (auto it = cluster_slots_.find(main.handle); it != cluster_slots_.end()) return it->second;
  const unsigned grid = static_cast<unsigned>(sm_count_ / config.wgmma().cluster * config.wgmma().cluster);
  const int clusters = cuda::max_active_clusters(main, {grid, 1, 1}, {static_cast<unsigned>(config.threads()), 1, 1},
                                                 static_cast<unsigned>(shared_memory_bytes(config)));
  if (clusters < 1)
    throw NotSupported(fmt::format("GemmLauncher::launch({}): no cluster of {} CTAs fits this device", config.name(),
                                   config.wgmma().cluster));
  return cluster_slots_.emplace(main.handle, std::min(clusters * config.wgmma().cluster, sm_count_)).first->second;
}

void GemmLauncher::launch_wgmma(const LaunchPlan& plan, const PlanKernels& kernels, const GemmProblem& p,
                                CUdeviceptr a, CUdeviceptr b, CUdeviceptr c, CUdeviceptr workspace,
                                CUstream stream) const {
  const KernelConfig& config = plan.config;
  const WgmmaParams& w = config.wgmma();
  const WorkspaceLayout& ws = plan.workspace;
  int64_t lda = p.effective_lda(), ldb = p.effective_ldb();
  copy_operands(plan, kernels, a, lda, b, ldb, workspace, stream);
  const CUdeviceptr work = work_list(plan, workspace, stream);
  // The kernel computes C' = A' B'^T: A' = op(A), B' = op(B)^T, or swapped A' = op(B)^T, B' = op(A).
  struct Source {
    CUdeviceptr ptr;
    int64_t ld;
  };
  const Source kernel_a = w.swap_ab ? Source{b, ldb} : Source{a, lda};
  const Source kernel_b = w.swap_ab ? Source{a, lda} : Source{b, ldb};
  const char* kernel_a_name = w.swap_ab ? "B" : "A";
  const char* kernel_b_name = w.swap_ab ? "A" : "B";
  const int64_t rows_a = plan.kernel_a.rows, rows_b = plan.kernel_b.rows, ldp = plan.plane_ld;

  const CUdeviceptr flag = at(workspace, ws.flags);
  if (plan.flag_words > 0) JITGEMM_CU(cuda::driver().cuMemsetD32Async(flag, 0, plan.flag_words, stream), "flags");
  const CUdeviceptr a_big = at(workspace, ws.a_planes), b_big = at(workspace, ws.b_planes);
  // A big plane read in place leaves the workspace the small plane alone.
  const CUdeviceptr a_small = plan.planes == 2 && !plan.a_big_in_place ? a_big + sizeof(float) * rows_a * ldp : a_big;
  const CUdeviceptr b_small = plan.planes == 2 && !plan.b_big_in_place ? b_big + sizeof(float) * rows_b * ldp : b_big;
  // Pre-pass: an operand as `rows` rows of K, K-major, rounded or split. A triangular one's
  // planes are left unwritten where the work list never reads them (the plan's skip bands).
  auto split = [&](const cuda::Function* fn, const Source& src, const PlannedOperand& op, CUdeviceptr big,
                   CUdeviceptr small, int skip_band) {
    run_split_operand(*fn, op.structure, src.ptr, src.ld, op.rows, p.k, big, small, ldp, flag, stream, skip_band);
  };
  if (plan.prepass_a) split(kernels.split_a, kernel_a, plan.kernel_a, a_big, a_small, plan.skip_band_a);
  if (plan.prepass_b) split(kernels.split_b, kernel_b, plan.kernel_b, b_big, b_small, plan.skip_band_b);

  WgmmaKernelArgs args;
  const bool b_raw = w.b_read_raw();
  if (b_raw) {
    check_in_place(config, kernel_b.ptr, kernel_b.ld, kernel_b_name);
  } else if (w.b == WgmmaB::Converted) {
    // The kernel writes B's plane itself (tf32/convert_operand.cuh): zero its counters.
    const CUdeviceptr counters = at(workspace, ws.convert_counters);
    args.job = {kernel_b.ptr, kernel_b.ld, b_big, ldp, counters, counters + 4, static_cast<int>(rows_b),
                static_cast<int>(p.k)};
    JITGEMM_CU(cuda::driver().cuMemsetD32Async(counters, 0, static_cast<size_t>(1 + convert_chunks(ldp)), stream),
               "converter counters");
  }
  const int box_k = std::min(config.block_k, 32);
  // tf32 mode: every copy rounds its floats to TF32 (the kernel rounds nothing itself; a plane
  // of the pre-pass holds TF32 values already, which the copy leaves as they are).
  const TmaElement element = config.precision == Precision::TF32 ? TmaElement::Tf32 : TmaElement::Float32;
  // A CTA pair loads half of A's rows each; a symmetric A' read from its stored triangle comes
  // in 32 x 32 boxes (tf32/wgmma_gemm.cu, load_stage).
  const int a_box_rows = plan.a_sym != 0 ? 32 : config.block_m / w.cluster;
  if (w.a_in_registers()) {
    check_in_place(config, kernel_a.ptr, kernel_a.ld, kernel_a_name);
    args.map_a_big = plan.kernel_a.rows_contiguous
                         ? operand_tensor_map(kernel_a.ptr, p.k, rows_a, kernel_a.ld, config.block_k, 32, element)  // {M', K}
                         : operand_tensor_map(kernel_a.ptr, rows_a, p.k, kernel_a.ld, a_box_rows, 32, element);     // {K, M'}
    args.map_a_small = args.map_a_big;
  } else {
    // A big plane in place: the caller's K-major matrix, rounded to nearest even by the copy.
    args.map_a_big = plan.a_big_in_place ? in_place_big_plane(config, kernel_a.ptr, kernel_a.ld, rows_a, p.k,
                                                              a_box_rows, box_k, kernel_a_name)
                                         : operand_tensor_map(a_big, rows_a, p.k, ldp, a_box_rows, box_k, element);
    args.map_a_small = operand_tensor_map(a_small, rows_a, p.k, ldp, a_box_rows, box_k, element);
  }
  if (w.b == WgmmaB::Transformed) {
    args.map_b_big = operand_tensor_map(kernel_b.ptr, p.k, rows_b, kernel_b.ld, config.block_k, 32, element);  // {N', K}
    args.map_b_small = args.map_b_big;
  } else if (w.b == WgmmaB::Rounded) {
    args.map_b_big = operand_tensor_map(kernel_b.ptr, rows_b, p.k, kernel_b.ld, config.block_n, 32, element);  // {K, N'}, as a plane
    args.map_b_small = args.map_b_big;
  } else {
    const int64_t plane_k = plan.b_plane_map_k;  // the whole row when permuted (LaunchPlan)
    args.map_b_big = plan.b_big_in_place ? in_place_big_plane(config, kernel_b.ptr, kernel_b.ld, rows_b, p.k,
                                                              config.block_n, box_k, kernel_b_name)
                                         : operand_tensor_map(b_big, rows_b, plane_k, ldp, config.block_n, box_k, element);
    args.map_b_small = operand_tensor_map(b_small, rows_b, plane_k, ldp, config.block_n, box_k, element);
  }
  // K pieces: each piece's plain partial sum (alpha 1, beta 0) to its slot of the workspace;
  // the reduction applies alpha, beta and the fill once, adding the slots in order.
  const bool pieces = config.split_k > 1;
  const CUdeviceptr partials = at(workspace, ws.split_k_partials);
  args.c = pieces ? partials : c;
  args.ldc = pieces ? plan.split_k_ld : p.effective_ldc();
  args.m = static_cast<int>(rows_a), args.n = static_cast<int>(rows_b), args.k = static_cast<int>(p.k);
  args.alpha = pieces ? 1.0f : p.alpha, args.beta = pieces ? 0.0f : p.beta;
  args.nonfinite = b_raw ? 0 : flag;  // the pre-pass's flag (B transformed or rounded: no pre-pass)
  if (w.schedule == TileSchedule::StreamK) args.stream_k = {at(workspace, ws.stream_k_partials), flag + 4};
  if (work != 0) {
    args.work = work;
    args.work_begin = args.work + sizeof(WorkItem) * plan.work.items.size();
  }
  auto params = args.pointers();
  // main_dependent: right after the pre-pass (main_dependent implies one, and no memset
  // between), its launch and prologue overlap the pre-pass's last CTAs; the kernel waits
  // (griddepcontrol.wait) before reading the planes. (JITGEMM_DEPENDENT_LAUNCH=0: a plain
  // launch, after which the kernel's griddepcontrol.wait returns at once; for A/B runs of the
  // same build.)
  launch_on(*kernels.main, plan.main, stream, params.data(), dependent_launch_ && plan.main_dependent);
  if (pieces)
    run_reduce({partials, config.split_k, static_cast<int>(p.m), static_cast<int>(p.n), plan.split_k_ld, c,
                p.effective_ldc(), p.alpha, p.beta, triangle_code(fill_triangle(p.fill))},
               stream);
}

}  // namespace jitgemm
