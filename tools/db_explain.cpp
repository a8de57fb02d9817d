// jitgemm-db explain (db_explain.hpp).
#include "db_explain.hpp"

#include <fmt/format.h>

#include <optional>
#include <vector>

#include "codegen/template_store.hpp"
#include "compile/compiler.hpp"
#include "cuda/driver_api.hpp"
#include "database/record_explanation.hpp"
#include "database/serving_policy.hpp"
#include "jitgemm/error.hpp"
#include "jitgemm/runtime.hpp"
#include "problem/problem_key.hpp"
#include "table.hpp"

namespace jitgemm {
namespace {

ProblemKey explained_key(const ExplainOptions& o) {
  GemmProblem p = o.problem;
  p.trans_a = parse_op(o.trans_a, "--trans-a");
  p.trans_b = parse_op(o.trans_b, "--trans-b");
  p.precision = parse_precision(o.precision, "--precision");
  p.structure_a = parse_structure(o.structure_a, "--structure-a");
  p.structure_b = parse_structure(o.structure_b, "--structure-b");
  p.fill = parse_fill(o.fill, "--fill");
  try {
    p.validate("explain");
  } catch (const NotSupported& e) {
    fmt::print(stderr, "note: {}\n", e.what());
  }
  return make_problem_key(p);
}

// The driver's version when a CUDA driver loads here; empty otherwise (never throws).
std::optional<int> loaded_driver_version() {
  try {
    int version = 0;
    if (cuda::driver().cuDriverGetVersion(&version) == CUDA_SUCCESS) return version;
  } catch (const CudaError&) {
  }
  return std::nullopt;
}

Environments explain_environments(const EnvironmentFlags& flags) {
  return flags.over(machine_environments(TemplateStore::active(), loaded_driver_version(), nvrtc_version(),
                                         std::string(version())));
}

// "driver 13000, nvrtc 13000, jitgemm 0.1.0, templates embedded"; an unknown driver reads
// "driver: not known here (give --driver)".
std::string describe(const Environments& env, const EnvironmentFlags& flags) {
  const std::string driver = env.driver_version ? fmt::format("driver {}", *env.driver_version)
                                                : std::string("driver: not known here (give --driver)");
  const std::string templates = flags.template_hash.empty() ? TemplateStore::active().origin() : "--template-hash";
  return fmt::format("{}, nvrtc {}, jitgemm {}, templates {}", driver, env.nvrtc_version.value_or(0),
                     env.jitgemm_version.value_or("?"), templates);
}

void print_records(const TuningDatabase& db, const DeviceKey& device, const ProblemKey& key,
                   const Environments& env, const ServingDecision& decision) {
  Table table({"record", "match", "distance", "served", "why not (record vs asked)", "stale"});
  for (const RecordExplanation& e : explain_records(db, device, key, env, decision)) {
    const bool same_kind = e.match != RecordExplanation::Match::No;
    table.add_row({e.record->key(), std::string(to_string(e.match)), same_kind ? fmt::format("{:.2f}", e.distance) : "-",
                   e.served ? "<-" : "", fmt::format("{}", fmt::join(e.why_not, "; ")), to_string(e.staleness)});
  }
  fmt::print("\n{}", table.render());
}

}  // namespace

void add_explain_options(CLI::App& cmd, ExplainOptions& o) {
  cmd.add_option("--m", o.problem.m, "rows of op(A) and C")->required()->check(CLI::PositiveNumber);
  cmd.add_option("--n", o.problem.n, "columns of op(B) and C")->required()->check(CLI::PositiveNumber);
  cmd.add_option("--k", o.problem.k, "columns of op(A), rows of op(B)")->required()->check(CLI::PositiveNumber);
  cmd.add_option("--trans-a", o.trans_a, "N or T")->capture_default_str();
  cmd.add_option("--trans-b", o.trans_b, "N or T")->capture_default_str();
  cmd.add_option("--lda", o.problem.lda, "leading dimension of A (0: tight)");
  cmd.add_option("--ldb", o.problem.ldb, "leading dimension of B (0: tight)");
  cmd.add_option("--ldc", o.problem.ldc, "leading dimension of C (0: tight)");
  cmd.add_option("--precision", o.precision, "fp32, tf32x3 or tf32")->capture_default_str();
  cmd.add_option("--structure-a", o.structure_a, "general, symmetric, lower or upper")->capture_default_str();
  cmd.add_option("--structure-b", o.structure_b, "general, symmetric, lower or upper")->capture_default_str();
  cmd.add_option("--fill", o.fill, "full, lower or upper")->capture_default_str();
  cmd.add_option("--device", o.device.name, "device name as the driver reports it")->required();
  cmd.add_option("--sm", o.device.sm, "compute capability, e.g. 90")->required()->check(CLI::Range(10, 999));
  add_environment_flags(cmd, o.environment);
}

int run_explain(const ExplainOptions& o, const TuningDatabase& db) {
  const ProblemKey key = explained_key(o);
  const Environments env = explain_environments(o.environment);
  const ServingDecision decision = lookup(db, o.device, key, env);
  fmt::print("problem:  {}\ndevice:   {} sm{}\n", key.canonical(), o.device.name, o.device.sm);
  fmt::print("decision: {}\nconfig:   {}\n", decision.explanation, decision.config.name());
  fmt::print("stale:    {}\n", staleness_text(decision));
  fmt::print("env:      {}\n", describe(env, o.environment));
  print_records(db, o.device, key, env, decision);
  return 0;
}

}  // namespace jitgemm
