// The tuning worker protocol: framing across arbitrary chunks, every message round trip,
// failures rethrown as the type the worker caught.
#include "tune/worker_protocol.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>

#include "jitgemm/error.hpp"

namespace jitgemm::worker {
namespace {

KernelConfig simt_config() {
  KernelConfig c = KernelConfig::parse("simt_fp32_64x128x16_w1x4_t8x8_s3_k1_g8");
  return c;
}

TEST(WorkerProtocol, FramesSurviveAnyChunking) {
  const json first = {{"type", "ready"}, {"x", 1}};
  const json second = {{"type", "verdict"}, {"blob", json::binary_t(std::vector<uint8_t>(100000, 7))}};
  std::vector<uint8_t> bytes = encode_frame(first);
  const std::vector<uint8_t> tail = encode_frame(second);
  bytes.insert(bytes.end(), tail.begin(), tail.end());
  for (size_t chunk : {size_t{1}, size_t{3}, size_t{4096}, bytes.size()}) {
    FrameDecoder decoder;
    std::vector<json> got;
    for (size_t at = 0; at < bytes.size(); at += chunk) {
      decoder.feed(bytes.data() + at, std::min(chunk, bytes.size() - at));
      while (auto m = decoder.next()) got.push_back(*m);
    }
    ASSERT_EQ(got.size(), 2u) << "chunk " << chunk;
    EXPECT_EQ(got[0], first);
    EXPECT_EQ(got[1], second);
  }
}

TEST(WorkerProtocol, OversizeAndGarbageFramesAreErrors) {
  FrameDecoder oversize;
  const uint8_t huge[4] = {0xff, 0xff, 0xff, 0xff};
  oversize.feed(huge, 4);
  EXPECT_THROW(oversize.next(), Error);
  FrameDecoder garbage;
  const uint8_t frame[6] = {2, 0, 0, 0, 0xff, 0xff};  // 2 bytes that are not CBOR
  garbage.feed(frame, sizeof frame);
  EXPECT_THROW(garbage.next(), Error);
}

TEST(WorkerProtocol, SetupRoundTrips) {
  WorkerSetup s;
  s.problem.m = 256, s.problem.n = 128, s.problem.k = 4096;
  s.problem.trans_a = Op::T, s.problem.ldb = 132, s.problem.alpha = -0.5f, s.problem.beta = 0.25f;
  s.problem.structure_a = Structure::Lower, s.problem.fill = Fill::Lower, s.problem.precision = Precision::TF32x3;
  s.settings = {12345678901234ull, 2, 21};
  s.device = 1, s.template_dir = "/tmp/t", s.cache_dir = "/tmp/c";
  const WorkerSetup back = parse_setup(json::from_cbor(json::to_cbor(setup_message(s))));
  EXPECT_EQ(back.problem.to_string(), s.problem.to_string());
  EXPECT_EQ(back.problem.structure_a, Structure::Lower);
  EXPECT_EQ(back.problem.fill, Fill::Lower);
  EXPECT_EQ(back.settings.seed, s.settings.seed);
  EXPECT_EQ(back.settings.timing_runs, 21);
  EXPECT_EQ(back.device, 1);
  EXPECT_EQ(back.template_dir, "/tmp/t");
  EXPECT_EQ(back.cache_dir, "/tmp/c");
}

TEST(WorkerProtocol, MeasureCarriesTheCubinBytes) {
  const KernelConfig config = simt_config();
  CompiledKernel kernel;
  kernel.kernel_name = "gemm";
  kernel.lowered_name = "_Z4gemmv";
  for (int i = 0; i < 1000; ++i) kernel.cubin.push_back(static_cast<char>(i * 37));
  const MeasureRequest request{17, &config, &kernel, MeasurePhase::Retime, 1, 12, 2000, 1.5};
  const OwnedRequest back = parse_measure(json::from_cbor(json::to_cbor(measure_message(request))));
  EXPECT_EQ(back.index, 17u);
  EXPECT_EQ(back.phase, MeasurePhase::Retime);
  EXPECT_EQ(back.warmup_runs, 1);
  EXPECT_EQ(back.runs, 12);
  EXPECT_EQ(back.view().runs, 12);
  EXPECT_EQ(back.idle_ratio, 1.5);
  EXPECT_EQ(back.view().idle_ratio, 1.5);
  EXPECT_EQ(back.config, config);
  EXPECT_EQ(back.kernel.lowered_name, "_Z4gemmv");
  EXPECT_EQ(back.kernel.cubin, kernel.cubin);
}

TEST(WorkerProtocol, AMeasureWithAnUnknownPhaseOrRunCountIsAnError) {
  const KernelConfig config = simt_config();
  CompiledKernel kernel;
  kernel.kernel_name = "gemm";
  const json good = measure_message({3, &config, &kernel, MeasurePhase::Screen, 0, 2, 1000});
  EXPECT_EQ(parse_measure(good).phase, MeasurePhase::Screen);
  json bad_phase = good;
  bad_phase["phase"] = "final";
  EXPECT_THROW(parse_measure(bad_phase), Error);
  json no_runs = good;
  no_runs["runs"] = 0;
  EXPECT_THROW(parse_measure(no_runs), Error);
  json negative_warmup = good;
  negative_warmup["warmup_runs"] = -1;
  EXPECT_THROW(parse_measure(negative_warmup), Error);
  for (double bad : {-0.5, 101.0}) {
    json bad_idle = good;
    bad_idle["idle_ratio"] = bad;
    EXPECT_THROW(parse_measure(bad_idle), Error) << bad;
  }
  json no_idle = good;
  no_idle.erase("idle_ratio");
  EXPECT_THROW(parse_measure(no_idle), std::exception);
}

TEST(WorkerProtocol, LaunchesOfARequestCountItsVerificationWarmupAndRuns) {
  MeasureRequest r;
  r.warmup_runs = 1, r.runs = 2;
  EXPECT_EQ(launches_of(r), 4);
  r.phase = MeasurePhase::Retime, r.warmup_runs = 3, r.runs = 25;
  EXPECT_EQ(launches_of(r), 29);  // a fresh worker verifies a candidate it has not seen
  EXPECT_EQ(run_lengths_of(r), 29);
  r.idle_ratio = 1.5;  // the final round's idle after each timed run: 25 x 1.5 runs more
  EXPECT_EQ(launches_of(r), 29);
  EXPECT_EQ(run_lengths_of(r), 29 + 37.5);
}

TEST(WorkerProtocol, VerdictsKeepNonFiniteErrorsAndTheContextFlag) {
  BenchVerdict v;
  v.outcome = CandidateOutcome::WrongResult;
  v.rel_error = std::numeric_limits<double>::quiet_NaN();
  v.detail = "12 unwritten";
  v.timing.samples_ms = {0.5, 0.25};
  bool lost = false;
  const BenchVerdict back = parse_verdict(json::from_cbor(json::to_cbor(verdict_message(v, true))), lost);
  EXPECT_TRUE(lost);
  EXPECT_EQ(back.outcome, CandidateOutcome::WrongResult);
  EXPECT_TRUE(std::isnan(back.rel_error));
  EXPECT_EQ(back.detail, "12 unwritten");
  EXPECT_EQ(back.timing.samples_ms, v.timing.samples_ms);
}

TEST(WorkerProtocol, FailuresAreRethrownAsTheirOwnType) {
  EXPECT_THROW(rethrow_failure(failure_message(CudaError("cuInit(0) failed", 100)), "w"), CudaError);
  EXPECT_THROW(rethrow_failure(failure_message(InvalidArgument("bad m")), "w"), InvalidArgument);
  EXPECT_THROW(rethrow_failure(failure_message(NotSupported("no")), "w"), NotSupported);
  try {
    rethrow_failure(failure_message(CudaError("cuInit(0) failed: CUDA_ERROR_NO_DEVICE", 100)), "tuning worker");
  } catch (const CudaError& e) {
    EXPECT_EQ(e.code(), 100);
    EXPECT_EQ(std::string(e.what()), "tuning worker: cuInit(0) failed: CUDA_ERROR_NO_DEVICE");
  }
}

TEST(WorkerProtocol, AMessageOfTheWrongTypeIsAnError) {
  EXPECT_THROW(parse_ready(json{{"type", "verdict"}}), Error);
  EXPECT_THROW(parse_setup(json::array()), Error);
}

}  // namespace
}  // namespace jitgemm::worker
