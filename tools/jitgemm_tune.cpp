// jitgemm-tune: tune one problem (flags), a list (JSON file) or the reference set, or with
// --backward the gradient products of those; show progress and the best so far; print a
// final table, and per problem where its time went and what the budgeted search left out;
// write the tuning database, each record as its problem finishes.
// Without a GPU it says so, then generates and NVRTC-compiles every candidate for sm_90a
// and prints their resource use. The command line is defined in tune_command_line.cpp.
// Problem ids and record fields come from files: they are printed through printable() (the
// table does it for its cells).
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>
#include <iostream>
#include <map>
#include <optional>
#include <set>

#include "codegen/candidate_space.hpp"
#include "codegen/kernel_family.hpp"
#include "codegen/template_store.hpp"
#include "compile/binary_cache.hpp"
#include "compile/compiler.hpp"
#include "cuda/context.hpp"
#include "cuda/device_info.hpp"
#include "cuda/driver_api.hpp"
#include "cuda/gpu_telemetry.hpp"
#include "database/default_database.hpp"
#include "database/device_key.hpp"
#include "database/environments.hpp"
#include "database/printable_text.hpp"
#include "database/record_from_tuning.hpp"
#include "database/tuning_database.hpp"
#include "database/tuning_priors.hpp"
#include "jitgemm/backward.hpp"
#include "jitgemm/error.hpp"
#include "jitgemm/runtime.hpp"
#include "problem/gemm_work.hpp"
#include "problem/problem_key.hpp"
#include "problem/problem_list.hpp"
#include "problem/reference_problems.hpp"
#include "table.hpp"
#include "tune/record_refresh.hpp"
#include "tune/candidate_compiler.hpp"
#include "tune/candidate_ranking.hpp"
#include "tune_command_line.hpp"
#include "tune/tuner.hpp"

