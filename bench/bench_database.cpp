// jitgemm-bench-db: how long the tuning database takes to load, on the CPU (no GPU needed).
// Generates a realistic database of 10,000 records (problem keys varied over precision,
// transposes, ld classes and sizes on two devices; winners and top candidates from the
// simt, mma.sync and wgmma candidate spaces; kTopCandidates candidates and outcome counts
// each) in a temporary directory, and times:
//   LoadDatabase   TuningDatabase::load(path): read, parse, check every field and checksum,
//                  sort (what the Runtime does once when it is constructed)
//   ParseDatabase  TuningDatabase::parse of the text already in memory
//   DumpDatabase   the file's text (what every save writes)
//   LoadHistory    a history file of 100 full candidate tables (jitgemm-db show reads it)
// Counters: records, file_bytes, and bytes_per_second; the load and the parse run 5 times (mean,
// median, stddev and min of the repetitions). The goal: LoadDatabase of 10,000 records
// <= 200 ms.
//
//   build/jitgemm-bench-db --benchmark_filter=LoadDatabase
#include <benchmark/benchmark.h>
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "codegen/candidate_space.hpp"
#include "codegen/kernel_family.hpp"
#include "database/candidate_history.hpp"
#include "database/tuning_database.hpp"

namespace jitgemm {
namespace {

constexpr int kRecords = 10000;
constexpr int kHistoryEntries = 100;

const DeviceKey kDevices[] = {{"NVIDIA H100 80GB HBM3", 90, 132}, {"NVIDIA H200", 90, 132}};
const EnvironmentKey kEnvironment{12080, 12080, "5c1e0a9d2b7f4e31a0c4d2e9f1b3a5c7", "0.1.0"};

ProblemKey problem_key(Precision precision, int64_t m, int64_t n, int64_t k) {
  ProblemKey key;
  key.precision = precision;
  key.m = m;
  key.n = n;
  key.k = k;
  return key;
}

// Configs that can be built, from the candidate space of a problem of each kind: wgmma for
// large tf32x3 / tf32 products, mma.sync for small ones, simt for fp32.
struct ConfigPools {
  std::vector<KernelConfig> simt, wgmma_tf32x3, wgmma_tf32, mma_tf32x3;

  ConfigPools() {
    simt = buildable(tuning_candidates(problem_key(Precision::FP32, 4096, 4096, 4096)));
    wgmma_tf32x3 = buildable(candidate_space(problem_key(Precision::TF32x3, 4096, 4096, 4096)));
    wgmma_tf32 = buildable(candidate_space(problem_key(Precision::TF32, 4096, 4096, 4096)));
    mma_tf32x3 = buildable(family_rules(KernelFamily::MmaSync).candidates(problem_key(Precision::TF32x3, 96, 96, 96), {}));
  }

  static std::vector<KernelConfig> buildable(const std::vector<KernelConfig>& configs) {
    std::vector<KernelConfig> out;
    for (const KernelConfig& c : configs)
      if (rules_of(c).invalid_reason(c, StaticLimits{}).empty()) out.push_back(c);
    return out;
  }

  const std::vector<KernelConfig>& for_record(Precision precision, int i) const {
    if (precision == Precision::FP32) return simt;
    if (i % 5 == 0) return mma_tf32x3;  // a small product: the mma.sync family
    return precision == Precision::TF32 ? wgmma_tf32 : wgmma_tf32x3;
  }
};

// Record i of the generated database: a key of its own, a winner and 7 more top candidates.
TuningRecord generated_record(int i, const ConfigPools& pools) {
  static constexpr Precision kPrecisions[] = {Precision::FP32, Precision::TF32x3, Precision::TF32};
  static constexpr Op kOps[] = {Op::N, Op::T};
  static constexpr LdClass kLds[] = {LdClass::Tight, LdClass::Padded, LdClass::Unaligned};
  const Precision precision = kPrecisions[i % 3];
  const std::vector<KernelConfig>& pool = pools.for_record(precision, i);
  TuningRecord r;
  r.problem = problem_key(precision, 128 * (1 + i % 61), 64 * (1 + (i / 61) % 53), 256 * (1 + i / (61 * 53)));
  r.problem.trans_a = kOps[(i / 3) % 2];
  r.problem.trans_b = kOps[(i / 6) % 2];
  r.problem.ld_a = kLds[(i / 12) % 3];
  r.problem.vec_a = r.problem.ld_a == LdClass::Unaligned ? 1 : 4;
  r.device = kDevices[i % 2];
  r.environment = kEnvironment;
  const double median_ms = 0.05 + 0.001 * (i % 997);
  r.config = pool[static_cast<size_t>(i) % pool.size()];
  r.timing = {median_ms, median_ms * 0.99, median_ms * 1.02, 25, true, median_ms * 1.07};
  r.tflops = 2.0 * static_cast<double>(r.problem.m * r.problem.n * r.problem.k) / (median_ms * 1e9);
  r.accuracy = {1.1e-7 + 1e-9 * (i % 13), 8.4e-7, 4.2e-7};
  r.outcomes.by_outcome = {{CandidateOutcome::Ok, 600 + i % 300},
                           {CandidateOutcome::Spills, 1 + i % 40},
                           {CandidateOutcome::WrongResult, 1 + i % 7},
                           {CandidateOutcome::CompileFailed, 1 + i % 3}};
  r.candidate_count = r.outcomes.total();
  for (int t = 0; t < kTopCandidates; ++t)
    r.top.push_back({pool[(static_cast<size_t>(i) + static_cast<size_t>(t) * 7) % pool.size()],
                     median_ms * (1.0 + 0.004 * t), r.accuracy.rel_error, 96 + 16 * (t % 8), 0});
  r.top[0].config = r.config;
  r.tuned_at = fmt::format("2025-{:02}-{:02}T{:02}:{:02}:{:02}Z", 1 + i % 12, 1 + i % 28, i % 24, i % 60, (i * 7) % 60);
  return r;
}

// The generated files in a temporary directory, removed at exit.
struct GeneratedFiles {
  std::filesystem::path dir, database, history;
  std::string text;  // the database file's

