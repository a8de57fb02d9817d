// split_operand_render.hpp — the pre-pass of the wgmma families (tf32/split_operand.cu): one
// operand -> K-major TF32 planes (big, and small for tf32x3) that the main kernel's TMA reads.
//
//   RenderedKernel k = render_split_operand(2, /*transpose=*/true, 4);  // tf32x3, R-contiguous source
//   compiler.compile(k.source, k.kernel_name, options);
//   SplitOperandGeometry g = split_operand_geometry(rows, ld_dst);
#pragma once

#include <cstdint>
#include <string_view>

#include "codegen/source_render.hpp"
#include "codegen/support_templates.hpp"
#include "codegen/template_store.hpp"

namespace jitgemm {

// planes: 2 (tf32x3: big and small) or 1 (tf32: one rounded plane). transpose: the source
// is R-contiguous (A with trans_a = T, B with trans_b = N). vec: 4 when the source allows
// 16-byte loads (ld % 4 == 0, 16-byte aligned base), else 1. The big part is rounded
// (ROUND_BIG = 1). Kernel name "jitgemm_split_operand_p<planes>_t<0|1>_v<vec>"; 256
// threads, no dynamic shared memory. Throws InvalidArgument naming a bad argument.
// planes: 2 (tf32x3), 1 (tf32) or 0 (a raw copy). structure: how the source is read
// (jitgemm::Structure): symmetric ones from their stored triangle, mirrored (transpose then does
// not matter); triangular ones with zeros outside the triangle (a unit diagonal: ones).
// planes_written: tf32x3 (planes 2) of a K-contiguous (transpose false), 16-byte aligned
// (vec 4), general source may write the small plane alone (SplitPlanes::SmallOnly, name suffix
// "_small"): the main kernel then reads the source itself as the big plane, through a TFLOAT32
// tensor map whose copy rounds to nearest even, and the small plane holds x - rne(x).
// permute_k: each 32-wide K block in the order of a main kernel whose B' is permuted
// (wgmma_b_planes_permuted; name suffix "_kp"): a transposed source, not symmetric, all planes.
enum class SplitPlanes { All, SmallOnly };
RenderedKernel render_split_operand(int planes, bool transpose, int vec, Structure structure = Structure::General,
                                    SplitPlanes planes_written = SplitPlanes::All, bool permute_k = false,
                                    const TemplateStore& templates = TemplateStore::active());

// Launch of the pre-pass over R rows (M for A, N for B) into planes of ld_dst floats per row
// (ld_dst >= K, a multiple of 4): grid (ceil(ld_dst / 64), ceil(R / 64)), 256 threads.
// Throws InvalidArgument when R or ld_dst is out of range.
struct SplitOperandGeometry {
  unsigned grid_x = 1, grid_y = 1;
  unsigned block_x = 256;
};
// symmetric: one CTA per 64 x 64 tile on one side of the diagonal of the rows x rows source.
SplitOperandGeometry split_operand_geometry(int64_t rows, int64_t ld_dst, bool symmetric = false);

}  // namespace jitgemm
