#include "tune/support_kernels.hpp"

#include <fmt/format.h>

#include <cmath>
#include <cstring>

#include "codegen/kernel_family.hpp"
#include "codegen/template_store.hpp"
#include "cuda/driver_api.hpp"
#include "exec/compiled_module.hpp"
#include "jitgemm/error.hpp"
#include "problem/operand_structure.hpp"

namespace jitgemm {
namespace {

constexpr unsigned kThreads = 256;
constexpr unsigned kMaxBlocks = kLargestHopperSms * 16;  // the grid-stride loops' cap: 16 CTAs per SM

unsigned blocks_for(int64_t count) {
  const int64_t blocks = (count + kThreads - 1) / kThreads;
  return static_cast<unsigned>(std::max<int64_t>(1, std::min<int64_t>(blocks, kMaxBlocks)));
}

// One module of several extern "C" kernels; NVRTC is given one of them by name.
CompiledModule compile_support(const Compiler& compiler, const TemplateStore& templates) {
  return compile_module(compiler, templates.expand_includes("support/tuning_kernels.cu"), "error_sums",
                        CompileOptions{}, "support/tuning_kernels.cu");
}

}  // namespace

SupportKernels::SupportKernels(const Compiler& compiler, const TemplateStore& templates)
    : SupportKernels(compile_support(compiler, templates)) {}

SupportKernels::SupportKernels(CompiledModule support)
    : module_(std::move(support.module)),
      fill_random_(module_.function("fill_random")),
      fill_value_(module_.function("fill_value")),
      widen_(module_.function("widen_to_double")),
      error_sums_(std::move(support.function)),
      structure_f32_(module_.function("structure_pass_f32")),
      structure_f64_(module_.function("structure_pass_f64")),
      keep_triangle_f32_(module_.function("keep_triangle_f32")),
      keep_triangle_f64_(module_.function("keep_triangle_f64")),
      hold_(module_.function("hold_stream")) {}

void SupportKernels::fill_random(CUdeviceptr out, int64_t rows, int64_t cols, int64_t ld, uint64_t seed,
                                 RandomKind kind, bool symmetric, float pad_value, CUstream stream) const {
  long long r = rows, c = cols, l = ld;
  unsigned long long s = seed;
  int k = static_cast<int>(kind), sym = symmetric ? 1 : 0;
  void* args[] = {&out, &r, &c, &l, &s, &k, &sym, &pad_value};
  cuda::launch(fill_random_, {blocks_for(rows * ld), 1, 1}, {kThreads, 1, 1}, 0, stream, args);
}

void SupportKernels::fill_value(CUdeviceptr out, int64_t count, float value, CUstream stream) const {
  long long n = count;
  void* args[] = {&out, &n, &value};
  cuda::launch(fill_value_, {blocks_for(count), 1, 1}, {kThreads, 1, 1}, 0, stream, args);
}

namespace {

enum class StructurePass { Poison = 0, Triangle = 1, Mirror = 2 };

template <typename T>
void launch_structure_pass(const cuda::Function& fn, CUdeviceptr x, int64_t rows, int64_t cols, int64_t ld,
                           Structure s, StructurePass pass, T value, CUstream stream) {
  if (s == Structure::General) return;
  long long r = rows, c = cols, l = ld;
  int triangle = triangle_code(stored_triangle(s)), unit = has_unit_diagonal(s) ? 1 : 0, mode = static_cast<int>(pass);
  void* args[] = {&x, &r, &c, &l, &triangle, &unit, &mode, &value};
  cuda::launch(fn, {blocks_for(rows * cols), 1, 1}, {kThreads, 1, 1}, 0, stream, args);
}

StructurePass dense_pass(Structure s) { return is_symmetric(s) ? StructurePass::Mirror : StructurePass::Triangle; }

void launch_keep_triangle(const cuda::Function& fn, CUdeviceptr x, int64_t rows, int64_t cols, int64_t ld, Fill fill,
                          CUstream stream) {
  if (fill == Fill::Full) return;
  long long r = rows, c = cols, l = ld;
  int triangle = triangle_code(fill_triangle(fill));
  void* args[] = {&x, &r, &c, &l, &triangle};
  cuda::launch(fn, {blocks_for(rows * cols), 1, 1}, {kThreads, 1, 1}, 0, stream, args);
}

}  // namespace

void SupportKernels::poison_unread(CUdeviceptr x, int64_t rows, int64_t cols, int64_t ld, Structure s, float value,
                                   CUstream stream) const {
  launch_structure_pass(structure_f32_, x, rows, cols, ld, s, StructurePass::Poison, value, stream);
}

void SupportKernels::densify(CUdeviceptr x, int64_t rows, int64_t cols, int64_t ld, Structure s,
                             CUstream stream) const {
  launch_structure_pass(structure_f32_, x, rows, cols, ld, s, dense_pass(s), 0.0f, stream);
}

void SupportKernels::densify_f64(CUdeviceptr x, int64_t rows, int64_t cols, int64_t ld, Structure s,
                                 CUstream stream) const {
  launch_structure_pass(structure_f64_, x, rows, cols, ld, s, dense_pass(s), 0.0, stream);
}

void SupportKernels::apply_fill(CUdeviceptr c, int64_t rows, int64_t cols, int64_t ld, Fill fill,
                                CUstream stream) const {
  launch_keep_triangle(keep_triangle_f32_, c, rows, cols, ld, fill, stream);
}

void SupportKernels::apply_fill_f64(CUdeviceptr c, int64_t rows, int64_t cols, int64_t ld, Fill fill,
                                    CUstream stream) const {
  launch_keep_triangle(keep_triangle_f64_, c, rows, cols, ld, fill, stream);
}

void SupportKernels::widen_to_double(CUdeviceptr in, CUdeviceptr out, int64_t count, CUstream stream) const {
  long long n = count;
  void* args[] = {&in, &out, &n};
  cuda::launch(widen_, {blocks_for(count), 1, 1}, {kThreads, 1, 1}, 0, stream, args);
}

ErrorStats SupportKernels::error_stats(CUdeviceptr c, int64_t ldc, CUdeviceptr ref, int64_t ldr, int64_t rows,
                                       int64_t cols, CUdeviceptr scratch, CUstream stream) const {
  const auto& cu = cuda::driver();
  JITGEMM_CU(cu.cuMemsetD8Async(scratch, 0, 40, stream), "40 bytes of error sums");
  CUdeviceptr sums = scratch, counts = scratch + 16;
  long long lc = ldc, lr = ldr, r = rows, n = cols;
  void* args[] = {&c, &lc, &ref, &lr, &r, &n, &sums, &counts};
  cuda::launch(error_sums_, {blocks_for(rows * cols), 1, 1}, {kThreads, 1, 1}, 0, stream, args);
  unsigned char host[40];
  JITGEMM_CU(cu.cuStreamSynchronize(stream), "error sums");
  JITGEMM_CU(cu.cuMemcpyDtoH(host, scratch, 40), "40 bytes of error sums");
  double diff2, ref2;
  unsigned long long unwritten, mismatched, padding;
  std::memcpy(&diff2, host, 8);
  std::memcpy(&ref2, host + 8, 8);
  std::memcpy(&unwritten, host + 16, 8);
  std::memcpy(&mismatched, host + 24, 8);
  std::memcpy(&padding, host + 32, 8);
  ErrorStats stats;
  stats.rel_error = ref2 > 0 ? std::sqrt(diff2 / ref2) : (diff2 > 0 ? INFINITY : 0.0);
  stats.unwritten = unwritten;
  stats.mismatched = mismatched;
  stats.padding_written = padding;
  return stats;
}

void SupportKernels::hold(double microseconds, CUstream stream) const {
  if (!(microseconds > 0)) return;
  unsigned long long ns = static_cast<unsigned long long>(microseconds * 1e3);
  void* args[] = {&ns};
  cuda::launch(hold_, {1, 1, 1}, {1, 1, 1}, 0, stream, args);
}

}  // namespace jitgemm