  GeneratedFiles() {
    dir = std::filesystem::temp_directory_path() / fmt::format("jitgemm-bench-db-{}", ::getpid());
    std::filesystem::create_directories(dir);
    database = dir / "tuning.json";
    history = dir / "tuning.history.json";
    const ConfigPools pools;
    TuningDatabase db;
    std::vector<TuningRecord> records;
    for (int i = 0; i < kRecords; ++i) records.push_back(generated_record(i, pools));
    std::sort(records.begin(), records.end(),
              [](const TuningRecord& a, const TuningRecord& b) { return a.key() < b.key(); });
    for (TuningRecord& r : records) db.upsert(std::move(r));  // in key order: each one appends
    text = db.dump();
    std::ofstream(database, std::ios::binary) << text;
    TuningHistory h;
    for (int i = 0; i < kHistoryEntries; ++i) {
      const TuningRecord& r = db.records()[static_cast<size_t>(i)];
      CandidateHistory entry{r.key(), r.tuned_at, {}};
      for (int c = 0; c < 900; ++c) {
        const RankedCandidate& top = r.top[static_cast<size_t>(c) % r.top.size()];
        const bool ok = c % 10 != 9;
        entry.candidates.push_back({top.config, ok ? CandidateOutcome::Ok : CandidateOutcome::Spills,
                                    ok ? top.median_ms * (1 + 0.001 * c) : 0, ok ? top.rel_error : 0, top.registers,
                                    ok ? 0 : 64, ok ? "" : "64 B spill stores, 64 B spill loads, 0 B stack"});
      }
      h.upsert(std::move(entry));
    }
    std::ofstream(history, std::ios::binary) << h.dump();
    std::printf("generated %d records: %s (%zu bytes); history of %d tables: %s (%ju bytes)\n", kRecords,
                database.c_str(), text.size(), kHistoryEntries, history.c_str(),
                static_cast<uintmax_t>(std::filesystem::file_size(history)));
  }
  ~GeneratedFiles() {
    std::error_code ec;
    std::filesystem::remove_all(dir, ec);
  }
};

GeneratedFiles& files() {
  static GeneratedFiles generated;
  return generated;
}

void BM_LoadDatabase(benchmark::State& state) {
  const GeneratedFiles& f = files();
  size_t records = 0;
  for (auto _ : state) {
    TuningDatabase db = TuningDatabase::load(f.database);
    records = db.size();
    benchmark::DoNotOptimize(db);
  }
  if (records != static_cast<size_t>(kRecords)) state.SkipWithError("the generated database did not load whole");
  state.counters["records"] = static_cast<double>(records);
  state.counters["file_bytes"] = static_cast<double>(f.text.size());
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * static_cast<int64_t>(f.text.size()));
}
// The least of the repetitions: on a machine shared with other work the mean measures the sharing.
double least(const std::vector<double>& v) { return *std::min_element(v.begin(), v.end()); }

BENCHMARK(BM_LoadDatabase)->Unit(benchmark::kMillisecond)->MinTime(1.0)->Repetitions(5)->ComputeStatistics("min", least);

void BM_ParseDatabase(benchmark::State& state) {
  const GeneratedFiles& f = files();
  for (auto _ : state) benchmark::DoNotOptimize(TuningDatabase::parse(f.text, "generated"));
  state.counters["file_bytes"] = static_cast<double>(f.text.size());
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * static_cast<int64_t>(f.text.size()));
}
BENCHMARK(BM_ParseDatabase)->Unit(benchmark::kMillisecond)->MinTime(1.0)->Repetitions(5)->ComputeStatistics("min", least);

void BM_DumpDatabase(benchmark::State& state) {
  const GeneratedFiles& f = files();
  const TuningDatabase db = TuningDatabase::parse(f.text, "generated");
  for (auto _ : state) benchmark::DoNotOptimize(db.dump());
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * static_cast<int64_t>(f.text.size()));
}
BENCHMARK(BM_DumpDatabase)->Unit(benchmark::kMillisecond);

void BM_LoadHistory(benchmark::State& state) {
  const GeneratedFiles& f = files();
  size_t entries = 0;
  for (auto _ : state) {
    TuningHistory h = TuningHistory::load(f.history);
    entries = h.size();
    benchmark::DoNotOptimize(h);
  }
  state.counters["entries"] = static_cast<double>(entries);
  state.counters["file_bytes"] = static_cast<double>(std::filesystem::file_size(f.history));
}
BENCHMARK(BM_LoadHistory)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace jitgemm

BENCHMARK_MAIN();
