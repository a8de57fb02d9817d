// performance_model.hpp — a static estimate of a candidate's time on a problem, for ranking
// candidates before anything is compiled (tune/candidate_ranking.hpp). A roofline over one
// SM: the tile's arithmetic against the issue, shared-memory and pipeline limits of its
// family, the tiles (or K pieces) dealt over the SMs (wave and edge quantization, the K range
// each tile of a structured product needs), the operands' traffic through L2 and DRAM, and the
// kernels beside the product (the wgmma operand pre-pass, the split-K reduction). Only the
// order among one problem's candidates matters; the figures are not a prediction to quote.
//
//   const DeviceModel device = DeviceModel::hopper(info.sm_count);
//   double us = estimate_time(config, key, device).total_us;
#pragma once

#include "codegen/kernel_config.hpp"
#include "problem/problem_key.hpp"

namespace jitgemm {

// What the model knows of the device: Hopper (H100 / H200 SXM) figures, SM count from the device.
struct DeviceModel {
  int sm_count = 132;
  double clock_ghz = 1.75;       // sustained under load
  double fp32_tflops = 56.0;     // FP32 FMA, whole device
  double tf32_tflops = 495.0;    // dense TF32 tensor cores through wgmma, whole device
  double mma_sync_share = 0.6;   // of that, what warp-level mma.sync reaches
  double smem_bytes_per_clock = 128;  // per SM
  double dram_gbps = 4000;       // sustained
  double l2_gbps = 20000;        // L2 to SMs, whole device (an H200 fed 8.8 TB/s to a tf32 4096^3 product)
  double memory_latency_us = 1.2;     // a load in flight from L2 / DRAM to shared memory
  double launch_us = 4;               // per kernel launch of a run
  double cluster_sync_us = 0.35;       // per stage, for a CTA pair's shared barrier

  static DeviceModel hopper(int sm_count);  // sm_count <= 0: 132
};

struct TimeEstimate {
  double kernel_us = 0;  // the product kernel
  double extra_us = 0;   // pre-passes and the split-K reduction, with their launches
  double total_us = 0;
};

// Never throws for a config of the problem's candidate space; a config the model cannot place
// (no tiles) gets a huge estimate.
TimeEstimate estimate_time(const KernelConfig& config, const ProblemKey& key, const DeviceModel& device);

}  // namespace jitgemm
