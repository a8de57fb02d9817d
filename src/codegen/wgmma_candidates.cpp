// The wgmma (tf32x3, tf32) candidate space, its static pruning, sample and default.
#include "codegen/wgmma_candidates.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <bit>

#include "jitgemm/error.hpp"

namespace jitgemm {
namespace {

constexpr int kSmemAlign = 1024;        // SMEM_ALIGN: the 128-byte swizzle atom
constexpr int kMaxStages = 8;           // deeper rings gain nothing at >= 64 K per stage group
constexpr int kMinKInFlight = 64;       // stages * block_k of every candidate
constexpr int kMaxSumBlocks = 64;
constexpr int64_t kStreamKWave = 132;   // SMs of an H100/H200 SXM: CTAs per wave of a persistent kernel

bool is_x3(const KernelConfig& c) { return c.family == KernelFamily::WgmmaTf32x3; }
int planes(const KernelConfig& c) { return is_x3(c) ? 2 : 1; }


bool one_of(int v, std::initializer_list<int> allowed) {
  return std::find(allowed.begin(), allowed.end(), v) != allowed.end();
}

KernelFamily family_for(const ProblemKey& key, std::string_view where) {
  if (key.precision == Precision::TF32x3) return KernelFamily::WgmmaTf32x3;
  if (key.precision == Precision::TF32) return KernelFamily::WgmmaTf32;
  throw NotSupported(fmt::format("{}: precision {} has no wgmma family (tf32x3 and tf32 only)", where,
                                 to_string(key.precision)));
}

KernelConfig wgmma(KernelFamily family, int bn, int bk, int stages, int acc_block_k, int acc_buffers = 1,
                   int sum_blocks = 0) {
  KernelConfig c;  // SIMT-only fields keep their defaults
  c.family = family;
  c.consumers = 2;
  c.block_m = 64 * c.consumers;
  c.block_n = bn, c.block_k = bk, c.stages = stages;
  c.acc_block_k = acc_block_k, c.acc_buffers = acc_buffers, c.sum_blocks = sum_blocks;
  c.raster_group = 8;
  return c;
}

KernelConfig in_registers(KernelConfig c, int round, int swap) {
  c.a_in_registers = 1, c.a_round = round, c.swap_ab = swap;
  return c;
}

KernelConfig converting(KernelConfig c) {
  c.convert_b = 1;
  return c;
}

KernelConfig transforming(KernelConfig c) {
  c.transform_b = 1;
  return c;
}

KernelConfig streaming(KernelConfig c) {
  c.stream_k = 1;
  return c;
}

KernelConfig single_consumer(KernelConfig c) {
  c.consumers = 1;
  c.block_m = 64;
  return c;
}

KernelConfig paired(KernelConfig c) {
  c.cluster = 2;
  return c;
}

// The largest ring that fits `limits` (at most kMaxStages).
int max_stages(const KernelConfig& tile, const StaticLimits& limits) {
  KernelConfig c = tile;
  int stages = 1;
  for (c.stages = 2; c.stages <= kMaxStages && wgmma_shared_memory_bytes(c) <= limits.max_smem_bytes; ++c.stages)
    stages = c.stages;
  return stages;
}

// Rules that name() uniqueness and the template need beyond its static_asserts.
std::string unused_fields_problem(const KernelConfig& c) {
  const KernelConfig d;
  if (c.warps_m != d.warps_m || c.warps_n != d.warps_n || c.thread_m != d.thread_m || c.thread_n != d.thread_n)
    return fmt::format("warps {}x{} / thread tile {}x{} are SIMT fields and must keep their defaults {}x{} / {}x{}",
                       c.warps_m, c.warps_n, c.thread_m, c.thread_n, d.warps_m, d.warps_n, d.thread_m, d.thread_n);
  if (c.split_k != 1) return fmt::format("split_k={}: split-K is SIMT-only (1 here)", c.split_k);
  if (!is_x3(c) && (c.acc_buffers != 1 || c.sum_blocks != 0))
    return fmt::format("acc_buffers={} sum_blocks={}: tf32 reads neither (1 and 0 here)", c.acc_buffers, c.sum_blocks);
  return {};
}

// The template's static_asserts on shapes and accumulation blocks, in its order.
std::string shape_problem(const KernelConfig& c) {
  if (!one_of(c.consumers, {1, 2})) return fmt::format("consumers={} is not 1 or 2", c.consumers);
  if (c.block_m != 64 * c.consumers)
    return fmt::format("block_m={} is not 64 x consumers ({})", c.block_m, 64 * c.consumers);
  if (!one_of(c.block_n, {64, 96, 128, 160, 192, 256}))
    return fmt::format("block_n={} is not a wgmma width (64, 96, 128, 160, 192, 256)", c.block_n);
  if (!one_of(c.block_k, {16, 32, 64, 128})) return fmt::format("block_k={} is not 16, 32, 64 or 128", c.block_k);
  if (is_x3(c)) {
    if (c.acc_block_k < 8 || c.acc_block_k % 8 != 0)
      return fmt::format("acc_block_k={} is not a multiple of the k8 step", c.acc_block_k);
    if (c.block_k % c.acc_block_k != 0 && c.acc_block_k % c.block_k != 0)
      return fmt::format("acc_block_k={} neither divides nor is a multiple of block_k={}", c.acc_block_k, c.block_k);
  } else if (c.acc_block_k < 0 || c.acc_block_k % c.block_k != 0) {
    return fmt::format("tf32 acc_block_k={} is not 0 or a multiple of block_k={}", c.acc_block_k, c.block_k);
  }
  if (!one_of(c.acc_buffers, {1, 2})) return fmt::format("acc_buffers={} is not 1 or 2", c.acc_buffers);
  if (c.sum_blocks < 0 || c.sum_blocks > kMaxSumBlocks)
    return fmt::format("sum_blocks={} is outside 0..{}", c.sum_blocks, kMaxSumBlocks);
  const int ring = (is_x3(c) ? c.acc_buffers : 2) * wgmma_group_stages(c);
  if (c.stages < 2 || c.stages < ring)
    return fmt::format("stages={} below the {} the consumers hold at once (and 2)", c.stages, std::max(ring, 2));
  if (c.raster_group < 1) return fmt::format("raster_group={} is below 1", c.raster_group);
  if (!one_of(c.a_in_registers, {0, 1}) || !one_of(c.a_round, {0, 1}) || !one_of(c.swap_ab, {0, 1}))
    return fmt::format("a_in_registers={} a_round={} swap_ab={}: each is 0 or 1", c.a_in_registers, c.a_round,
                       c.swap_ab);
  if (c.a_in_registers == 0 && (c.a_round != 1 || c.swap_ab != 0))
    return fmt::format("a_round={} swap_ab={} describe an A in registers (a_in_registers=0 here: 1 and 0)", c.a_round,
                       c.swap_ab);
  if (c.convert_b != 0 && (c.a_in_registers == 0 || is_x3(c) || c.block_k > 64))
    return fmt::format("convert_b=1 needs tf32 with A in registers and block_k <= 64 (one 64-K chunk per stage)");
  if (!one_of(c.convert_b, {0, 1})) return fmt::format("convert_b={} is not 0 or 1", c.convert_b);
  if (!one_of(c.transform_b, {0, 1})) return fmt::format("transform_b={} is not 0 or 1", c.transform_b);
  if (c.transform_b != 0 && (c.a_in_registers == 0 || c.convert_b != 0 || c.cluster != 1))
    return fmt::format("transform_b=1 needs A in registers, no convert_b and no CTA pair (cluster={})", c.cluster);
  if (!one_of(c.stream_k, {0, 1})) return fmt::format("stream_k={} is not 0 or 1", c.stream_k);
  if (!one_of(c.cluster, {1, 2})) return fmt::format("cluster={} is not 1 or 2", c.cluster);
  if (c.cluster > 1 && (c.stream_k != 0 || c.convert_b != 0))
    return fmt::format("cluster={} walks whole tiles with B from a pre-pass (not with stream_k or convert_b)", c.cluster);
  if (c.a_in_registers != 0 && c.block_k % 32 != 0)
    return fmt::format("block_k={}: a raw A in registers is read as 128-byte rows of 32 floats", c.block_k);
  if ((c.block_m * c.block_k * 4) % kSmemAlign != 0 || ((c.block_m + c.block_n) * c.block_k * 4) % kSmemAlign != 0)
    return fmt::format("operand tiles {}x{} / {}x{} floats do not start on 1024-byte swizzle atoms", c.block_m,
                       c.block_k, c.block_n, c.block_k);
  return {};
}

}  // namespace

SetmaxnregBudget wgmma_register_budget(const KernelConfig& c) {
  if (c.transform_b != 0) return {kWgmmaTransformProducerRegs, kWgmmaTransformConsumerRegs};
  return {kWgmmaProducerRegs, kWgmmaConsumerRegs};
}

int wgmma_group_stages(const KernelConfig& c) {
  return is_x3(c) && c.acc_block_k > c.block_k ? c.acc_block_k / c.block_k : 1;
}

size_t wgmma_shared_memory_bytes(const KernelConfig& c) {
  const size_t a_planes = c.a_in_registers != 0 ? 1 : static_cast<size_t>(planes(c));  // RS: one raw A tile
  // transform_b: the raw B tile beside its planes.
  const size_t b_tiles = static_cast<size_t>(planes(c) + c.transform_b);
  const size_t stage = (a_planes * c.block_m + b_tiles * c.block_n) * c.block_k * sizeof(float);
  const size_t convert_tile = c.convert_b != 0 ? 64 * 68 * sizeof(float) + 16 : 0;  // CONVERT_SMEM_BYTES
  // full and empty barriers; transform_b adds ready barriers and a non-finite word (8 bytes each).
  const size_t barriers = (c.transform_b != 0 ? 32 : 16) * static_cast<size_t>(c.stages);
  return kSmemAlign + static_cast<size_t>(c.stages) * stage + barriers + convert_tile;
}

int wgmma_consumer_registers(const KernelConfig& c) {
  const int blocks = is_x3(c) ? c.acc_buffers + (c.sum_blocks > 0 ? 1 : 0) : (c.acc_block_k > 0 ? 1 : 0);
  // RS: the A fragments (A_FRAGMENT_REGS of the template).
  const int fragments = c.a_in_registers == 0 ? 0 : is_x3(c) ? 8 * (c.acc_block_k / 8) * c.acc_buffers : c.block_k;
  return (1 + blocks) * (c.block_n / 2) + fragments + 24;
}

bool wgmma_statically_valid(const KernelConfig& c, const StaticLimits& limits, std::string* why) {
  auto reject = [&](std::string reason) {
    if (why != nullptr) *why = std::move(reason);
    return false;
  };
  if (!is_wgmma(c.family)) return reject(fmt::format("family {} is not a wgmma family", to_string(c.family)));
  if (std::string p = unused_fields_problem(c); !p.empty()) return reject(std::move(p));
  if (std::string p = shape_problem(c); !p.empty()) return reject(std::move(p));
  const SetmaxnregBudget regs = wgmma_register_budget(c);
  const int budget = c.consumers > 1 ? regs.consumer : limits.max_registers_per_thread;
  if (wgmma_consumer_registers(c) > budget)
    return reject(fmt::format("running sum and block accumulators need {} registers, over the consumer budget {}",
                              wgmma_consumer_registers(c), budget));
  if (c.consumers > 1 && regs.producer * 128 + regs.consumer * 128 * c.consumers > limits.registers_per_sm)
    return reject("setmaxnreg budgets exceed the register file");
  if (c.threads() > limits.max_threads)
    return reject(fmt::format("{} threads exceed {}", c.threads(), limits.max_threads));
  const size_t smem = wgmma_shared_memory_bytes(c);
  if (smem > limits.max_smem_bytes)
    return reject(fmt::format("shared memory {} B exceeds {} B", smem, limits.max_smem_bytes));
  if (is_x3(c) && c.block_k == 32 && c.acc_block_k == 16 && c.acc_buffers == 2)
    return reject("block_k 32 with acc_block_k 16 and 2 accumulators spills");
  if (is_x3(c) && c.sum_blocks > 0 && c.block_n >= 128)
    return reject(fmt::format("sum_blocks > 0 at block_n={} spills", c.block_n));
  if (is_x3(c) && c.sum_blocks > 0 && c.acc_buffers == 2)
    return reject("sum_blocks > 0 with 2 accumulators spills");
  if (c.convert_b != 0 && c.stream_k != 0 && c.block_n == 192)
    return reject("convert_b with stream_k at block_n=192 spills");
  if (c.convert_b != 0 && c.swap_ab != 0 && c.block_n <= 128 && c.acc_block_k > 0)
    return reject("convert_b swapped at block_n<=128 with FP32 blocks spills (transposed source)");
  if (is_x3(c) && c.cluster > 1 && c.a_in_registers != 0 && c.block_n >= 192)
    return reject(fmt::format("cluster={} with A in registers at block_n={} spills", c.cluster, c.block_n));
  if (is_x3(c) && c.a_in_registers != 0 && (c.acc_buffers == 2 || c.sum_blocks > 0))
    return reject("A in registers with 2 accumulators (and two fragment sets) or sum_blocks > 0 spills");
  return true;
}

std::vector<KernelConfig> wgmma_candidate_space(const ProblemKey& key, const StaticLimits& limits) {
  const KernelFamily family = family_for(key, "candidate_space");
  const bool x3 = family == KernelFamily::WgmmaTf32x3;
  const bool long_k = key.k > kWgmmaLongK;
  const std::vector<int> widths = x3 ? std::vector<int>{96, 128, 192} : std::vector<int>{128, 192, 256};
  const int64_t max_bn = std::max<int64_t>(
      widths.front(), static_cast<int64_t>(std::bit_ceil(static_cast<uint64_t>(std::max<int64_t>(key.n, 1)))));
  std::vector<KernelConfig> out;
  auto add = [&](const KernelConfig& c) {
    if (statically_valid(c, limits, nullptr)) out.push_back(c);
  };
  for (int bn : widths) {
    if (bn > max_bn) continue;
    if (x3) {
      for (int bk : {16, 32}) {
        const int top = max_stages(wgmma(family, bn, bk, 2, 32), limits);
        for (int stages = std::max(2, kMinKInFlight / bk); stages <= top; ++stages)
          for (int acc : {16, 32})
            for (int buffers : {1, 2})
              for (int sum : {0, 16})
                if (sum == 0 || long_k) add(wgmma(family, bn, bk, stages, acc, buffers, sum));
      }
    } else {
      const int top = std::min(6, max_stages(wgmma(family, bn, 32, 2, 0), limits));
      for (int stages = 4; stages <= top; ++stages)
        for (int acc : {0, 256, 1024})
          if (acc == 0 || key.k > acc) add(wgmma(family, bn, 32, stages, acc));
    }
  }
  // A in registers (RS), for every plane-fed candidate with 32 K per stage: read in place
  // from whichever operand TMA can take there (16-byte aligned, ld % 4 == 0), unswapped (A)
  // or swapped (B); tf32x3 also with A's big part truncated instead of rounded.
  const size_t plane_fed = out.size();
  for (size_t i = 0; i < plane_fed; ++i) {
    if (out[i].block_k != 32) continue;
    for (int swap : {0, 1})
      for (int round : {1, 0}) {
        if (round == 0 && (!x3 || swap)) continue;
        const KernelConfig c = in_registers(out[i], round, swap);
        if (wgmma_runs_in_place(c, key)) add(c);
      }
  }
  // tf32 with A in registers: also with B's plane written by the kernel itself (no pre-pass).
  const size_t in_registers_end = out.size();
  for (size_t i = plane_fed; i < in_registers_end; ++i) {
    if (x3) break;
    KernelConfig c = out[i];
    c.convert_b = 1;
    add(c);
  }
  // Both operands MN-major (A.T @ B, or swapped A @ B): with A in registers, B also read raw and
  // rewritten K-major in shared memory by the transform warps (no pre-pass), as deep a ring as
  // fits beside the raw B tile.
  const size_t converting_end = out.size();
  for (size_t i = plane_fed; i < converting_end; ++i) {
    if (out[i].convert_b != 0) continue;
    KernelConfig c = transforming(out[i]);
    c.stages = std::min(c.stages, max_stages(c, limits));
    if (!wgmma_runs_in_place(c, key) || std::find(out.begin(), out.end(), c) != out.end()) continue;
    add(c);
  }
  // Launch order: every candidate groups 8 tile rows; the widest tf32 tiles with A in
  // registers (the fastest measured) also try 4 and 16 (which panels of A and B the CTAs of one
  // wave share in L2).
  const size_t grouped = out.size();
  for (size_t i = 0; i < grouped; ++i) {
    if (x3 || out[i].a_in_registers == 0 || out[i].block_n != 256) continue;
    for (int group : {4, 16}) {
      KernelConfig c = out[i];
      c.raster_group = group;
      add(c);
    }
  }
  // CTA pairs sharing A's tile (TMA multicast): every candidate with B from a pre-pass, on
  // problems of at least two tiles along N.
  const size_t unpaired = out.size();
  for (size_t i = 0; i < unpaired; ++i)
    if (out[i].convert_b == 0 && out[i].transform_b == 0 && key.n > out[i].block_n) add(paired(out[i]));
  // One consumer warpgroup (64-row tiles), for problems whose 128-row tiles fill less than two
  // waves of the largest Hopper parts: twice the tiles keep more SMs busy.
  const int64_t tiles_128 = (key.m + 127) / 128 * ((key.n + 127) / 128);
  if (tiles_128 < 2 * kStreamKWave) {
    const size_t two_consumers = out.size();
    for (size_t i = 0; i < two_consumers; ++i)
      if (out[i].cluster == 1 && out[i].convert_b == 0 && out[i].raster_group == 8) add(single_consumer(out[i]));
  }
  // Tile schedule: every candidate also with the stream-K tail, where its tiles leave the last
  // wave of the largest Hopper parts (132 SMs) partly empty.
  const size_t scheduled = out.size();
  for (size_t i = 0; i < scheduled; ++i) {
    const int64_t tiles = ((key.m + out[i].block_m - 1) / out[i].block_m) * ((key.n + out[i].block_n - 1) / out[i].block_n);
    if (tiles % kStreamKWave != 0 && out[i].cluster == 1) add(streaming(out[i]));
  }
  sort_by_name(out);
  return out;
}

std::vector<KernelConfig> wgmma_representative_sample(const ProblemKey& key) {
  const KernelFamily f = family_for(key, "representative_sample");
  std::vector<KernelConfig> sample;
  if (f == KernelFamily::WgmmaTf32)
    sample = {
        wgmma(f, 256, 32, 4, 0),     // the default: one product, tensor cores accumulate all of K
        wgmma(f, 128, 32, 6, 0),     // the default for N <= 128
        wgmma(f, 128, 32, 6, 256),   // the long-K default: FP32-added blocks of 256
        wgmma(f, 192, 32, 5, 1024),  // blocks of 1024 (32 stages each), 5 stages, 201 KiB
        in_registers(wgmma(f, 256, 32, 4, 0), 1, 0),     // A in registers, the widest tile
        in_registers(wgmma(f, 128, 32, 6, 256), 1, 1),   // swapped, blocked
        converting(in_registers(wgmma(f, 256, 32, 4, 0), 1, 0)),    // B's plane written in the kernel
        converting(in_registers(wgmma(f, 128, 32, 5, 0), 1, 1)),    // the same, swapped, narrower
        streaming(in_registers(wgmma(f, 256, 32, 4, 0), 1, 0)),     // the stream-K tail
        streaming(wgmma(f, 128, 32, 6, 256)),                       // the same, plane-fed, blocked
        paired(in_registers(wgmma(f, 256, 32, 4, 0), 1, 0)),        // a CTA pair sharing A (multicast)
        paired(in_registers(wgmma(f, 128, 32, 6, 0), 1, 1)),        // the same, swapped
        single_consumer(in_registers(wgmma(f, 256, 32, 5, 0), 1, 0)),  // one consumer warpgroup, 64 x 256
        transforming(in_registers(wgmma(f, 192, 32, 3, 0), 1, 0)),     // B made K-major in shared memory
        transforming(in_registers(wgmma(f, 128, 32, 4, 256), 1, 1)),   // the same, swapped, blocked
        streaming(transforming(in_registers(wgmma(f, 256, 32, 2, 0), 1, 0))),  // the same, 2 stages, stream-K
    };
  else
    sample = {
      wgmma(f, 128, 32, 3, 32, 1),       // the default
      wgmma(f, 128, 32, 3, 32, 2),       // double-buffered blocks
      wgmma(f, 96, 32, 3, 32, 1, 16),    // the long-K default: two-level running sum
      wgmma(f, 96, 32, 3, 32, 1),        // the default for N <= 96
      wgmma(f, 192, 32, 2, 32, 1),       // the widest tile, 2 stages
      wgmma(f, 128, 16, 6, 32, 2),       // blocks spanning two stages (GROUP_STAGES = 2)
      wgmma(f, 96, 32, 4, 16, 1),        // two blocks per stage; 231 KiB, the most shared memory
      in_registers(wgmma(f, 128, 32, 4, 32, 1), 1, 0),  // A in registers
      in_registers(wgmma(f, 128, 32, 4, 32, 1), 0, 0),  // truncated big part
      in_registers(wgmma(f, 96, 32, 4, 16, 1), 1, 1),   // swapped, two blocks per stage
      streaming(wgmma(f, 128, 16, 6, 32, 2)),           // the stream-K tail, units of two stages
      streaming(in_registers(wgmma(f, 128, 32, 4, 32, 1), 1, 0)),  // the same, A in registers
      paired(wgmma(f, 128, 32, 3, 32, 1)),                        // a CTA pair sharing A (multicast)
      paired(in_registers(wgmma(f, 128, 32, 4, 32, 1), 0, 0)),       // the same, A in registers, truncated
      paired(wgmma(f, 96, 16, 6, 32, 2)),                          // the same, 16 K per stage (64-byte swizzle)
      single_consumer(wgmma(f, 128, 32, 4, 32, 1)),                // one consumer warpgroup, 64 x 128
      transforming(in_registers(wgmma(f, 128, 32, 3, 32, 1), 1, 0)),  // B split into planes in shared memory
      transforming(in_registers(wgmma(f, 96, 32, 3, 16, 1), 1, 1)),   // the same, swapped, two blocks per stage
      single_consumer(transforming(in_registers(wgmma(f, 128, 32, 3, 32, 1), 0, 0))),  // 64 x 128, truncated
    };
  std::erase_if(sample, [&](const KernelConfig& c) { return !wgmma_runs_in_place(c, key); });
  return sample;
}

bool wgmma_runs_in_place(const KernelConfig& c, const ProblemKey& key) {
  if (c.a_in_registers == 0) return true;
  const bool a_ok = (c.swap_ab != 0 ? key.vec_b : key.vec_a) == 4;
  const bool b_ok = c.transform_b == 0 || ((c.swap_ab != 0 ? key.vec_a : key.vec_b) == 4 &&
                                           transformed_operand_mn_major(c, key.trans_a, key.trans_b));
  return a_ok && b_ok;
}

KernelConfig wgmma_default_config(const ProblemKey& key) {
  const KernelFamily f = family_for(key, "default_config");
  const bool long_k = key.k > kWgmmaLongK;
  if (f == KernelFamily::WgmmaTf32) {
    // 128x256 is the fastest measured; it cannot be blocked (registers), long K takes 128x128
    // with blocks of 256 (passed the H200 correctness runs where 128x256 failed at K = 4100).
    if (long_k) return wgmma(f, 128, 32, 6, 256);
    return key.n > 128 ? wgmma(f, 256, 32, 4, 0) : wgmma(f, 128, 32, 6, 0);
  }
  // 128x128x32, 3 stages, blocks of 32, one accumulator: the fastest measured. Long K needs
  // the two-level sum, which spills at 128 columns: 128x96 then.
  if (long_k || key.n <= 96) return wgmma(f, 96, 32, 3, 32, 1, long_k ? 16 : 0);
  return wgmma(f, 128, 32, 3, 32, 1);
}

}  // namespace jitgemm
