// The K split of the SIMT and mma.sync families and the helpers their candidate spaces share.
#include "codegen/split_k_policy.hpp"

#include <algorithm>
#include <bit>

#include "codegen/kernel_family.hpp"

namespace jitgemm {
namespace {

// K per slice the default split aims at: 32 for small outputs (whose single sums show every
// rounding; the workspace is tiny), 128 otherwise.
constexpr int64_t kSmallOutput = int64_t{1} << 16;
// The wave-filling splits are added where the default launches at most this many waves.
constexpr int64_t kWaveFillingMaxWaves = 8;

int64_t split_k_chunk(const ProblemKey& key) { return key.m * key.n <= kSmallOutput ? 32 : 128; }

// Whether `split` slices fit the workspace bound and each holds at least one block_k.
bool split_fits(const ProblemKey& key, const KernelConfig& tile, int64_t split) {
  return split_workspace_fits(key, split) && (key.k + split - 1) / split >= tile.block_k;
}

// The splits nearest below and above `split` whose CTAs (with `tiles` output tiles) fill whole
// waves of kLargestHopperSms, where `split` makes from 1 to kWaveFillingMaxWaves waves: every
// SM then gets as many slices (largeK fp32, 64 x 256 tiles on an H200: 128 slices are 3.9
// CTAs per SM, 1.421 ms; 99 and 132 are 3 and 4, 1.390 and 1.388 ms). Empty elsewhere.
std::vector<int64_t> wave_filling_splits(int64_t tiles, int64_t split) {
  const int64_t ctas = tiles * split;
  if (ctas < kLargestHopperSms || ctas > kWaveFillingMaxWaves * kLargestHopperSms) return {};
  const int64_t waves = ctas / kLargestHopperSms;
  return {waves * kLargestHopperSms / tiles, (waves + 1) * kLargestHopperSms / tiles};
}

// The power of two nearest above K / chunk, halved until it fits (the header's rule).
int power_of_two_split(const ProblemKey& key, const KernelConfig& tile) {
  const int64_t chunk = split_k_chunk(key);
  int split = static_cast<int>(std::min<int64_t>(
      kMaxSplitK, static_cast<int64_t>(std::bit_ceil(static_cast<uint64_t>((key.k + chunk - 1) / chunk)))));
  while (split > 1 && !split_fits(key, tile, split)) split /= 2;
  return split;
}

}  // namespace

int default_split_k(const ProblemKey& key, const KernelConfig& tile) {
  const int split = power_of_two_split(key, tile);
  // A split of at least 2 moves to the whole-wave split above it where that fits, else to the
  // one below it (a slice runs a little longer: the contract's margin allows it, the largeK
  // fp32 error went from 7.9e-8 at 128 slices to 1.2e-7 at 99, cuBLAS 1.8e-7).
  if (split < 2) return split;
  const std::vector<int64_t> fill = wave_filling_splits(tile.output_tiles(key.m, key.n), split);
  for (auto it = fill.rbegin(); it != fill.rend(); ++it)
    if (*it >= 2 && *it <= kMaxSplitK && split_fits(key, tile, *it)) return static_cast<int>(*it);
  return split;
}

KernelConfig with_default_split_k(KernelConfig tile, const ProblemKey& key) {
  tile.split_k = default_split_k(key, tile);
  return tile;
}

std::vector<int> split_k_choices(const ProblemKey& key, const KernelConfig& tile) {
  const int d = power_of_two_split(key, tile);
  std::vector<int> splits;
  // Half, equal to and twice the rule's power of two; where that splits 8 or more ways, 2 and 4
  // too: mid-size products (1537^3 on an H200) may meet the contract with a short split, which
  // writes and adds a fraction of the default's partial products (the default's half, 8, won
  // there at 0.243 ms vs cuBLAS 0.205).
  std::vector<int> wanted = {d / 2, d, 2 * d};
  if (d >= 8) wanted.insert(wanted.begin(), {2, 4});
  // And beside each of those three, the splits that fill the whole waves of CTAs nearest below
  // and above it, where that is a few waves: a last wave partly empty idles a share of the SMs.
  for (int b : {d / 2, d, 2 * d})
    if (b >= 2)
      for (int64_t s : wave_filling_splits(tile.output_tiles(key.m, key.n), b))
        if (s >= 2 && s <= kMaxSplitK) wanted.push_back(static_cast<int>(s));
  std::sort(wanted.begin(), wanted.end());
  for (int s : wanted)
    if (s >= 2 && s <= kMaxSplitK && split_fits(key, tile, s) && (splits.empty() || s > splits.back()))
      splits.push_back(s);
  return splits;
}

void append_with_splits(std::vector<KernelConfig>& out, const ProblemKey& key, KernelConfig tile) {
  out.push_back(tile);
  for (int split : split_k_choices(key, tile)) {
    tile.split_k = split;
    out.push_back(tile);
  }
}

void sort_by_name(std::vector<KernelConfig>& configs) {
  std::sort(configs.begin(), configs.end(),
            [](const KernelConfig& a, const KernelConfig& b) { return a.name() < b.name(); });
}

int64_t tile_limit(int64_t extent) {
  return std::max<int64_t>(64, static_cast<int64_t>(std::bit_ceil(static_cast<uint64_t>(std::max<int64_t>(extent, 1)))));
}

}  // namespace jitgemm
