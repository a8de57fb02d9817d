// The wgmma (tf32x3, tf32) candidate space: validity, pruning rules, names, defaults, the
// sample, launch geometry, and rendering of the main kernel and the pre-pass.
#include "codegen/candidate_space.hpp"
#include "codegen/wgmma_family.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <unordered_set>

#include "codegen/source_render.hpp"
#include "codegen/split_operand_render.hpp"
#include "jitgemm/error.hpp"
#include "candidate_keys.hpp"

namespace jitgemm {
namespace {

using testing::contains;
using testing::key_of;

std::vector<ProblemKey> keys_to_check() {
  std::vector<ProblemKey> keys;
  const int64_t sizes[][3] = {{4096, 4096, 4096}, {1, 1, 1},       {127, 127, 127},  {4096, 64, 4096},
                              {256, 256, 524288}, {2048, 4096, 8192}, {8192, 8192, 8192}, {1000, 37, 4100}};
  for (Precision p : {Precision::TF32x3, Precision::TF32})
    for (const auto& s : sizes)
      for (Op ta : {Op::N, Op::T}) keys.push_back(key_of(p, s[0], s[1], s[2], ta, Op::N));
  return keys;
}

// Why the config named `name` is not statically valid (it must not be).
std::string why_not(const std::string& name) {
  std::string why;
  EXPECT_FALSE(statically_valid(KernelConfig::parse(name), StaticLimits{}, &why)) << name;
  return why;
}


TEST(WgmmaCandidates, EveryCandidateIsStaticallyValidAndOfTheFamily) {
  for (const ProblemKey& key : keys_to_check()) {
    const auto space = candidate_space(key);
    EXPECT_GE(space.size(), key.precision == Precision::TF32x3 ? 10u : 3u) << key.canonical();
    std::set<std::string> names;
    for (const KernelConfig& c : space) {
      std::string why;
      EXPECT_TRUE(statically_valid(c, StaticLimits{}, &why)) << c.name() << ": " << why;
      EXPECT_EQ(c.family(), KernelFamily::Wgmma) << c.name();
      EXPECT_EQ(c.precision, key.precision) << c.name();
      // K pieces only where the tiles need them, and then on data-parallel single CTAs.
      if (c.split_k > 1) {
        EXPECT_EQ(c.wgmma().schedule, TileSchedule::DataParallel) << c.name();
        EXPECT_EQ(c.wgmma().cluster, 1) << c.name();
        // The default, twice it, or half (a quarter) of it where a piece stays within twice (four
        // times) the piece length.
        const int d = wgmma_default_split_k(key, c);
        const long long piece = (key.k + c.split_k - 1) / c.split_k;
        const bool short_half = c.split_k == d / 2 && piece <= 2 * wgmma_piece_k(c);
        const bool short_quarter = c.split_k == d / 4 && piece <= 4 * wgmma_piece_k(c);
        EXPECT_TRUE(c.split_k == d || c.split_k == 2 * d || short_half || short_quarter)
            << c.name() << " default " << d;
      }
      EXPECT_EQ(c.block_m, 64 * c.wgmma().consumers) << c.name();
      EXPECT_LE(shared_memory_bytes(c), 227u * 1024) << c.name();
      // tf32x3 blocks of 16, 32 or 64 values of K (64: within the contract on the H200's tunes and
      // GPU tests since session 39, though further from it than 32: 2.6e-7 against 1.9e-7 at 4096^3).
      // Blocks of 64 only where wgmma_blocks_of_64_allowed.
      if (key.precision == Precision::TF32x3) {
        const int acc = c.wgmma().acc_block_k;
        EXPECT_TRUE(acc == 16 || acc == 32 || acc == 64) << c.name();
        EXPECT_TRUE(acc != 64 || wgmma_blocks_of_64_allowed(key)) << c.name() << " on " << key.canonical();
      }
      names.insert(c.name());
    }
    EXPECT_EQ(names.size(), space.size()) << key.canonical();
    EXPECT_TRUE(std::is_sorted(space.begin(), space.end(),
                               [](const KernelConfig& a, const KernelConfig& b) { return a.name() < b.name(); }));
    EXPECT_TRUE(contains(space, default_config(key))) << key.canonical() << ": " << default_config(key).name();
  }
}

TEST(WgmmaCandidates, LongKAddsTheTwoLevelSumAndTf32Blocks) {
  const auto has = [](const std::vector<KernelConfig>& s, auto pred) { return std::any_of(s.begin(), s.end(), pred); };
  const auto x3_short = candidate_space(key_of(Precision::TF32x3, 4096, 4096, 4096));
  const auto x3_long = candidate_space(key_of(Precision::TF32x3, 256, 256, 524288));
  EXPECT_FALSE(has(x3_short, [](const KernelConfig& c) { return c.wgmma().sum_blocks > 0; }));
  EXPECT_TRUE(has(x3_long, [](const KernelConfig& c) { return c.wgmma().sum_blocks == 16; }));
  const auto x1_short = candidate_space(key_of(Precision::TF32, 4096, 4096, 256));
  const auto x1_long = candidate_space(key_of(Precision::TF32, 4096, 4096, 16384));
  EXPECT_FALSE(has(x1_short, [](const KernelConfig& c) { return c.wgmma().acc_block_k > 0; }));
  EXPECT_TRUE(has(x1_long, [](const KernelConfig& c) { return c.wgmma().acc_block_k == 1024; }));
  // Huge K: pieces of at most 4096 (one-level sums) that fill one wave, no pre-pass (A in
  // registers; tf32x3 B made K-major in shared memory, tf32 swapped with the K-major A rounded
  // in place); 8192 in one piece keeps the long-K tiles.
  EXPECT_EQ(default_config(key_of(Precision::TF32x3, 256, 256, 524288)).name(),
            "wgmma_tf32x3_128x128x32_c2_s3_a32_b1_m0_g8_rs_tw_k132");
  EXPECT_EQ(default_config(key_of(Precision::TF32, 256, 256, 524288)).name(),
            "wgmma_tf32_128x256x32_c2_s4_a0_b1_m0_g8_rs_swap_rb_k132");
  EXPECT_EQ(default_config(key_of(Precision::TF32x3, 8192, 8192, 8192)).name(),
            "wgmma_tf32x3_128x96x32_c2_s3_a32_b1_m16_g8");
  EXPECT_EQ(default_config(key_of(Precision::TF32, 8192, 8192, 8192)).name(),
            "wgmma_tf32_128x128x32_c2_s7_a256_b1_m0_g8_rs_swap_rb");
  // A K-major B is not transposed but rounded (tf32x3: split) in place in shared memory.
  EXPECT_EQ(default_config(key_of(Precision::TF32x3, 256, 256, 524288, Op::N, Op::T)).name(),
            "wgmma_tf32x3_128x128x32_c2_s4_a32_b1_m0_g8_rs_rb_k132");
  EXPECT_EQ(default_config(key_of(Precision::TF32, 256, 256, 524288, Op::N, Op::T)).name(),
            "wgmma_tf32_128x256x32_c2_s4_a0_b1_m0_g8_rs_rb_k132");
  // Few tiles, short K: as many pieces as fill a wave, none shorter than 512.
  EXPECT_EQ(default_config(key_of(Precision::TF32x3, 256, 256, 4096)).split_k, 8);
  EXPECT_EQ(default_config(key_of(Precision::TF32x3, 4096, 4096, 4096)).split_k, 1);
}

TEST(WgmmaSplitK, PiecesFollowTheContractTheWaveAndTheWorkspace) {
  const KernelConfig one_level = KernelConfig::parse("wgmma_tf32x3_128x128x32_c2_s3_a32_b1_m0_g8");
  const KernelConfig two_level = KernelConfig::parse("wgmma_tf32x3_128x96x32_c2_s3_a32_b1_m16_g8");
  EXPECT_EQ(wgmma_piece_k(one_level), 4096);
  EXPECT_EQ(wgmma_piece_k(two_level), 16384);
  // 4 tiles: 33 pieces fill the wave; K / 4096 = 128 pieces keep the contract: 4 x 33.
  EXPECT_EQ(wgmma_default_split_k(key_of(Precision::TF32x3, 256, 256, 524288), one_level), 132);
  // 2^20: 256 pieces are needed; the workspace of 256 x 256 x 256 floats holds them.
  EXPECT_EQ(wgmma_default_split_k(key_of(Precision::TF32x3, 256, 256, 1 << 20), one_level), 256);
  // A full wave of tiles: pieces only for the contract.
  EXPECT_EQ(wgmma_default_split_k(key_of(Precision::TF32x3, 4096, 4096, 16384), one_level), 4);
  EXPECT_EQ(wgmma_default_split_k(key_of(Precision::TF32x3, 4096, 4096, 16384), two_level), 1);
  // The workspace bound (2^27 floats): 16384^2 outputs hold no second piece.
  EXPECT_EQ(wgmma_default_split_k(key_of(Precision::TF32x3, 16384, 16384, 65536), one_level), 1);
  EXPECT_FALSE(wgmma_takes_k(key_of(Precision::TF32x3, 16384, 16384, 65536)));
  EXPECT_TRUE(wgmma_takes_k(key_of(Precision::TF32x3, 256, 256, 1 << 20)));
  // Short K, few tiles: no piece under 512.
  EXPECT_EQ(wgmma_default_split_k(key_of(Precision::TF32x3, 128, 128, 1024), one_level), 2);
  EXPECT_EQ(wgmma_default_split_k(key_of(Precision::TF32x3, 128, 128, 256), one_level), 1);
  // The candidates add half the default where a piece stays within twice the piece length, and
  // a quarter where it stays within four times: largeK tf32 on 128 x 256 tiles, 2 tiles x 66
  // pieces of 7944 (one wave, half the partial products) and 33 of 15888, beside the default's
  // 132 (twice it, 264, is over 256); not 16 (an eighth).
  const ProblemKey large_k = key_of(Precision::TF32, 256, 256, 524288);
  KernelConfig rounded = KernelConfig::parse("wgmma_tf32_128x256x32_c2_s4_a0_b1_m0_g8_rs_swap_rb");
  EXPECT_EQ(wgmma_default_split_k(large_k, rounded), 132);
  const auto space = candidate_space(large_k);
  for (int pieces : {33, 66, 132}) {
    rounded.split_k = pieces;
    EXPECT_EQ(std::count(space.begin(), space.end(), rounded), 1) << rounded.name();
  }
  for (int pieces : {16, 264}) {
    rounded.split_k = pieces;
    EXPECT_EQ(std::count(space.begin(), space.end(), rounded), 0) << rounded.name();
  }
  // largeK tf32x3's record: 4 tiles of 128 x 128 in 33 pieces, one per SM of an H200.
  const ProblemKey large_k_x3 = key_of(Precision::TF32x3, 256, 256, 524288);
  const KernelConfig record = KernelConfig::parse("wgmma_tf32x3_128x128x32_c2_s3_a32_b1_m0_g8_rs_tw_k33");
  EXPECT_EQ(wgmma_default_split_k(large_k_x3, record), 132);
  const auto space_x3 = candidate_space(large_k_x3);
  EXPECT_EQ(std::count(space_x3.begin(), space_x3.end(), record), 1) << record.name();
}

TEST(WgmmaRoundB, NamesValiditySharedMemoryRenderingAndCandidates) {
  const KernelConfig c = KernelConfig::parse("wgmma_tf32_128x256x32_c2_s4_a0_b1_m0_g8_rs_swap_rb");
  EXPECT_EQ(c.wgmma().b, WgmmaB::Rounded);
  EXPECT_EQ(c.name(), "wgmma_tf32_128x256x32_c2_s4_a0_b1_m0_g8_rs_swap_rb");
  std::string why;
  EXPECT_TRUE(statically_valid(c, StaticLimits{}, &why)) << why;
  // TMA writes the big plane itself: no raw B tile (1024 + 4 x (128 + 256) x 32 x 4 + 32 x 4).
  EXPECT_EQ(shared_memory_bytes(c), 1024u + 4 * (128 + 256) * 32 * 4 + 32 * 4);
  EXPECT_NE(why_not("wgmma_tf32_128x256x32_c2_s4_a0_b1_m0_g8_rb").find("A in registers"), std::string::npos);
  // Only where the kernel's B is stored K-major: swapped for A @ B (op(A) = A), unswapped for A @ B^T.
  const ProblemKey nn = key_of(Precision::TF32, 256, 256, 524288);
  EXPECT_TRUE(wgmma_runs_in_place(c, nn));
  KernelConfig unswapped = c;
  unswapped.wgmma().swap_ab = false;
  EXPECT_FALSE(wgmma_runs_in_place(unswapped, nn));
  EXPECT_TRUE(wgmma_runs_in_place(unswapped, key_of(Precision::TF32, 256, 256, 524288, Op::N, Op::T)));
  const RenderedKernel r = render_kernel(c, specialization_of(nn));
  EXPECT_NE(r.source.find("TRANSFORM_B = 1, B_K_MAJOR = 1;"), std::string::npos);
  for (Precision p : {Precision::TF32x3, Precision::TF32}) {
    const auto space = candidate_space(key_of(p, 4096, 4096, 4096));
    EXPECT_TRUE(std::any_of(space.begin(), space.end(), [](const KernelConfig& k) { return k.wgmma().b == WgmmaB::Rounded; }))
        << to_string(p);
  }
}

TEST(WgmmaSplitK, KUpTo8192KeepsTheWholeKCandidates) {
  // transA (2048x4096x8192): one-level tiles get two pieces for the contract, and stay whole
  // too (the fastest measured, verified by the tuner); 16384 has only pieces.
  const auto space = candidate_space(key_of(Precision::TF32x3, 2048, 4096, 8192, Op::T, Op::N));
  EXPECT_TRUE(contains(space, KernelConfig::parse("wgmma_tf32x3_128x128x32_c2_s3_a32_b1_m0_g8")));
  EXPECT_TRUE(contains(space, KernelConfig::parse("wgmma_tf32x3_128x128x32_c2_s3_a32_b1_m0_g8_k2")));
  const auto longer = candidate_space(key_of(Precision::TF32x3, 2048, 4096, 16384, Op::T, Op::N));
  EXPECT_FALSE(contains(longer, KernelConfig::parse("wgmma_tf32x3_128x128x32_c2_s3_a32_b1_m0_g8")));
  EXPECT_TRUE(contains(longer, KernelConfig::parse("wgmma_tf32x3_128x128x32_c2_s3_a32_b1_m0_g8_k4")));
}

TEST(WgmmaSplitK, NamesValidityRenderingAndGrid) {
  const KernelConfig c = KernelConfig::parse("wgmma_tf32x3_128x128x32_c2_s3_a32_b1_m0_g8_rs_tw_k132");
  EXPECT_EQ(c.split_k, 132);
  EXPECT_EQ(c.name(), "wgmma_tf32x3_128x128x32_c2_s3_a32_b1_m0_g8_rs_tw_k132");
  std::string why;
  EXPECT_TRUE(statically_valid(c, StaticLimits{}, &why)) << why;
  // Pieces walk a work list: no stream-K tail, no CTA pairs; at most kMaxSplitK.
  EXPECT_NE(why_not("wgmma_tf32x3_128x128x32_c2_s3_a32_b1_m0_g8_sk_k4").find("split_k=4"), std::string::npos);
  EXPECT_NE(why_not("wgmma_tf32x3_128x128x32_c2_s3_a32_b1_m0_g8_x2_k4").find("split_k=4"), std::string::npos);
  EXPECT_NE(why_not("wgmma_tf32x3_128x128x32_c2_s3_a32_b1_m0_g8_k257").find("split_k=257"), std::string::npos);
  // The kernel always walks a work list and leaves the fill to the reduction.
  const ProblemKey lower = [] {
    ProblemKey k = key_of(Precision::TF32x3, 256, 256, 524288);
    k.fill = Fill::Lower;
    return k;
  }();
  const RenderedKernel r = render_kernel(c, specialization_of(lower));
  EXPECT_NE(r.source.find("constexpr int SPLIT_K = 132, PDL = 0;"), std::string::npos);
  EXPECT_NE(r.source.find("constexpr int FILL = 0, WORK_LIST = 1;"), std::string::npos);
  EXPECT_NE(r.kernel_name.find("_k132"), std::string::npos) << r.kernel_name;
  EXPECT_NE(r.kernel_name.find("_wl"), std::string::npos) << r.kernel_name;
  // One CTA per piece, at most one per SM.
  EXPECT_EQ(launch_geometry(c, 256, 256, 524288, 132).grid_x, 132u);
  EXPECT_EQ(launch_geometry(c, 128, 128, 524288, 132).grid_x, 132u);
  KernelConfig few = c;
  few.split_k = 8;
  EXPECT_EQ(launch_geometry(few, 256, 256, 4096, 132).grid_x, 32u);
}

// Triangular operands read raw are masked by the kernel: which of A', B' and how (A_KEEP 1:
// k <= row kept, 2: k >= row), in the prologue and the kernel name; plane-fed operands and
// symmetric ones are not (the pre-pass or a dense copy takes care of them).
TEST(WgmmaOperandMasks, RawTriangularOperandsInTheKernelsTerms) {
  ProblemKey lowertri = key_of(Precision::TF32x3, 4096, 4096, 4096);
  lowertri.structure_a = Structure::Lower, lowertri.structure_b = Structure::LowerUnit, lowertri.fill = Fill::Lower;
  const KernelSpecialization spec = specialization_of(lowertri);
  auto masks = [&](std::string_view name) { return wgmma_operand_masks(KernelConfig::parse(name), spec); };
  // A' = op(A) lower: k <= m; B'(n, k) = op(B)(k, n) lower: k >= n, a unit diagonal.
  EXPECT_EQ(masks("wgmma_tf32x3_128x128x32_c2_s3_a32_b1_m0_g8_rs_tw"), (WgmmaOperandMasks{1, 2, false, true}));
  // Swapped: A' = op(B)^T (k >= m, unit), B' = op(A) (k <= n).
  EXPECT_EQ(masks("wgmma_tf32x3_128x128x32_c2_s3_a32_b1_m0_g8_rs_swap_rb"), (WgmmaOperandMasks{2, 1, true, false}));
  // Plane-fed: the pre-pass masks them.
  EXPECT_EQ(masks("wgmma_tf32x3_128x128x32_c2_s3_a32_b1_m0_g8"), WgmmaOperandMasks{});
  EXPECT_EQ(masks("wgmma_tf32x3_128x128x32_c2_s3_a32_b1_m0_g8_rs"), (WgmmaOperandMasks{1, 0, false, false}));
  // op T: a lower A used transposed is upper.
  ProblemKey transposed = lowertri;
  transposed.trans_a = Op::T;
  EXPECT_EQ(wgmma_operand_masks(KernelConfig::parse("wgmma_tf32x3_128x128x32_c2_s3_a32_b1_m0_g8_rs"),
                                specialization_of(transposed)),
            (WgmmaOperandMasks{2, 0, false, false}));
  // Symmetric operands are never masked; a symmetric A' in registers is read from its stored
  // triangle (A_SYM) where the stage is 32 K and there is no CTA pair, whatever op it came with.
  ProblemKey symmetric = lowertri;
  symmetric.structure_a = symmetric.structure_b = Structure::Symmetric;
  symmetric.fill = Fill::Full;
  const KernelSpecialization sym_spec = specialization_of(symmetric);
  EXPECT_EQ(wgmma_operand_masks(KernelConfig::parse("wgmma_tf32x3_128x128x32_c2_s3_a32_b1_m0_g8_rs_tw"), sym_spec),
            (WgmmaOperandMasks{0, 0, false, false, 1}));
  symmetric.structure_a = Structure::General;
  symmetric.structure_b = Structure::SymmetricUpper;
  symmetric.trans_b = Op::T;
  EXPECT_EQ(wgmma_operand_masks(KernelConfig::parse("wgmma_tf32x3_128x128x32_c2_s3_a32_b1_m0_g8_rs_swap"),
                                specialization_of(symmetric)),
            (WgmmaOperandMasks{0, 0, false, false, 2}));
  EXPECT_EQ(wgmma_operand_masks(KernelConfig::parse("wgmma_tf32x3_128x128x32_c2_s3_a32_b1_m0_g8_rs"),
                                specialization_of(symmetric)),
            WgmmaOperandMasks{});  // A' is the general A
  for (const char* name : {"wgmma_tf32x3_128x128x16_c2_s6_a32_b2_m0_g8_rs", "wgmma_tf32x3_128x128x32_c2_s3_a32_b1_m0_g8_rs_x2",
                           "wgmma_tf32x3_128x128x32_c2_s3_a32_b1_m0_g8"})
    EXPECT_EQ(wgmma_operand_masks(KernelConfig::parse(name), sym_spec), WgmmaOperandMasks{}) << name;
  const RenderedKernel sym = render_kernel(KernelConfig::parse("wgmma_tf32_128x256x32_c2_s4_a0_b1_m0_g8_rs"), sym_spec);
  EXPECT_TRUE(sym.kernel_name.ends_with("_rs_k_sal")) << sym.kernel_name;
  EXPECT_NE(sym.source.find("constexpr int A_SYM = 1;"), std::string::npos);
  // The prologue's line (the template's defaults, all 0, follow it).
  auto masks_line = [](const RenderedKernel& k) {
    const size_t at = k.source.find("constexpr int A_KEEP = ");
    return at == std::string::npos ? std::string() : k.source.substr(at, k.source.find('\n', at) - at);
  };
  const RenderedKernel r = render_kernel(KernelConfig::parse("wgmma_tf32x3_128x128x32_c2_s3_a32_b1_m0_g8_rs_swap_rb"), spec);
  EXPECT_EQ(masks_line(r), "constexpr int A_KEEP = 2, A_UNIT = 1, B_KEEP = 1, B_UNIT = 0;");
  EXPECT_TRUE(r.kernel_name.ends_with("_tau1_tbl")) << r.kernel_name;
  const RenderedKernel general = render_kernel(KernelConfig::parse("wgmma_tf32x3_128x128x32_c2_s3_a32_b1_m0_g8_rs_tw"),
                                               specialization_of(key_of(Precision::TF32x3, 4096, 4096, 4096)));
  EXPECT_EQ(masks_line(general), "constexpr int A_KEEP = 0, A_UNIT = 0, B_KEEP = 0, B_UNIT = 0;");
  EXPECT_LT(general.source.find("constexpr int A_KEEP = "), general.source.find("#ifndef KERNEL_NAME"));
  EXPECT_EQ(general.kernel_name.find("_ta"), std::string::npos) << general.kernel_name;
}

TEST(WgmmaCandidates, DefaultsAreTheFastestMeasured) {
  // tf32x3: A read in place in registers where op(A) is K-major (blocks of 64, four stages); on a
  // TN product the bigger operand in registers (read MN-major; swapped when M < N), the smaller
  // split by the pre-pass; else the planes.
  EXPECT_EQ(default_config(key_of(Precision::TF32x3, 4096, 4096, 4096)).name(),
            "wgmma_tf32x3_128x128x32_c2_s4_a64_b1_m0_g8_rst");
  EXPECT_EQ(default_config(key_of(Precision::TF32x3, 4096, 4096, 4096, Op::T, Op::N)).name(),
            "wgmma_tf32x3_128x128x32_c2_s4_a64_b1_m0_g8_rs");
  EXPECT_EQ(default_config(key_of(Precision::TF32x3, 2048, 4096, 4096, Op::T, Op::N)).name(),
            "wgmma_tf32x3_128x128x32_c2_s4_a64_b1_m0_g8_rs_swap");
  EXPECT_EQ(default_config(key_of(Precision::TF32x3, 4096, 2048, 4096, Op::T, Op::N)).name(),
            "wgmma_tf32x3_128x128x32_c2_s4_a64_b1_m0_g8_rs");
  EXPECT_EQ(default_config(key_of(Precision::TF32x3, 4096, 4096, 4096, Op::T, Op::T)).name(),
            "wgmma_tf32x3_128x128x32_c2_s3_a32_b1_m0_g8");
  ProblemKey triangular_tn = key_of(Precision::TF32x3, 4096, 4096, 4096, Op::T, Op::N);
  triangular_tn.structure_a = Structure::Lower;
  EXPECT_EQ(default_config(triangular_tn).name(), "wgmma_tf32x3_128x128x32_c2_s3_a32_b1_m0_g8");
  // Blocks of 64 only where they keep the contract: a TN product with a short K keeps the planes
  // (and a long K, above 4096, the long-K rule's two-level sums: transA's 8192 takes the record).
  EXPECT_EQ(default_config(key_of(Precision::TF32x3, 2048, 2048, 1024, Op::T, Op::N)).name(),
            "wgmma_tf32x3_128x128x32_c2_s3_a32_b1_m0_g8");
  // tf32 reads its operands in place where the layout allows (its TMA copies round them): the
  // K-major A as the kernel's B (swapped) on NN, the K-major B itself on NT, one operand in
  // registers where neither is K-major (TN), the planes where no operand's rows are 16-byte aligned.
  EXPECT_EQ(default_config(key_of(Precision::TF32, 4096, 4096, 4096)).name(),
            "wgmma_tf32_128x256x32_c2_s4_a0_b1_m0_g8_rs_swap_rb");
  EXPECT_EQ(default_config(key_of(Precision::TF32, 4096, 4096, 4096, Op::N, Op::T)).name(),
            "wgmma_tf32_128x256x32_c2_s4_a0_b1_m0_g8_rs_rb");
  EXPECT_EQ(default_config(key_of(Precision::TF32, 4096, 4096, 4096, Op::T, Op::N)).name(),
            "wgmma_tf32_128x256x32_c2_s4_a0_b1_m0_g8_rs");
  ProblemKey unaligned = key_of(Precision::TF32, 4095, 4095, 4095);
  unaligned.vec_a = unaligned.vec_b = 1;
  EXPECT_EQ(default_config(unaligned).name(), "wgmma_tf32_128x256x32_c2_s4_a0_b1_m0_g8");
}

TEST(WgmmaCandidates, SampleIsValidAndHoldsTheDefaults) {
  for (Precision p : {Precision::TF32x3, Precision::TF32}) {
    const auto sample = representative_sample(key_of(p, 4096, 4096, 4096));
    for (const KernelConfig& c : sample) {
      std::string why;
      EXPECT_TRUE(statically_valid(c, StaticLimits{}, &why)) << c.name() << ": " << why;
    }
    // Each key's sample holds its default (K pieces make defaults differ from key to key).
    for (const auto& key : keys_to_check())
      if (key.precision == p) EXPECT_TRUE(contains(representative_sample(key), default_config(key))) << key.canonical();
  }
}

TEST(WgmmaCandidates, NameParseRoundTripsAndHashesSpread) {
  KernelConfigHash hash;
  std::unordered_set<size_t> hashes;
  size_t count = 0;
  for (const ProblemKey& key : {key_of(Precision::TF32x3, 256, 256, 524288), key_of(Precision::TF32, 4096, 4096, 8192)})
    for (const KernelConfig& c : candidate_space(key)) {
      EXPECT_EQ(KernelConfig::parse(c.name()), c) << c.name();
      EXPECT_EQ(hash(KernelConfig::parse(c.name())), hash(c));
      hashes.insert(hash(c));
      ++count;
    }
  EXPECT_EQ(hashes.size(), count);
  const KernelConfig c = KernelConfig::parse("wgmma_tf32x3_128x192x16_c2_s5_a32_b2_m16_g4");
  EXPECT_EQ(c.family(), KernelFamily::Wgmma);
  EXPECT_EQ(c.precision, Precision::TF32x3);
  EXPECT_EQ(c.block_m, 128);
  EXPECT_EQ(c.block_n, 192);
  EXPECT_EQ(c.block_k, 16);
  EXPECT_EQ(c.wgmma().consumers, 2);
  EXPECT_EQ(c.stages, 5);
  EXPECT_EQ(c.wgmma().acc_block_k, 32);
  EXPECT_EQ(c.wgmma().acc_buffers, 2);
  EXPECT_EQ(c.wgmma().sum_blocks, 16);
  EXPECT_EQ(c.raster_group, 4);
  EXPECT_EQ(c.threads(), 384);
  EXPECT_EQ(KernelConfig::parse("wgmma_tf32_128x256x32_c2_s4_a0_b1_m0_g8").wgmma().acc_block_k, 0);
  for (const char* bad : {"wgmma_tf32x3_128x128x32", "wgmma_tf32x3_128x128x32_c2_s3_a32_b1_m0",
                          "wgmma_tf32x3_128x128x32_w2x4_t8x8_s3_k1_g8", "wgmma_tf32x3_128x128x32_c2_s3_a-1_b1_m0_g8",
                          "simt_fp32_128x128x8_c2_s3_a32_b1_m0_g8"})
    EXPECT_THROW(KernelConfig::parse(bad), InvalidArgument) << bad;
}

TEST(WgmmaCandidates, StaticValidityMirrorsTheTemplate) {
  EXPECT_NE(why_not("wgmma_tf32x3_128x128x32_c2_s4_a32_b1_m0_g8").find("shared memory"), std::string::npos);
  EXPECT_NE(why_not("wgmma_tf32x3_128x80x32_c2_s2_a32_b1_m0_g8").find("block_n=80"), std::string::npos);
  EXPECT_NE(why_not("wgmma_tf32x3_64x128x32_c2_s2_a32_b1_m0_g8").find("block_m=64"), std::string::npos);
  EXPECT_NE(why_not("wgmma_tf32x3_128x192x32_c2_s2_a32_b2_m0_g8").find("registers"), std::string::npos);
  EXPECT_NE(why_not("wgmma_tf32_128x256x32_c2_s4_a256_b1_m0_g8").find("registers"), std::string::npos);
  EXPECT_NE(why_not("wgmma_tf32x3_128x128x16_c2_s3_a32_b2_m0_g8").find("stages=3"), std::string::npos);
  EXPECT_NE(why_not("wgmma_tf32x3_128x128x32_c2_s3_a12_b1_m0_g8").find("acc_block_k=12"), std::string::npos);
  EXPECT_NE(why_not("wgmma_tf32_128x128x32_c2_s4_a48_b1_m0_g8").find("acc_block_k=48"), std::string::npos);
  EXPECT_NE(why_not("wgmma_tf32_128x128x32_c2_s4_a0_b2_m0_g8").find("tf32 reads neither"), std::string::npos);
  EXPECT_NE(why_not("wgmma_tf32x3_128x128x32_c2_s3_a16_b2_m0_g8").find("spills"), std::string::npos);
  EXPECT_NE(why_not("wgmma_tf32x3_128x128x32_c2_s3_a32_b1_m16_g8").find("spills"), std::string::npos);
  EXPECT_NE(why_not("wgmma_tf32x3_128x96x32_c2_s3_a32_b2_m16_g8").find("spills"), std::string::npos);
  // JITGEMM_FULL_SWEEP found these two spilling (40 B); their siblings without FP32 blocks or
  // stream-K stay candidates.
  EXPECT_NE(why_not("wgmma_tf32_128x128x32_c2_s7_a256_b1_m0_g8_rs_swap_rb_sk").find("spills"), std::string::npos);
  EXPECT_NE(why_not("wgmma_tf32_128x128x32_c2_s7_a1024_b1_m0_g8_rs_swap_rb_sk").find("spills"), std::string::npos);
  std::string sibling;
  EXPECT_TRUE(statically_valid(KernelConfig::parse("wgmma_tf32_128x128x32_c2_s7_a256_b1_m0_g8_rs_swap_rb"),
                               StaticLimits{}, &sibling))
      << sibling;
  KernelConfig split = KernelConfig::parse("wgmma_tf32x3_128x128x32_c2_s3_a32_b1_m0_g8_sk");
  split.split_k = 2;
  std::string why;
  EXPECT_FALSE(statically_valid(split, StaticLimits{}, &why));
  EXPECT_NE(why.find("split_k=2"), std::string::npos) << why;
  // A SIMT config has no wgmma fields to set (the name could not say so).
  EXPECT_THROW(KernelConfig{}.wgmma(), std::bad_variant_access);
  // The template's formula: 1024 + STAGES * PLANES * (BM + BN) * BK * 4 + 16 * STAGES.
  EXPECT_EQ(shared_memory_bytes(KernelConfig::parse("wgmma_tf32x3_128x128x32_c2_s3_a32_b2_m0_g8")), 197680u);
  EXPECT_EQ(shared_memory_bytes(KernelConfig::parse("wgmma_tf32_128x192x32_c2_s5_a1024_b1_m0_g8")), 205904u);
}

TEST(WgmmaInRegisters, NamesValidityAndSharedMemory) {
  const KernelConfig rs = KernelConfig::parse("wgmma_tf32x3_128x128x32_c2_s4_a32_b1_m0_g8_rs");
  EXPECT_EQ(rs.wgmma().a, WgmmaA::Registers);
  EXPECT_FALSE(rs.wgmma().swap_ab);
  const KernelConfig rst = KernelConfig::parse("wgmma_tf32x3_128x128x32_c2_s4_a32_b1_m0_g8_rst_swap");
  EXPECT_EQ(rst.wgmma().a, WgmmaA::RegistersTruncated);
  EXPECT_TRUE(rst.wgmma().swap_ab);
  EXPECT_EQ(rst.name(), "wgmma_tf32x3_128x128x32_c2_s4_a32_b1_m0_g8_rst_swap");
  EXPECT_NE(KernelConfigHash{}(rs), KernelConfigHash{}(rst));
  for (const char* bad : {"wgmma_tf32x3_128x128x32_c2_s4_a32_b1_m0_g8_swap_rs", "wgmma_tf32x3_128x128x32_c2_s4_a32_b1_m0_g8_r",
                          "wgmma_tf32x3_128x128x32_c2_s4_a32_b1_m0_g8_rs_"})
    EXPECT_THROW(KernelConfig::parse(bad), InvalidArgument) << bad;
  // One raw A tile per stage instead of A's planes: 1024 + 4 * (128 + 2 * 128) * 32 * 4 + 64.
  EXPECT_EQ(shared_memory_bytes(rs), 1024u + 4u * (128 + 2 * 128) * 32 * 4 + 64);
  std::string why;
  KernelConfig swap_only = KernelConfig::parse("wgmma_tf32x3_128x128x32_c2_s3_a32_b1_m0_g8");
  swap_only.wgmma().swap_ab = true;
  EXPECT_FALSE(statically_valid(swap_only, StaticLimits{}, &why));
  EXPECT_NE(why.find("needs A in registers"), std::string::npos) << why;
  EXPECT_FALSE(statically_valid(KernelConfig::parse("wgmma_tf32x3_128x128x16_c2_s6_a16_b1_m0_g8_rs"), StaticLimits{}, &why));
  EXPECT_NE(why.find("32 floats"), std::string::npos) << why;
  EXPECT_FALSE(statically_valid(KernelConfig::parse("wgmma_tf32x3_128x96x32_c2_s4_a32_b2_m0_g8_rs"), StaticLimits{}, &why));
  EXPECT_NE(why.find("spills"), std::string::npos) << why;
  EXPECT_FALSE(statically_valid(KernelConfig::parse("wgmma_tf32_128x192x32_c2_s5_a1024_b1_m0_g8_rs"), StaticLimits{}, &why));
  EXPECT_NE(why.find("registers"), std::string::npos) << why;
}

TEST(WgmmaConvertB, NamesValiditySharedMemoryAndRendering) {
  const KernelConfig cvt = KernelConfig::parse("wgmma_tf32_128x256x32_c2_s4_a0_b1_m0_g8_rs_swap_cvt");
  EXPECT_EQ(cvt.wgmma().b, WgmmaB::Converted);
  EXPECT_TRUE(cvt.wgmma().swap_ab);
  EXPECT_EQ(cvt.name(), "wgmma_tf32_128x256x32_c2_s4_a0_b1_m0_g8_rs_swap_cvt");
  EXPECT_TRUE(statically_valid(cvt, StaticLimits{}, nullptr));
  // The staging tile (64 x 68 floats) and the claimed unit come on top of the ring.
  KernelConfig plain = cvt;
  plain.wgmma().b = WgmmaB::Planes;
  EXPECT_EQ(shared_memory_bytes(cvt), shared_memory_bytes(plain) + 64 * 68 * 4 + 16);
  std::string why;
  for (const char* bad : {"wgmma_tf32_128x256x32_c2_s4_a0_b1_m0_g8_cvt", "wgmma_tf32x3_128x128x32_c2_s3_a32_b1_m0_g8_rs_cvt",
                          "wgmma_tf32_128x128x128_c2_s2_a0_b1_m0_g8_rs_cvt"}) {
    EXPECT_FALSE(statically_valid(KernelConfig::parse(bad), StaticLimits{}, &why)) << bad;
    EXPECT_NE(why.find("B converted"), std::string::npos) << bad << ": " << why;
  }
  EXPECT_THROW(KernelConfig::parse("wgmma_tf32_128x256x32_c2_s4_a0_b1_m0_g8_rs_cvt_swap"), InvalidArgument);
  // Swapped, B comes from A: stored M x K (trans_a N) is a row source, K x M (T) a transposed one.
  const RenderedKernel nn = render_kernel(cvt, KernelSpecialization{Op::N, Op::N, 1, 4, 4});
  EXPECT_EQ(nn.kernel_name, "jitgemm_" + cvt.name() + "_mn_bk1");
  EXPECT_NE(nn.source.find("CONVERT_B = 1, CONVERT_TRANSPOSED = 0, CONVERT_VEC = 1;"), std::string::npos);
  KernelConfig unswapped = cvt;
  unswapped.wgmma().swap_ab = false;
  const RenderedKernel tn = render_kernel(unswapped, KernelSpecialization{Op::T, Op::N, 4, 4, 4});
  EXPECT_EQ(tn.kernel_name, "jitgemm_" + unswapped.name() + "_mn_bt4");
  EXPECT_NE(tn.source.find("CONVERT_B = 1, CONVERT_TRANSPOSED = 1, CONVERT_VEC = 4;"), std::string::npos);
  // In the tf32 space with A in registers, never in tf32x3's.
  const auto tf32 = candidate_space(key_of(Precision::TF32, 4096, 4096, 4096));
  EXPECT_TRUE(std::any_of(tf32.begin(), tf32.end(), [](const KernelConfig& c) { return c.wgmma().b == WgmmaB::Converted; }));
  for (const KernelConfig& c : tf32) EXPECT_TRUE(c.wgmma().b != WgmmaB::Converted || c.wgmma().a_in_registers()) << c.name();
  const auto x3 = candidate_space(key_of(Precision::TF32x3, 4096, 4096, 4096));
  EXPECT_TRUE(std::none_of(x3.begin(), x3.end(), [](const KernelConfig& c) { return c.wgmma().b == WgmmaB::Converted; }));
}

TEST(WgmmaTransformB, NamesValiditySharedMemoryAndRendering) {
  const KernelConfig tw = KernelConfig::parse("wgmma_tf32x3_128x128x32_c2_s3_a32_b1_m0_g8_rs_swap_tw_sk");
  EXPECT_EQ(tw.wgmma().b, WgmmaB::Transformed);
  EXPECT_TRUE(tw.wgmma().swap_ab);
  EXPECT_EQ(tw.wgmma().schedule, TileSchedule::StreamK);
  EXPECT_EQ(tw.name(), "wgmma_tf32x3_128x128x32_c2_s3_a32_b1_m0_g8_rs_swap_tw_sk");
  std::string why;
  EXPECT_TRUE(statically_valid(tw, StaticLimits{}, &why)) << why;
  // Each stage holds the raw B tile beside its two planes; ready barriers and a word per stage.
  KernelConfig plain = tw;
  plain.wgmma().b = WgmmaB::Planes;
  EXPECT_EQ(shared_memory_bytes(tw), shared_memory_bytes(plain) + 3 * (128 * 32 * 4 + 16));
  EXPECT_NE(KernelConfigHash{}(tw), KernelConfigHash{}(plain));
  for (const char* bad : {"wgmma_tf32x3_128x128x32_c2_s3_a32_b1_m0_g8_tw", "wgmma_tf32_128x128x32_c2_s3_a0_b1_m0_g8_rs_tw_x2"})
    EXPECT_NE(why_not(bad).find("B transformed"), std::string::npos) << bad;
  // B converted and B transformed are two values of one field: the name cannot say both.
  EXPECT_THROW(KernelConfig::parse("wgmma_tf32_128x256x32_c2_s2_a0_b1_m0_g8_rs_cvt_tw"), InvalidArgument);
  EXPECT_NE(why_not("wgmma_tf32_128x256x32_c2_s3_a0_b1_m0_g8_rs_tw").find("shared memory"), std::string::npos);
  EXPECT_THROW(KernelConfig::parse("wgmma_tf32_128x256x32_c2_s2_a0_b1_m0_g8_rs_tw_cvt"), InvalidArgument);
  const RenderedKernel tn = render_kernel(tw, KernelSpecialization{Op::T, Op::N, 4, 4, 4});
  EXPECT_NE(tn.source.find("TRANSFORM_B = 1, B_K_MAJOR = 0;"), std::string::npos);
  EXPECT_NE(render_kernel(plain, KernelSpecialization{Op::T, Op::N, 4, 4, 4}).source.find("TRANSFORM_B = 0, B_K_MAJOR = 0;"),
            std::string::npos);
}

TEST(WgmmaTransformB, CandidatesWhereTheKernelsBIsStoredMnMajor) {
  // The kernel's B is op(B)^T, or swapped op(A): MN-major when B is stored K x N (trans_b N),
  // or swapped when A is stored K x M (trans_a T).
  auto transforms = [](const std::vector<KernelConfig>& space, int swap) {
    return std::count_if(space.begin(), space.end(),
                         [&](const KernelConfig& c) { return c.wgmma().b == WgmmaB::Transformed && c.wgmma().swap_ab == (swap != 0); });
  };
  for (Precision p : {Precision::TF32x3, Precision::TF32}) {
    SCOPED_TRACE(to_string(p));
    ProblemKey tn = key_of(p, 4096, 4096, 4096, Op::T, Op::N);
    const auto both = candidate_space(tn);
    EXPECT_GT(transforms(both, 0), 0);
    EXPECT_GT(transforms(both, 1), 0);
    for (const KernelConfig& c : both) {
      if (c.wgmma().b != WgmmaB::Transformed) continue;
      EXPECT_TRUE(c.wgmma().a_in_registers() && c.wgmma().b != WgmmaB::Converted && c.wgmma().cluster == 1) << c.name();
      EXPECT_TRUE(wgmma_runs_in_place(c, tn)) << c.name();
    }
    const auto nn = candidate_space(key_of(p, 4096, 4096, 4096, Op::N, Op::N));
    EXPECT_GT(transforms(nn, 0), 0);
    EXPECT_EQ(transforms(nn, 1), 0);
    const auto nt = candidate_space(key_of(p, 4096, 4096, 4096, Op::N, Op::T));
    EXPECT_EQ(transforms(nt, 0) + transforms(nt, 1), 0);
    // Both operands are read raw, so both must be aligned for TMA: B unaligned, none.
    tn.vec_b = 1;
    const KernelConfig unswapped = KernelConfig::parse(p == Precision::TF32 ? "wgmma_tf32_128x192x32_c2_s3_a0_b1_m0_g8_rs_tw"
                                                                           : "wgmma_tf32x3_128x128x32_c2_s3_a32_b1_m0_g8_rs_tw");
    EXPECT_FALSE(wgmma_runs_in_place(unswapped, tn));
    EXPECT_EQ(transforms(candidate_space(tn), 0) + transforms(candidate_space(tn), 1), 0);
  }
}

// The stream-K tail's cut (stream_k_tail, the host's twin of the template's tail_pieces): the
// last partial wave's tiles in P pieces, P for the earliest finish of the busiest CTA.
TEST(WgmmaStreamK, TailPieces) {
  // 4096^3 at 128 x 128 x 32: 1024 tiles, 100 in the last wave of 132, 128 units a tile; 5
  // pieces put 4 of 25.6 units (+ 2 for each hand-over) on the busiest CTA: 110.4 < 128.
  StreamKTail t = stream_k_tail(1024, 132, 128, 32);
  EXPECT_EQ(t.pieces, 5);
  EXPECT_EQ(t.whole_tiles, 924);
  EXPECT_EQ(t.tail_tiles, 100);
  // transA (2048 x 4096 x 8192): 512 tiles, 116 in the tail, 256 units: 9 pieces (8 a CTA).
  EXPECT_EQ(stream_k_tail(512, 132, 256, 32).pieces, 9);
  // 8192^3 at 128 x 192: 2752 tiles, 112 in the tail: 7 pieces (6 a CTA, 231.4 of 256 units).
  EXPECT_EQ(stream_k_tail(2752, 132, 256, 32).pieces, 7);
  // 336 tiles (72 in the tail) of 17 units: 3 pieces, 2 a CTA, 2 x (5.7 + 2) = 15.3.
  EXPECT_EQ(stream_k_tail(336, 132, 17, 32).pieces, 3);
  // Full waves, or a K too short for the hand-overs to pay (4 units: 2 pieces would take
  // 2 x (2 + 2) = 8): no tail.
  for (const StreamKTail& whole : {stream_k_tail(1056, 132, 128, 32), stream_k_tail(336, 132, 4, 32)}) {
    EXPECT_EQ(whole.pieces, 1);
    EXPECT_EQ(whole.tail_tiles, 0);
  }
  EXPECT_EQ(stream_k_tail(336, 132, 4, 32).whole_tiles, 336);
  // Fewer tiles than CTAs: every tile is in the tail, at most 16 pieces and one per unit.
  t = stream_k_tail(2, 132, 128, 32);
  EXPECT_EQ(t.pieces, 16);
  EXPECT_EQ(t.whole_tiles, 0);
  EXPECT_EQ(t.tail_tiles, 2);
  EXPECT_EQ(stream_k_tail(2, 132, 8, 32).pieces, 8);
  EXPECT_EQ(stream_k_tail(2, 132, 3, 32).pieces, 1);  // 3 pieces of 1 + 2 units: no gain on 3
  // A 16-wide unit (block_k 16, one stage a unit) counts a hand-over as 4 units.
  EXPECT_EQ(stream_k_tail(1024, 132, 256, 16).pieces, 5);
  // Whatever it picks, the busiest CTA is not later than without the cut.
  for (int64_t tiles : {7, 100, 133, 200, 1000, 1024, 2000}) {
    for (int64_t units : {1, 4, 16, 64, 256, 4096}) {
      const StreamKTail c = stream_k_tail(tiles, 132, units, 32);
      ASSERT_GE(c.pieces, 1);
      ASSERT_LE(c.pieces, std::min<int64_t>(16, units));
      const int64_t tail = tiles % 132, rounds = (tail * c.pieces + 131) / 132;
      if (c.pieces > 1)
        EXPECT_LE(static_cast<double>(rounds) * (static_cast<double>(units) / c.pieces + 2), static_cast<double>(units))
            << tiles << " tiles, " << units << " units";
      EXPECT_EQ(c.whole_tiles + c.tail_tiles, tiles);
    }
  }
}

TEST(WgmmaStreamK, NamesValidityCandidatesRenderingAndGrid) {
  const KernelConfig sk = KernelConfig::parse("wgmma_tf32_128x256x32_c2_s4_a0_b1_m0_g8_rs_swap_cvt_sk");
  EXPECT_EQ(sk.wgmma().schedule, TileSchedule::StreamK);
  EXPECT_EQ(sk.wgmma().b, WgmmaB::Converted);
  EXPECT_EQ(sk.name(), "wgmma_tf32_128x256x32_c2_s4_a0_b1_m0_g8_rs_swap_cvt_sk");
  EXPECT_TRUE(statically_valid(sk, StaticLimits{}, nullptr));
  EXPECT_THROW(KernelConfig::parse("wgmma_tf32_128x256x32_c2_s4_a0_b1_m0_g8_sk_rs"), InvalidArgument);
  // A schedule is a wgmma parameter: a SIMT config has none to set.
  EXPECT_THROW(KernelConfig{}.wgmma(), std::bad_variant_access);
  // Shared memory does not change; the template gets STREAM_K.
  KernelConfig plain = sk;
  plain.wgmma().schedule = TileSchedule::DataParallel;
  EXPECT_EQ(shared_memory_bytes(sk), shared_memory_bytes(plain));
  EXPECT_NE(render_kernel(sk, {}).source.find("constexpr int STREAM_K = 1, CLUSTER = 1;\n"), std::string::npos);
  EXPECT_NE(render_kernel(plain, {}).source.find("constexpr int STREAM_K = 0, CLUSTER = 1;\n"), std::string::npos);
  // Every candidate also comes with the stream-K tail where the tiles leave the last of the
  // 132-CTA waves partly empty, and none where they fill it: 4096 x 4224 at 128 x 128 is
  // 32 x 33 = 8 waves; at 128 x 256 (tf32) 32 x 17 = 544 tiles.
  for (Precision mode : {Precision::TF32x3, Precision::TF32}) {
    const auto space = candidate_space(key_of(mode, 4096, 4096, 4096));
    for (const KernelConfig& c : space) {
      if (c.wgmma().schedule == TileSchedule::StreamK) continue;
      KernelConfig with = c;
      with.wgmma().schedule = TileSchedule::StreamK;
      EXPECT_EQ(contains(space, with), statically_valid(with, StaticLimits{}, nullptr)) << c.name();
    }
    for (const KernelConfig& c : candidate_space(key_of(mode, 4224, 4096, 4096))) {
      const int64_t tiles = (4224 + c.block_m - 1) / c.block_m * ((4096 + c.block_n - 1) / c.block_n);
      if (c.wgmma().schedule == TileSchedule::StreamK) EXPECT_NE(tiles % 132, 0) << c.name();
    }
  }
  // Grid: one CTA per SM, and with the tail also for fewer tiles than SMs (down to a K stage
  // per CTA).
  EXPECT_EQ(launch_geometry(sk, 4096, 4096, 4096, kLargestHopperSms).grid_x, 132u);
  EXPECT_EQ(launch_geometry(sk, 256, 256, 4096, kLargestHopperSms).grid_x, 132u);
  EXPECT_EQ(launch_geometry(plain, 256, 256, 4096, kLargestHopperSms).grid_x, 2u);
  EXPECT_EQ(launch_geometry(sk, 256, 256, 64, kLargestHopperSms).grid_x, 2u * 2u);
  // tf32x3 blocks spanning two stages: a unit is two stages, 384 / 16 / 2 = 12 per tile.
  const KernelConfig two_stage = KernelConfig::parse("wgmma_tf32x3_128x128x16_c2_s6_a32_b2_m0_g8_sk");
  EXPECT_EQ(launch_geometry(two_stage, 384, 384, 384, kLargestHopperSms).grid_x, 9u * 12u);
}

TEST(WgmmaCluster, NamesValidityCandidatesRenderingAndGrid) {
  const KernelConfig pair = KernelConfig::parse("wgmma_tf32_128x256x32_c2_s4_a0_b1_m0_g8_rs_swap_x2");
  EXPECT_EQ(pair.wgmma().cluster, 2);
  EXPECT_EQ(pair.name(), "wgmma_tf32_128x256x32_c2_s4_a0_b1_m0_g8_rs_swap_x2");
  EXPECT_TRUE(statically_valid(pair, StaticLimits{}, nullptr));
  std::string why;
  for (const char* bad : {"wgmma_tf32_128x256x32_c2_s4_a0_b1_m0_g8_rs_cvt_x2", "wgmma_tf32_128x256x32_c2_s4_a0_b1_m0_g8_sk_x2",
                          "wgmma_tf32_128x256x32_c2_s4_a0_b1_m0_g8_x3"}) {
    EXPECT_FALSE(statically_valid(KernelConfig::parse(bad), StaticLimits{}, &why)) << bad;
    EXPECT_NE(why.find("cluster"), std::string::npos) << bad << ": " << why;
  }
  // The template gets CLUSTER and the cluster shape; an unpaired kernel no attribute.
  const RenderedKernel k = render_kernel(pair, KernelSpecialization{Op::N, Op::N, 4, 4, 4});
  EXPECT_NE(k.source.find("CLUSTER = 2;\n#define CLUSTER_ATTRIBUTE __cluster_dims__(2, 1, 1)\n"), std::string::npos);
  KernelConfig single = pair;
  single.wgmma().cluster = 1;
  const RenderedKernel one = render_kernel(single, KernelSpecialization{Op::N, Op::N, 4, 4, 4});
  EXPECT_NE(one.source.find("CLUSTER = 1;\n"), std::string::npos);
  EXPECT_EQ(one.source.find("#define CLUSTER_ATTRIBUTE __cluster_dims__"), std::string::npos);
  // Pairs of candidates with B from a pre-pass, where N holds two tiles; never with stream_k.
  const auto space = candidate_space(key_of(Precision::TF32, 4096, 4096, 4096));
  EXPECT_TRUE(contains(space, pair));
  for (const KernelConfig& c : space)
    if (c.wgmma().cluster == 2) EXPECT_TRUE(c.wgmma().b != WgmmaB::Converted && c.wgmma().schedule == TileSchedule::DataParallel) << c.name();
  const auto narrow = candidate_space(key_of(Precision::TF32x3, 4096, 96, 4096));
  EXPECT_TRUE(std::none_of(narrow.begin(), narrow.end(), [](const KernelConfig& c) { return c.wgmma().cluster == 2; }));
  // Grid: whole pairs of CTAs over pairs of tiles (a 13th column of tiles pairs with nothing).
  EXPECT_EQ(launch_geometry(pair, 4096, 4096, 4096, kLargestHopperSms).grid_x, 132u);
  EXPECT_EQ(launch_geometry(pair, 4096, 4096, 4096, 131).grid_x, 130u);
  EXPECT_EQ(launch_geometry(pair, 256, 13 * 256, 64, kLargestHopperSms).grid_x, 2u * 2u * 7u);
  EXPECT_THROW(launch_geometry(pair, 256, 256, 64, 1), InvalidArgument);
}

TEST(WgmmaCandidates, OneConsumerWarpgroupForProblemsOfFewTiles) {
  const KernelConfig one = KernelConfig::parse("wgmma_tf32x3_64x128x32_c1_s4_a32_b1_m0_g8");
  EXPECT_EQ(one.threads(), 256);
  EXPECT_TRUE(statically_valid(one, StaticLimits{}, nullptr));
  // 1000 x 1000: 64 tiles of 128 x 128, fewer than two waves; 4096 x 4096: 1024 tiles.
  for (Precision mode : {Precision::TF32x3, Precision::TF32}) {
    const auto small = candidate_space(key_of(mode, 1000, 1000, 1000));
    EXPECT_TRUE(std::any_of(small.begin(), small.end(), [](const KernelConfig& c) { return c.wgmma().consumers == 1; }));
    for (const KernelConfig& c : small)
      if (c.wgmma().consumers == 1) EXPECT_TRUE(c.block_m == 64 && c.wgmma().cluster == 1 && c.wgmma().b != WgmmaB::Converted) << c.name();
    const auto large = candidate_space(key_of(mode, 4096, 4096, 4096));
    EXPECT_TRUE(std::none_of(large.begin(), large.end(), [](const KernelConfig& c) { return c.wgmma().consumers == 1; }));
  }
}

TEST(WgmmaInRegisters, CandidatesOnlyWhereTmaCanReadTheOperandInPlace) {
  for (Precision p : {Precision::TF32x3, Precision::TF32}) {
    ProblemKey key = key_of(p, 4096, 4096, 4096);
    auto count = [](const std::vector<KernelConfig>& space, int swap) {
      return std::count_if(space.begin(), space.end(),
                           [&](const KernelConfig& c) { return c.wgmma().a_in_registers() && c.wgmma().swap_ab == (swap != 0); });
    };
    const auto aligned = candidate_space(key);
    EXPECT_GT(count(aligned, 0), 0) << to_string(p);
    EXPECT_GT(count(aligned, 1), 0) << to_string(p);
    EXPECT_EQ(std::count_if(aligned.begin(), aligned.end(), [](const KernelConfig& c) { return c.wgmma().a == WgmmaA::RegistersTruncated; }) > 0,
              p == Precision::TF32x3);
    key.vec_a = 1;  // A cannot be read in place: only the swapped ones (B in registers)
    const auto no_a = candidate_space(key);
    EXPECT_EQ(count(no_a, 0), 0);
    EXPECT_GT(count(no_a, 1), 0);
    key.vec_b = 1;
    const auto neither = candidate_space(key);
    EXPECT_EQ(count(neither, 0) + count(neither, 1), 0);
    for (const KernelConfig& c : representative_sample(key)) EXPECT_FALSE(c.wgmma().a_in_registers()) << c.name();
    EXPECT_FALSE(wgmma_runs_in_place(KernelConfig::parse("wgmma_tf32x3_128x128x32_c2_s4_a32_b1_m0_g8_rs"), key));
    EXPECT_TRUE(wgmma_runs_in_place(KernelConfig::parse("wgmma_tf32x3_128x128x32_c2_s4_a32_b1_m0_g8"), key));
  }
}

TEST(WgmmaInRegisters, RenderFollowsTheStoredLayoutOfTheRawOperand) {
  const KernelConfig rs = KernelConfig::parse("wgmma_tf32_128x256x32_c2_s4_a0_b1_m0_g8_rs");
  KernelConfig swapped = rs;
  swapped.wgmma().swap_ab = true;
  // Unswapped, A is raw: K-major when stored M x K (trans_a N). Swapped, B is raw: MN-major
  // when stored K x N (trans_b N).
  const struct {
    const KernelConfig& config;
    Op ta, tb;
    const char* suffix;
    const char* line;
  } cases[] = {
      // (B' from B stored K x N: planes in the permuted K order, "_kp".)
      {rs, Op::N, Op::N, "_kp", "A_IN_REGISTERS = 1, A_ROUND = 1, A_MN_MAJOR = 0, TRANSPOSE_C = 0;"},
      {rs, Op::T, Op::N, "_mn", "A_IN_REGISTERS = 1, A_ROUND = 1, A_MN_MAJOR = 1, TRANSPOSE_C = 0;"},
      {swapped, Op::N, Op::N, "_mn", "A_IN_REGISTERS = 1, A_ROUND = 1, A_MN_MAJOR = 1, TRANSPOSE_C = 1;"},
      {swapped, Op::N, Op::T, "_k", "A_IN_REGISTERS = 1, A_ROUND = 1, A_MN_MAJOR = 0, TRANSPOSE_C = 1;"},
  };
  for (const auto& c : cases) {
    const RenderedKernel k = render_kernel(c.config, KernelSpecialization{c.ta, c.tb, 4, 4, 4});
    EXPECT_EQ(k.kernel_name, "jitgemm_" + c.config.name() + c.suffix);
    EXPECT_NE(k.source.find(c.line), std::string::npos) << k.kernel_name;
  }
  const RenderedKernel planes = render_kernel(KernelConfig::parse("wgmma_tf32_128x256x32_c2_s4_a0_b1_m0_g8"), {});
  EXPECT_NE(planes.source.find("A_IN_REGISTERS = 0, A_ROUND = 1, A_MN_MAJOR = 0, TRANSPOSE_C = 0;"),
            std::string::npos);
}

TEST(WgmmaCandidates, LaunchGeometryIsPersistent) {
  const KernelConfig c = KernelConfig::parse("wgmma_tf32x3_128x128x32_c2_s3_a32_b1_m0_g8");
  LaunchGeometry g = launch_geometry(c, 4096, 4096, 4096, kLargestHopperSms);
  EXPECT_EQ(g.grid_x, 132u);
  EXPECT_EQ(g.grid_y, 1u);
  EXPECT_EQ(g.block_x, 384u);
  EXPECT_EQ(g.smem_bytes, 197680u);
  EXPECT_EQ(launch_geometry(c, 256, 300, 7, kLargestHopperSms).grid_x, 2u * 3u);
  EXPECT_EQ(launch_geometry(c, 4096, 4096, 4096, 114).grid_x, 114u);
  EXPECT_THROW(launch_geometry(c, 4096, 4096, 4096, 0), InvalidArgument);
  EXPECT_THROW(launch_geometry(c, 0, 4096, 4096, kLargestHopperSms), InvalidArgument);
}

TEST(WgmmaRender, MainKernelIgnoresTheSpecialization) {
  const KernelConfig c = KernelConfig::parse("wgmma_tf32x3_128x96x16_c2_s8_a32_b1_m16_g4");
  const RenderedKernel a = render_kernel(c, KernelSpecialization{Op::N, Op::N, 4, 4, 4});
  const RenderedKernel b = render_kernel(c, KernelSpecialization{Op::T, Op::T, 1, 1, 1});
  EXPECT_EQ(a.kernel_name, "jitgemm_wgmma_tf32x3_128x96x16_c2_s8_a32_b1_m16_g4");
  EXPECT_EQ(a.kernel_name, b.kernel_name);
  EXPECT_EQ(a.source, b.source);
  for (const char* line : {"#define KERNEL_NAME jitgemm_wgmma_tf32x3_128x96x16_c2_s8_a32_b1_m16_g4\n",
                           "constexpr int TF32X3 = 1;\n", "constexpr int BLOCK_M = 128, BLOCK_N = 96, BLOCK_K = 16;\n",
                           "constexpr int STAGES = 8;\n", "constexpr int CONSUMERS = 2;\n",
                           "constexpr int ACC_BLOCK_K = 32;\n", "constexpr int ACC_BUFFERS = 1;\n",
                           "constexpr int SUM_BLOCKS = 16;\n", "constexpr int RASTER_GROUP = 4;\n",
                           "constexpr int PRODUCER_REGS = 40, CONSUMER_REGS = 232;\n"})
    EXPECT_NE(a.source.find(line), std::string::npos) << line;
  EXPECT_NE(a.source.find("constexpr int SMEM_BYTES = " + std::to_string(shared_memory_bytes(c)) + ";\n"),
            std::string::npos);
  EXPECT_LT(a.source.find("#define KERNEL_NAME"), a.source.find("#line 1 \"tf32/wgmma_gemm.cu\""));
  EXPECT_EQ(a.source.find("#include \""), std::string::npos);
  EXPECT_EQ(a.threads, 384);
  EXPECT_EQ(a.smem_bytes, shared_memory_bytes(c));
  const RenderedKernel x1 = render_kernel(KernelConfig::parse("wgmma_tf32_128x256x32_c2_s4_a0_b1_m0_g8"), {});
  EXPECT_NE(x1.source.find("constexpr int TF32X3 = 0;\n"), std::string::npos);
  EXPECT_EQ(x1.template_hash, a.template_hash);  // one template, two families
  KernelConfig bad = c;
  bad.block_n = 80;
  EXPECT_THROW(render_kernel(bad, {}), InvalidArgument);
}

TEST(WgmmaRender, SplitOperandPrePass) {
  const RenderedKernel k = render_split_operand(2, true, 4);
  EXPECT_EQ(k.kernel_name, "jitgemm_split_operand_p2_t1_v4");
  for (const char* line : {"#define KERNEL_NAME jitgemm_split_operand_p2_t1_v4\n", "constexpr int PLANES = 2;\n",
                           "constexpr int TRANSPOSE = 1;\n", "constexpr int VEC = 4;\n", "constexpr int ROUND_BIG = 1;\n"})
    EXPECT_NE(k.source.find(line), std::string::npos) << line;
  EXPECT_LT(k.source.find("#define KERNEL_NAME"), k.source.find("#line 1 \"tf32/split_operand.cu\""));
  EXPECT_EQ(k.threads, 256);
  EXPECT_EQ(k.smem_bytes, 0u);
  EXPECT_EQ(render_split_operand(1, false, 1).kernel_name, "jitgemm_split_operand_p1_t0_v1");
  const RenderedKernel sym = render_split_operand(0, false, 4, Structure::Symmetric);
  EXPECT_EQ(sym.kernel_name, "jitgemm_split_operand_p0_t0_v4_symmetric");
  EXPECT_NE(sym.source.find("constexpr int SYMMETRIC = 1, TRIANGLE = 0, UNIT_DIAGONAL = 0;\n"), std::string::npos);
  const RenderedKernel upper = render_split_operand(2, true, 4, Structure::UpperUnit);
  EXPECT_EQ(upper.kernel_name, "jitgemm_split_operand_p2_t1_v4_upper_unit");
  EXPECT_NE(upper.source.find("constexpr int SYMMETRIC = 0, TRIANGLE = 2, UNIT_DIAGONAL = 1;\n"), std::string::npos);
  EXPECT_NE(render_split_operand(1, false, 4, Structure::SymmetricUpper)
                .source.find("constexpr int SYMMETRIC = 2, TRIANGLE = 0, UNIT_DIAGONAL = 0;\n"),
            std::string::npos);
  EXPECT_NE(k.source.find("constexpr int SYMMETRIC = 0, TRIANGLE = 0, UNIT_DIAGONAL = 0;\n"), std::string::npos);
  EXPECT_NE(k.source.find("constexpr int SMALL_ONLY = 0;\n"), std::string::npos);
  // The small plane alone: tf32x3 of a K-contiguous, aligned, general source only.
  const RenderedKernel small = render_split_operand(2, false, 4, Structure::General, SplitPlanes::SmallOnly);
  EXPECT_EQ(small.kernel_name, "jitgemm_split_operand_p2_t0_v4_small");
  EXPECT_NE(small.source.find("constexpr int SMALL_ONLY = 1;\n"), std::string::npos);
  for (auto [planes, transpose, vec, structure, arg] :
       {std::tuple{1, false, 4, Structure::General, "planes=1"}, std::tuple{2, true, 4, Structure::General, "transpose=true"},
        std::tuple{2, false, 1, Structure::General, "vec=1"}, std::tuple{2, false, 4, Structure::Lower, "structure=lower"}})
    try {
      render_split_operand(planes, transpose, vec, structure, SplitPlanes::SmallOnly);
      ADD_FAILURE() << arg;
    } catch (const InvalidArgument& e) {
      EXPECT_NE(std::string(e.what()).find(arg), std::string::npos) << e.what();
    }
  // One CTA per 64 x 64 tile on or below the diagonal: 16 tiles a side for 1000 rows.
  EXPECT_EQ(split_operand_geometry(1000, 1024, true).grid_x, 16u * 17u / 2u);
  EXPECT_EQ(split_operand_geometry(1000, 1024, true).grid_y, 1u);
  for (auto [planes, vec, arg] : {std::tuple{3, 4, "planes=3"}, std::tuple{-1, 4, "planes=-1"}, std::tuple{2, 2, "vec=2"}})
    try {
      render_split_operand(planes, false, vec);
      ADD_FAILURE() << arg;
    } catch (const InvalidArgument& e) {
      EXPECT_NE(std::string(e.what()).find(arg), std::string::npos) << e.what();
    }
  const SplitOperandGeometry g = split_operand_geometry(1000, 4100);
  EXPECT_EQ(g.grid_x, 65u);
  EXPECT_EQ(g.grid_y, 16u);
  EXPECT_EQ(g.block_x, 256u);
  EXPECT_THROW(split_operand_geometry(0, 64), InvalidArgument);
  EXPECT_THROW(split_operand_geometry(64, 6), InvalidArgument);
}

}  // namespace
}  // namespace jitgemm