namespace jitgemm {
namespace {

using Options = TuneCommandLine;

// The gradient products of each problem (jitgemm/backward.hpp), as Runtime::gemm_backward runs
// them: <id>_dA and <id>_dB, and <id>_dA_T / <id>_dB_T, the transposed products a symmetric
// projection adds. `project`: every structured operand's gradient projected (the parameters
// kept structured). Products that multiply nothing (an empty or all-zero gradient) are left out.
std::vector<NamedProblem> gradient_problems(const std::vector<NamedProblem>& forward, bool project) {
  std::vector<NamedProblem> list;
  for (const NamedProblem& np : forward) {
    const GemmProblem& p = np.problem;
    const BackwardOptions options{project && p.structure_a != Structure::General,
                                  project && p.structure_b != Structure::General};
    const BackwardProblems grads = backward_problems(p, options);
    for (const auto& [name, grad] : {std::pair{"dA", &grads.da}, std::pair{"dB", &grads.db}}) {
      std::vector<NamedProblem> products{{fmt::format("{}_{}", np.id, name), grad->product}};
      if (grad->transposed_sum) products.push_back({fmt::format("{}_{}_T", np.id, name), *grad->transposed_sum});
      for (NamedProblem& product : products) {
        if (gemm_work(product.problem) != GemmWork::Product) {
          fmt::print("backward: {} multiplies nothing ({}), not tuned\n", printable(product.id),
                     product.problem.to_string());
          continue;
        }
        fmt::print("backward: {} = {}\n", printable(product.id), product.problem.to_string());
        list.push_back(std::move(product));
      }
    }
  }
  return list;
}

std::vector<NamedProblem> problems_of(const Options& o) {
  std::vector<NamedProblem> list;
  if (o.reference) {
    const std::vector<std::string> modes =
        o.precision.empty() ? std::vector<std::string>{"fp32", "tf32x3", "tf32"} : std::vector<std::string>{o.precision};
    for (const std::string& mode : modes)
      for (const auto& r : reference_problems(parse_precision(mode, "--precision"))) {
        if (r.runnable) {
          list.push_back({r.id, r.problem});
        } else if (mode == modes.front()) {
          fmt::print("skipping reference problem {}: {}\n", r.id, r.note);
        }
      }
  }
  if (!o.problems_file.empty())
    for (auto& np : load_problem_list(o.problems_file)) list.push_back(std::move(np));
  if (o.m != 0 || o.n != 0 || o.k != 0) {
    GemmProblem p;
    p.m = o.m;
    p.n = o.n;
    p.k = o.k;
    p.trans_a = parse_op(o.trans_a, "--trans-a");
    p.trans_b = parse_op(o.trans_b, "--trans-b");
    p.lda = o.lda;
    p.ldb = o.ldb;
    p.ldc = o.ldc;
    p.alpha = o.alpha;
    p.beta = o.beta;
    p.precision = parse_precision(o.precision.empty() ? "fp32" : o.precision, "--precision");
    list.push_back({"cli", p});
  }
  if (o.backward) list = gradient_problems(list, o.project);
  if (o.max_gflop > 0)
    std::erase_if(list, [&](const NamedProblem& np) {
      const double gflop = 2.0 * np.problem.m * np.problem.n * np.problem.k / 1e9;
      if (gflop <= o.max_gflop) return false;
      fmt::print("skipping {}: {:.0f} GFLOP is more than --max-gflop {}\n", printable(np.id), gflop, o.max_gflop);
      return true;
    });
  if (list.empty() && !o.stale)
    throw InvalidArgument("nothing to tune: give --m/--n/--k, --problems FILE, --reference or --stale");
  for (const auto& np : list) check_tunable(np.problem, np.id);
  return list;
}

// --configs for one problem: the named configs, in the order given, each a member of the
// problem's candidate space (InvalidArgument naming the config and the problem otherwise).
// Empty when --configs is not given.
std::vector<KernelConfig> named_candidates(const Options& o, const NamedProblem& np) {
  if (o.configs.empty()) return {};
  const ProblemKey key = make_problem_key(np.problem);
  const std::vector<KernelConfig> space = tuning_candidates(key);
  std::vector<KernelConfig> chosen;
  for (const std::string& name : o.configs) {
    KernelConfig config;
    try {
      config = KernelConfig::parse(name);
    } catch (const InvalidArgument& e) {
      throw InvalidArgument(fmt::format("--configs: {}", e.what()));
    }
    if (std::find(space.begin(), space.end(), config) == space.end())
      throw InvalidArgument(fmt::format(
          "--configs: {} is not a candidate of {} ({}, {} candidates; jitgemm-tune --compile-only with the same "
          "problem lists their kernels)",
          name, np.id, key.canonical(), space.size()));
    if (std::find(chosen.begin(), chosen.end(), config) == chosen.end()) chosen.push_back(config);
  }
  return chosen;
}

// One problem to tune (or compile) and its candidates: --configs (checked once, before any
// work), --sample, or empty for the whole space (tune_problem's default).
struct TuneJob {
  NamedProblem np;
  std::vector<KernelConfig> candidates;
};

std::vector<TuneJob> jobs_of(const Options& o, const std::vector<NamedProblem>& problems) {
  std::vector<TuneJob> jobs;
  for (const NamedProblem& np : problems)
    jobs.push_back({np, !o.configs.empty() ? named_candidates(o, np)
                        : o.sample        ? tuning_sample(make_problem_key(np.problem))
                                          : std::vector<KernelConfig>{}});
  return jobs;
}

// A one-line progress bar on stderr: phase, candidate, best so far.
void draw_progress(const std::string& id, const TuneProgress& p) {
  static const char* kPhase[] = {"compiling", "verifying", "timing", "done"};
  const int width = 24;
  const int filled = p.total ? static_cast<int>(width * p.index / p.total) : width;
  std::string best = p.best_ms > 0 ? fmt::format("best {:.3f} ms {}", p.best_ms, p.best_candidate) : "best -";
  const std::string clock = p.budget_s > 0 ? fmt::format("{:.1f}/{:g} s", p.elapsed_s, p.budget_s)
                                           : fmt::format("{:.1f} s", p.elapsed_s);
  const std::string round = p.round > 1 ? fmt::format(" (round {})", p.round) : "";
  fmt::print(stderr, "\r\033[K{} {} [{}{}] {}/{} {}{} {}  {}", printable(id), clock, std::string(filled, '#'),
             std::string(width - filled, '.'), p.index, p.total, kPhase[static_cast<int>(p.phase)], round,
             p.candidate, best);
  if (p.phase == TuneProgress::Phase::Done) fmt::print(stderr, "\n");
  std::fflush(stderr);
}

// The problems of this device's records whose environment (driver, NVRTC, template hash,
// jitgemm version) differs from this machine's: served but flagged stale until re-tuned.
std::vector<NamedProblem> stale_problems(const std::string& db_path, const cuda::DeviceInfo& info) {
  std::vector<NamedProblem> list;
  const DeviceKey device = device_key(info);
  const Environments now =
      machine_environments(TemplateStore::active(), info.driver_version, nvrtc_version(), std::string(version()));
  const TuningDatabase db = TuningDatabase::load(db_path);
  for (const StaleRecord& r : stale_records(db.records(), device, now)) {
    fmt::print("stale: {} ({})\n", r.problem.canonical(), printable(to_string(r.fields)));
    list.push_back({r.problem.canonical(), problem_for_key(r.problem)});
  }
  return list;
}

// The database the tuning starts from: its records give the budgeted search's priors
// (tuning_priors) and each problem's own record, the incumbent of a re-tune. Empty when the
// file does not load (said on stderr; the tuning then writes a new one as it always does).
TuningDatabase existing_database(const std::string& db_path) {
  try {
    return TuningDatabase::load(db_path);
  } catch (const Error& e) {
    fmt::print(stderr, "warning: no priors and no incumbents from {}: {}\n", printable(db_path),
               printable(e.what(), LineBreaks::Keep));
    return {};
  }
}

// Where one tuning's time went and what it left out, one line:
//   "largeK tf32x3: 18.4 s of 20 s (setup 0.9, compile 15.2 (210 cpu), measure 6.1), 4 rounds; winner rank 3 of 260;
//    final round at 1980 MHz, 358 W"
std::string time_summary(const std::string& id, const TuneResult& r, double budget_s) {
  const TuneTimes& t = r.times;
  const std::string budget = budget_s > 0 ? fmt::format(" of {:g} s", budget_s) : " (exhaustive)";
  std::string line = fmt::format("{} {}: {:.1f} s{} (setup {:.1f}, compile {:.1f} ({:.0f} cpu), measure {:.1f}), {} "
                                 "round(s)",
                                 printable(id), to_string(r.problem.precision), t.total_s, budget, t.setup_s,
                                 t.compile_s, t.compile_cpu_s, t.measure_s, r.rounds);
  size_t ranked = 0;
  for (const CandidateMeasurement& c : r.candidates) ranked += c.rank >= 0;
  if (const CandidateMeasurement* best = r.best()) line += fmt::format("; winner rank {} of {}", best->rank + 1, ranked);
  if (const GpuConditions& gpu = r.final_round_gpu; gpu.samples > 0)
    line += fmt::format("; final round at {:.0f} MHz, {:.0f} W", gpu.sm_clock_mhz, gpu.power_w);
  return line;
}

int run_gpu(const Options& o, std::vector<TuneJob> jobs, const Compiler& compiler) {
  cuda::PrimaryContext context(0);
  const cuda::DeviceInfo info = cuda::query_device(0);
  fmt::print("device: {} (sm_{}{}, {} SMs), driver {}, NVRTC {}\n", info.name, info.cc_major, info.cc_minor,
             info.sm_count, info.driver_version, nvrtc_version_string());
  const std::string db_path = !o.db_path.empty() ? o.db_path : default_database_path();
  if (o.stale) {
    const std::vector<TuneJob> stale = jobs_of(o, stale_problems(db_path, info));
    if (stale.empty() && jobs.empty()) {
      fmt::print("no stale records for {} in {}\n", info.name, db_path);
      return 0;
    }
    jobs.insert(jobs.end(), stale.begin(), stale.end());
  }
  Table table({"problem", "mode", "jitgemm ms", "cuBLAS ms", "ratio", "error vs fp64", "cuBLAS error", "winner",
               "ok/tried", "other outcomes", "tune s"});
  int written = 0;  // records saved so far: each as its problem finishes
  std::vector<std::string> incidents;  // candidates that faulted or hung, with what happened
  std::vector<std::string> summaries;  // where each tuning's time went
  std::vector<std::string> throttled;  // tunings whose final round ran slowed (power cap, heat)
  // Kept current through the run: a problem tuned later takes the winners of those tuned before
  // it as priors (a re-tune after a template change finds a new config for one problem, and its
  // siblings tuned after it try that config first).
  TuningDatabase known = existing_database(db_path);
  const bool use_priors = !o.no_priors && o.budget_s > 0;  // the budgeted search's
  for (const auto& [np, candidates] : jobs) {
    TuneSettings settings;
    settings.jobs = o.jobs;
    settings.timing_runs = std::max(20, o.runs);
    settings.search = search_for_budget(o.budget_s);
    settings.budget_s = o.budget_s;
    settings.final_round_idle = o.final_idle;
    settings.candidates = candidates;
    const ProblemKey key = make_problem_key(np.problem);
    if (use_priors) settings.priors = tuning_priors(known, device_key(info), key);
    if (!o.no_priors) settings.incumbent = tuning_incumbent(known, device_key(info), key);
    const TuneResult result = tune_problem(np.problem, info, compiler, TemplateStore::active(), settings,
                                           [&](const TuneProgress& p) { draw_progress(np.id, p); });
    int ok = 0;
    std::map<std::string_view, int> others;
    for (const auto& c : result.candidates) {
      ok += c.outcome == CandidateOutcome::Ok;
      if (c.outcome != CandidateOutcome::Ok) ++others[to_string(c.outcome)];
      if (c.outcome == CandidateOutcome::Faulted || c.outcome == CandidateOutcome::TimedOut)
        incidents.push_back(fmt::format("{} {}: {} ({})", printable(np.id), c.config.name(), to_string(c.outcome),
                                        printable(c.detail)));
    }
    std::vector<std::string> other_counts;
    for (const auto& [name, count] : others) other_counts.push_back(fmt::format("{} {}", name, count));
    const std::string other_text = other_counts.empty() ? "-" : fmt::format("{}", fmt::join(other_counts, ", "));
    const std::string tune_s = fmt::format("{:.1f}", result.times.total_s);
    summaries.push_back(time_summary(np.id, result, settings.search == TuneSearch::Budgeted ? settings.budget_s : 0));
    if (const std::string slowed = describe_slowdown(result.final_round_gpu); !slowed.empty())
      throttled.push_back(fmt::format("{} {}: the final round ran {}: its times are high, and configs apart on a cool "
                                      "card may have read alike (re-tune it on a cool card to be sure)",
                                      printable(np.id), to_string(np.problem.precision), slowed));
    const auto* best = result.best();
    if (best == nullptr) {
      table.add_row({np.id, std::string(to_string(np.problem.precision)), "-",
                     fmt::format("{:.3f}", result.cublas_timing.median_ms), "-", "-",
                     fmt::format("{:.2e}", result.cublas_rel_error), "none passed",
                     fmt::format("0/{}", result.candidates.size()), other_text, tune_s});
      continue;
    }
    table.add_row({np.id, std::string(to_string(np.problem.precision)), fmt::format("{:.3f}", best->timing.median_ms),
                   fmt::format("{:.3f}", result.cublas_timing.median_ms),
                   fmt::format("{:.2f}x", result.cublas_timing.median_ms / best->timing.median_ms),
                   fmt::format("{:.2e}", best->rel_error), fmt::format("{:.2e}", result.cublas_rel_error),
                   best->config.name(), fmt::format("{}/{}", ok, result.candidates.size()), other_text, tune_s});
    TunedRecord tuned = make_tuned_record(result, device_key(info), current_environment(info, result.template_hash));
    known.upsert(tuned.record);
    // Saved now, not after the last problem: a long tune that is stopped (a time limit, Ctrl-C)
    // keeps every problem it finished (save_merged: under the file's lock, written atomically).
    if (o.no_write) continue;
    const auto report = TuningDatabase::save_merged(db_path, {tuned.record}, {tuned.history});
    ++written;
    if (!report.warning.empty()) fmt::print(stderr, "warning: {}\n", printable(report.warning, LineBreaks::Keep));
  }
  fmt::print("\n{}", table.render());
  for (const std::string& line : summaries) fmt::print("time: {}\n", line);
  for (const std::string& line : incidents) fmt::print("isolated: {}\n", line);
  for (const std::string& line : throttled) fmt::print("throttled: {}\n", line);
  if (written > 0) fmt::print("wrote {} record(s) to {}, each as its problem finished\n", written, db_path);
  return 0;
}

// No GPU: generate and compile every candidate, print registers / smem / spills, and where the
// budgeted search's performance model ranks each kernel (1: compiled first; "pruned").
int run_compile_only(const Options& o, const std::vector<TuneJob>& jobs, const Compiler& compiler) {
  int unusable = 0, total = 0;
  for (const auto& [np, candidates] : jobs) {
    const ProblemKey key = make_problem_key(np.problem);
    std::vector<KernelConfig> configs = candidates;
    if (configs.empty()) configs = tuning_candidates(key);
    const KernelSpecialization spec = specialization_of(key);
    const CandidateRanking ranking =
        rank_candidates(key, configs, DeviceModel::hopper(kLargestHopperSms), {2.0, {}, {untuned_config(key)}});
    std::map<std::string, std::string> model_rank;  // kernel -> its best-ranked config's place
    const auto render_name = [&](const KernelConfig& c) { return rules_of(c).kernel_name(c, spec); };
    for (size_t r = 0; r < ranking.order.size(); ++r) {
      const CandidateRank& c = ranking.order[r];
      model_rank.emplace(render_name(configs[c.index]),
                         c.pruned ? "pruned" : fmt::format("{} ({:.0f} us)", r + 1, c.estimate_us));
    }
    const auto compiled = compile_candidates(configs, spec, compiler, TemplateStore::active(), o.jobs,
                                             [&](size_t done, size_t count, const CompiledCandidate& c) {
                                               fmt::print(stderr, "\r\033[K{} compiled {}/{} {}", printable(np.id), done,
                                                          count, c.config.name());
                                               std::fflush(stderr);
                                             });
    fmt::print(stderr, "\n");
    Table table({"kernel", "threads", "registers", "smem B", "stack B", "spill B", "compile ms", "status", "model rank"});
    std::set<std::string> shown;  // split-K variants share their tile's kernel: one row per kernel
    for (const auto& c : compiled) {
      if (!shown.insert(c.rendered.kernel_name).second) continue;
      const auto& r = c.outcome.kernel.resources;
      ++total;
      unusable += !c.usable();
      table.add_row({c.rendered.kernel_name, std::to_string(c.config.threads()), std::to_string(r.registers),
                     std::to_string(c.rendered.smem_bytes + static_cast<size_t>(r.shared_bytes)),
                     std::to_string(r.stack_bytes), std::to_string(r.spill_store_bytes + r.spill_load_bytes),
                     fmt::format("{:.0f}", c.outcome.kernel.compile_ms),
                     !c.outcome.ok ? "compile failed" : c.usable() ? (c.outcome.kernel.from_cache ? "ok (cached)" : "ok")
                                                                   : "spills",
                     model_rank.count(c.rendered.kernel_name) ? model_rank.at(c.rendered.kernel_name) : "-"});
    }
    fmt::print("\n{} ({}, key {}): {} candidates, {} distinct kernels, {} pruned by the model\n{}", printable(np.id),
               np.problem.to_string(), key.canonical(), compiled.size(), shown.size(), ranking.pruned, table.render());
  }
  fmt::print("\n{} distinct kernels compiled for sm_90a, {} unusable (compile failure or spills)\n", total, unusable);
  return unusable == 0 ? 0 : 1;
}

// --refresh-unchanged: the database's records stale in their template hash alone whose kernels
// compile alike under `dir` and this build's templates take this build's hash (under the file's
// lock, an atomic write), the rest are listed as they stay.
int run_refresh(const Options& o) {
  const std::string db_path = !o.db_path.empty() ? o.db_path : default_database_path();
  const TemplateStore tuned_with = TemplateStore::from_directory(o.refresh_unchanged);
  const Compiler compiler(std::nullopt);  // compiled afresh: no cached binary stands in for either side
  std::vector<RecordRefresh> results;
  if (o.no_write) {
    TuningDatabase db = TuningDatabase::load(db_path);
    results = refresh_unchanged(db, tuned_with, TemplateStore::active(), compiler);
  } else {
    TuningDatabase::load(db_path);  // refuse a missing or damaged file before taking the lock
    const SaveReport report = TuningDatabase::update(db_path, [&](TuningDatabase& db) {
      results = refresh_unchanged(db, tuned_with, TemplateStore::active(), compiler);
    });
    if (!report.warning.empty()) fmt::print(stderr, "warning: {}\n", printable(report.warning, LineBreaks::Keep));
  }
  Table table({"record", "outcome", "detail"});
  size_t refreshed = 0;
  for (const RecordRefresh& r : results) {
    refreshed += r.outcome == RefreshOutcome::Refreshed;
    table.add_row({printable(r.key), std::string(to_string(r.outcome)), printable(r.detail)});
  }
  if (!results.empty()) fmt::print("{}", table.render());
  fmt::print("{} {} of {} records stale in their template hash in {} (templates before: {}); {} stay stale "
             "(jitgemm-tune --stale re-tunes them on their GPU)\n",
             o.no_write ? "would refresh" : "refreshed", refreshed, results.size(), printable(db_path),
             printable(tuned_with.origin()), results.size() - refreshed);
  return 0;
}

}  // namespace
}  // namespace jitgemm

