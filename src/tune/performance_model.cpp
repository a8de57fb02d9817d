// estimate_time: the roofline of performance_model.hpp, family by family.
#include "tune/performance_model.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <queue>
#include <vector>

#include "codegen/kernel_family.hpp"
#include "codegen/simt_family.hpp"
#include "codegen/wgmma_family.hpp"
#include "exec/work_list.hpp"

namespace jitgemm {
namespace {

constexpr double kUnplaceable = 1e12;  // us: a config the model cannot place ranks last
constexpr double kSmemPerSm = 228.0 * 1024;
constexpr int kThreadsPerSm = 2048;
constexpr int kRegistersPerSm = 65536;
constexpr double kStageBarrierUs = 0.04;   // full / empty barriers and the wgmma fences of one stage
constexpr double kStreamKUnitUs = 0.05;    // the stream-K loop's bookkeeping per stage
constexpr double kConvertSlowdown = 2.5;   // B's plane written from inside the kernel, against a plain copy

int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

// The product as one kernel computes it: its M x N output (a swapped wgmma kernel's is the
// transposed product), K, and the triangles a work list follows.
struct KernelShape {
  int64_t m = 0, n = 0, k = 0;
  ProductTriangles triangles;
};

// What one tile costs on one SM (microseconds): each K unit, and once per tile (its epilogue,
// and for one-tile CTAs the pipeline fill).
struct TileCost {
  int block_m = 0, block_n = 0, unit_k = 0;
  double unit_us = 0;
  double tile_us = 0;
};

// How the tiles reach the SMs: `bins` workers (persistent CTAs, or SMs for one-tile CTAs)
// each taking items longest first; K cut into `split` pieces per tile, or with `stream_k` the
// units shared out evenly (a partial tile costs a fix-up of one more epilogue).
struct Dealing {
  int bins = 1;
  int split = 1;
  bool stream_k = false;
};

// The busiest worker's time: tiles (or pieces) dealt longest first to the least loaded.
// `work_share`: the share of the dense product's K units the tiles need (1 unless structured).
// Many items (more than kListedItemsPerBin per worker) are not dealt one by one: the busiest
// then carries the average load and about one of the last, smallest items.
constexpr int64_t kListedItemsPerBin = 4;

double makespan_us(const KernelShape& s, const TileCost& t, const Dealing& d, double* work_share) {
  *work_share = 1;
  const int64_t tiles_m = ceil_div(s.m, t.block_m), tiles_n = ceil_div(s.n, t.block_n);
  const int64_t k_units = ceil_div(s.k, t.unit_k);
  if (!s.triangles.any()) {
    // Stream-K with a tail: whole waves, then the tail's pieces round-robin, each with its
    // hand-over, the last one storing its tile. Without one it is data-parallel (below).
    const StreamKTail tail = d.stream_k ? stream_k_tail(tiles_m * tiles_n, d.bins, k_units, t.unit_k) : StreamKTail{};
    if (tail.pieces > 1) {
      const double tile_us = static_cast<double>(k_units) * t.unit_us + t.tile_us;
      const double piece_us =
          (static_cast<double>(k_units) / tail.pieces + stream_k_hand_over_units(t.unit_k)) * t.unit_us;
      return static_cast<double>(tail.whole_tiles / d.bins) * tile_us +
             static_cast<double>(ceil_div(tail.tail_tiles * tail.pieces, d.bins)) * piece_us + t.tile_us;
    }
    const int64_t items = tiles_m * tiles_n * d.split;
    const double item_us = static_cast<double>(ceil_div(k_units, d.split)) * t.unit_us + t.tile_us;
    return static_cast<double>(ceil_div(items, d.bins)) * item_us;
  }
  const WorkShape shape{s.m, s.n, s.k};
  const WorkTiling tiling{t.block_m, t.block_n, t.unit_k};
  const bool listed = tiles_m * tiles_n * d.split <= kListedItemsPerBin * d.bins;
  std::vector<double> items;
  int64_t needed = 0;
  double total = 0, largest = 0, smallest = std::numeric_limits<double>::infinity();
  for (int64_t i = 0; i < tiles_m; ++i)
    for (int64_t j = 0; j < tiles_n; ++j) {
      const int64_t units = tile_work(s.triangles, shape, tiling, i, j).units;
      needed += units;
      total += static_cast<double>(units) * t.unit_us + d.split * t.tile_us;
      largest = std::max(largest, static_cast<double>(ceil_div(units, d.split)) * t.unit_us + t.tile_us);
      smallest = std::min(smallest, static_cast<double>(units / d.split) * t.unit_us + t.tile_us);
      for (int p = 0; listed && p < d.split; ++p)
        items.push_back(static_cast<double>(units * (p + 1) / d.split - units * p / d.split) * t.unit_us + t.tile_us);
    }
  *work_share = static_cast<double>(needed) / static_cast<double>(std::max<int64_t>(1, tiles_m * tiles_n * k_units));
  if (!listed) return std::max(largest, total / d.bins + smallest);
  std::sort(items.begin(), items.end(), std::greater<>());
  std::priority_queue<double, std::vector<double>, std::greater<>> load;
  for (int b = 0; b < d.bins; ++b) load.push(0.0);
  for (double item : items) {
    const double least = load.top();
    load.pop();
    load.push(least + item);
  }
  double busiest = 0;
  for (; !load.empty(); load.pop()) busiest = load.top();
  return busiest;
}

// Bytes per microsecond.
double per_us(double gbps) { return gbps * 1e3; }
double flops_per_us_per_sm(double tflops, const DeviceModel& d) { return tflops * 1e6 / d.sm_count; }
double smem_bytes_per_us(const DeviceModel& d) { return d.smem_bytes_per_clock * d.clock_ghz * 1e3; }

// A smooth maximum of times that overlap (compute, L2, DRAM): the largest, plus a little of the rest.
double overlap(double a, double b, double c) {
  constexpr double p = 4;
  return std::pow(std::pow(a, p) + std::pow(b, p) + std::pow(c, p), 1 / p);
}

// Traffic of the product kernel: operands from L2 once per tile column / row (a CTA pair
// shares A's tile), from DRAM at least once; the output written once. A structured product
// reads only the K ranges its tiles need (`work_share` of the dense product's).
double memory_floor_us(const KernelShape& s, const TileCost& t, double a_bytes_per_elem, double b_bytes_per_elem,
                       int a_sharing, double work_share, const DeviceModel& d, double* l2_us) {
  const double a = static_cast<double>(s.m) * s.k * a_bytes_per_elem;
  const double b = static_cast<double>(s.k) * s.n * b_bytes_per_elem;
  const double c = static_cast<double>(s.m) * s.n * 4;
  const double tiles_m = static_cast<double>(ceil_div(s.m, t.block_m));
  const double tiles_n = static_cast<double>(ceil_div(s.n, t.block_n));
  *l2_us = (a * tiles_n / a_sharing + b * tiles_m) * work_share / per_us(d.l2_gbps);
  return ((a + b) * std::max(work_share, 0.5) + c) / per_us(d.dram_gbps);
}

// The pipeline keeps (stages - 1) stages of loads in flight; each covers `stage_us` of work
// on the SM (`resident` CTAs share it): less than a memory latency in flight stalls.
double pipeline_efficiency(int stages, double stage_us, int resident, const DeviceModel& d) {
  return std::min(1.0, (stages - 1) * stage_us * resident / d.memory_latency_us);
}

// Resident warps per scheduler hide latency: one CTA of 4 warps per SM (one a scheduler) is slower.
double occupancy_efficiency(int warps_per_sm) {
  return std::min(1.0, 0.5 + 0.25 * warps_per_sm / 4.0);
}

// CTAs of a one-tile-per-CTA kernel resident on one SM.
int resident_ctas(size_t smem_bytes, int threads, int registers) {
  const int by_smem = static_cast<int>(kSmemPerSm / static_cast<double>(smem_bytes + 1024));
  const int by_threads = kThreadsPerSm / std::max(threads, 1);
  const int by_registers = kRegistersPerSm / std::max(registers * threads, 1);
  return std::clamp(std::min({by_smem, by_threads, by_registers}), 1, 32);
}

// The split-K reduction of one-tile families: the partial sums read, the output written.
double split_reduction_us(const KernelShape& s, int split, const DeviceModel& d) {
  if (split <= 1) return 0;
  return (split + 1.0) * s.m * s.n * 4 / per_us(d.dram_gbps) + d.launch_us;
}

// One-tile-per-CTA families (SIMT, mma.sync): K along gridDim.y, resident CTAs share an SM.
TimeEstimate one_tile_kernel(const KernelConfig& c, const KernelShape& s, double unit_flops_us, int warps,
                             const DeviceModel& d) {
  const int threads = warps * 32;
  const int64_t ctas = c.output_tiles(s.m, s.n) * c.split_k;
  const int resident = static_cast<int>(std::min<int64_t>(
      resident_ctas(shared_memory_bytes(c), threads, estimated_registers(c)), ceil_div(ctas, d.sm_count)));
  TileCost t{c.block_m, c.block_n, c.block_k, 0, 0};
  t.unit_us = unit_flops_us / occupancy_efficiency(resident * warps);
  t.unit_us /= pipeline_efficiency(c.stages, t.unit_us, resident, d);
  // Per tile: the output written at the SM's share of DRAM, and a pipeline fill the other resident CTAs hide.
  t.tile_us = static_cast<double>(c.block_m) * c.block_n * 4 / (per_us(d.dram_gbps) / d.sm_count) +
              d.memory_latency_us / resident;
  double share = 1, l2_us = 0;
  const double busiest = makespan_us(s, t, {d.sm_count, c.split_k, false}, &share);
  const double dram_us = memory_floor_us(s, t, 4, 4, 1, share, d, &l2_us);
  TimeEstimate e;
  e.kernel_us = overlap(busiest, l2_us, dram_us) + d.launch_us;
  e.extra_us = split_reduction_us(s, c.split_k, d);
  return e;
}

TimeEstimate simt_estimate(const KernelConfig& c, const KernelShape& s, const DeviceModel& d) {
  const SimtParams& p = c.simt();
  const double fmas = static_cast<double>(p.thread_m) * p.thread_n;
  // Issue slots per k per thread: the FMAs, one LDS.128 per 4 fragment floats, and loop overhead.
  const double issue = fmas / (fmas + (p.thread_m + p.thread_n) / 4.0 + 1.5);
  const double stage = c.block_k * fmas / (c.block_k * fmas + 40);  // barrier and copy waits per stage
  const double flops = 2.0 * c.block_m * c.block_n * c.block_k;
  return one_tile_kernel(c, s, flops / (flops_per_us_per_sm(d.fp32_tflops, d) * issue * stage),
                         p.warps_m * p.warps_n, d);
}

TimeEstimate mma_sync_estimate(const KernelConfig& c, const KernelShape& s, const DeviceModel& d) {
  const MmaSyncParams& p = c.mma_sync();
  const int products = c.precision == Precision::TF32x3 ? 3 : 1;
  const double warp_m = static_cast<double>(c.block_m) / p.warps_m, warp_n = static_cast<double>(c.block_n) / p.warps_n;
  // Fragments loaded (ldmatrix) per product: the larger the warp tile, the fewer per multiply.
  const double fragments = warp_m * warp_n / (warp_m * warp_n + 8 * (warp_m + warp_n));
  const double blocks = p.acc_block_k > 0 ? p.acc_block_k / (p.acc_block_k + 4.0) : 1.0;
  const double flops = 2.0 * c.block_m * c.block_n * c.block_k * products;
  const double rate = flops_per_us_per_sm(d.tf32_tflops * d.mma_sync_share, d) * fragments * blocks;
  return one_tile_kernel(c, s, flops / rate, p.warps_m * p.warps_n, d);
}

// One stage (block_k of K) of the wgmma kernel on its SM: the tensor cores and the
// shared-memory traffic (wgmma reads, TMA and transform writes) overlap in part; the consumers'
// conversion of A in registers, the transform warps' rewrite of B (both measured on an H200:
// about 50 ps per B element transformed, 80 split in place), the tf32x3 block additions and
// the stage's barriers add to it; a pipeline too shallow for the memory latency stalls.
double wgmma_stage_us(const KernelConfig& c, const DeviceModel& d) {
  const WgmmaParams& w = c.wgmma();
  const bool x3 = c.precision == Precision::TF32x3;
  const int products = x3 ? 3 : 1, planes = x3 ? 2 : 1;
  const double bm = c.block_m, bn = c.block_n, bk = c.block_k;
  const double mma_us = 2 * bm * bn * bk * products / flops_per_us_per_sm(d.tf32_tflops, d);
  const double a_reads = w.a_in_registers() ? bm : products * bm;
  double smem_bytes = (a_reads + products * bn) * bk * 4;
  smem_bytes += ((w.a_in_registers() ? 1 : planes) * bm + planes * bn) * bk * 4;  // tiles arriving
  const double smem_us = smem_bytes / smem_bytes_per_us(d);
  const double alu_per_us = 128 * d.clock_ghz * 1e3;  // lane operations per microsecond per SM
  // Instructions per A value: tf32x3 splits finite values as the tensor cores read them (an FFMA
  // probe, the big part, FADD and the unmasked rounding of the small part; tf32/a_fragments.cuh).
  // tf32 mode rounds nothing in the kernel: its TMA copies round (exec/tensor_maps.hpp), so A in
  // registers costs no instruction and a K-major B read raw is ready as it lands.
  const double convert_ops = !x3 ? 0 : w.a == WgmmaA::Registers ? 5 : w.a == WgmmaA::RegistersTruncated ? 4 : 0;
  const double convert_us = bm * bk * convert_ops / alu_per_us;
  const double transform_us = w.b == WgmmaB::Transformed       ? bn * bk * 50e-6
                              : w.b == WgmmaB::Rounded && x3   ? bn * bk * 80e-6
                                                               : 0;
  // tf32x3 adds each block into the running sum (FP32, all consumer threads); a second buffer hides most of it.
  double accumulate_us = 0;
  if (x3) accumulate_us = (bk / std::max(w.acc_block_k, 8)) * bm * bn / alu_per_us * (w.acc_buffers == 2 ? 0.35 : 1.0);
  else if (w.acc_block_k > 0) accumulate_us = (bk / w.acc_block_k) * bm * bn / alu_per_us;
  double stage_us = std::hypot(mma_us, smem_us) + convert_us + transform_us + accumulate_us + kStageBarrierUs;
  if (w.consumers == 1) stage_us /= 0.8;  // one warpgroup leaves the tensor cores idle while it waits
  if (w.cluster > 1) stage_us += d.cluster_sync_us;
  if (w.schedule == TileSchedule::StreamK) stage_us += kStreamKUnitUs;
  return stage_us / pipeline_efficiency(c.stages, stage_us, 1, d);
}

// The persistent wgmma kernel: one CTA per SM walking tiles (or K pieces, or stream-K units);
// the operand pre-pass and the split-K reduction beside it.
TimeEstimate wgmma_estimate(const KernelConfig& c, const KernelShape& s, WgmmaBigPlanes in_place,
                            const DeviceModel& d) {
  const WgmmaParams& w = c.wgmma();
  const int planes = c.precision == Precision::TF32x3 ? 2 : 1;
  const int unit_k = c.block_k * wgmma_group_stages(c);
  const double bm = c.block_m, bn = c.block_n;
  const double stage_us = wgmma_stage_us(c, d);
  TileCost t{c.block_m, c.block_n, unit_k, stage_us * wgmma_group_stages(c), 0};
  t.tile_us = bm * bn * 4 / (per_us(d.dram_gbps) / d.sm_count) + 0.5;  // the epilogue's store
  const int64_t tiles = c.output_tiles(s.m, s.n);
  const int64_t work = w.schedule == TileSchedule::StreamK ? tiles * ceil_div(s.k, unit_k) : tiles * c.split_k;
  const int bins = static_cast<int>(std::max<int64_t>(1, std::min<int64_t>(work, d.sm_count / w.cluster * w.cluster)));
  double share = 1;
  const double busiest = makespan_us(s, t, {bins, c.split_k, w.schedule == TileSchedule::StreamK}, &share);

  // Operands the pre-pass writes as planes are read as planes (twice the bytes for tf32x3).
  const bool a_planes = !w.a_in_registers(), b_planes = w.b == WgmmaB::Planes;
  double l2_us = 0;
  const double dram_us =
      memory_floor_us(s, t, a_planes ? 4.0 * planes : 4, b_planes ? 4.0 * planes : 4, w.cluster, share, d, &l2_us);
  TimeEstimate e;
  e.kernel_us = overlap(busiest, l2_us, dram_us) + d.launch_us;
  // The pre-pass reads each plane-fed operand and writes its planes (not a big plane read in
  // place); B converted in the kernel writes its plane from inside (no launch).
  const double a_elems = static_cast<double>(s.m) * s.k, b_elems = static_cast<double>(s.k) * s.n;
  const int a_written = planes - (in_place.a ? 1 : 0), b_written = planes - (in_place.b ? 1 : 0);
  const double prepass_bytes =
      (a_planes ? a_elems * 4 * (1 + a_written) : 0) + (b_planes ? b_elems * 4 * (1 + b_written) : 0);
  if (prepass_bytes > 0) e.extra_us += prepass_bytes / per_us(d.dram_gbps) + d.launch_us;
  if (w.b == WgmmaB::Converted) e.kernel_us += b_elems * 8 * kConvertSlowdown / per_us(d.dram_gbps);
  if (c.split_k > 1) e.extra_us += split_reduction_us(s, c.split_k, d);
  return e;
}

}  // namespace

DeviceModel DeviceModel::hopper(int sm_count) {
  DeviceModel d;
  if (sm_count > 0) {
    d.fp32_tflops *= static_cast<double>(sm_count) / d.sm_count;
    d.tf32_tflops *= static_cast<double>(sm_count) / d.sm_count;
    d.sm_count = sm_count;
  }
  return d;
}

TimeEstimate estimate_time(const KernelConfig& config, const ProblemKey& key, const DeviceModel& device) {
  TimeEstimate e;
  if (key.m < 1 || key.n < 1 || key.k < 1 || device.sm_count < 1) {
    e.total_us = e.kernel_us = kUnplaceable;
    return e;
  }
  KernelShape shape{key.m, key.n, key.k, product_triangles(key)};
  switch (config.family()) {
    case KernelFamily::Simt: {
      // The tiles' part of C; edge strips run in the SMs their last wave leaves idle.
      const EdgeStrips strips = simt_edge_strips(key);
      shape.m = strips.m0, shape.n = strips.n0;
      e = simt_estimate(config, shape, device);
      break;
    }
    case KernelFamily::MmaSync:
      e = mma_sync_estimate(config, shape, device);
      break;
    case KernelFamily::Wgmma:
      if (config.wgmma().swap_ab) shape = {key.n, key.m, key.k, shape.triangles.swapped()};
      e = wgmma_estimate(config, shape, wgmma_big_planes_in_place(config, key), device);
      break;
  }
  e.total_us = e.kernel_us + e.extra_us;
  if (!std::isfinite(e.total_us)) e.total_us = e.kernel_us = kUnplaceable;
  return e;
}

}  // namespace jitgemm