int main(int argc, char** argv) {
  using namespace jitgemm;
  Options o;
  std::string message;
  if (parse_tune_command_line(std::vector<std::string>(argv, argv + argc), o, message) != 0) {
    fmt::print(stderr, "{}", message);
    return 2;
  }
  if (o.help) {
    fmt::print("{}", message);
    return 0;
  }
  try {
    if (!o.refresh_unchanged.empty()) return run_refresh(o);
    const std::vector<TuneJob> jobs = jobs_of(o, problems_of(o));  // a bad --configs fails before any work
    const Compiler compiler(std::filesystem::path(!o.cache_dir.empty() ? o.cache_dir : BinaryCache::default_dir().string()));
    std::string reason;
    if (o.stale && !cuda::gpu_available(&reason))
      throw Error(fmt::format("--stale re-verifies records on the GPU, and there is none: {}", reason));
    if (o.compile_only) return run_compile_only(o, jobs, compiler);
    if (!cuda::gpu_available(&reason)) {
      fmt::print("No GPU: {}. Not tuning; generating and compiling every candidate for sm_90a instead.\n", reason);
      return run_compile_only(o, jobs, compiler);
    }
    return run_gpu(o, jobs, compiler);
  } catch (const CompileError& e) {
    fmt::print(stderr, "jitgemm-tune: {}\n{}\n", printable(e.what(), LineBreaks::Keep), e.log());
  } catch (const Error& e) {  // may quote a problem file: printable
    fmt::print(stderr, "jitgemm-tune: {}\n", printable(e.what(), LineBreaks::Keep));
  } catch (const std::exception& e) {  // a bug: say so and exit like any other error, never abort
    fmt::print(stderr, "jitgemm-tune: internal error: {}\n", printable(e.what(), LineBreaks::Keep));
  }
  return 2;
}
