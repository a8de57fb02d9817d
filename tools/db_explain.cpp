// jitgemm-db explain (db_explain.hpp).
#include "db_explain.hpp"

#include <fmt/format.h>

#include <optional>
#include <vector>

#include "codegen/template_store.hpp"
#include "cuda/driver_api.hpp"
#include "database/printable_text.hpp"
#include "database/record_explanation.hpp"
#include "database/serving_policy.hpp"
#include "jitgemm/error.hpp"
#include "nvrtc_probe.hpp"
#include "problem/problem_key.hpp"
#include "table.hpp"

#ifndef JITGEMM_VERSION
#error "JITGEMM_VERSION (jitgemm::version() of the library) comes from CMakeLists.txt"
#endif

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
  return flags.over(machine_environments(TemplateStore::active(), loaded_driver_version(), probe_nvrtc_version(),
                                         JITGEMM_VERSION));
}

// "driver 13000, nvrtc 13000, jitgemm 0.1.0, templates embedded"; an unknown driver reads
// "driver: not known here (give --driver)", an unknown NVRTC likewise.
std::string describe(const Environments& env, const EnvironmentFlags& flags) {
  const std::string driver = env.driver_version ? fmt::format("driver {}", *env.driver_version)
                                                : std::string("driver: not known here (give --driver)");
  const std::string nvrtc = env.nvrtc_version ? fmt::format("nvrtc {}", *env.nvrtc_version)
                                              : std::string("nvrtc: not known here (give --nvrtc)");
  const std::string templates = flags.template_hash.empty() ? TemplateStore::active().origin() : "--template-hash";
  return fmt::format("{}, {}, jitgemm {}, templates {}", driver, nvrtc, printable(env.jitgemm_version.value_or("?")),
                     printable(templates));
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

int run_explain(const ExplainOptions& given, const TuningDatabase& db) {
  ExplainOptions o = given;
  if (o.device.sm_count == 0)  // as the driver would say: from a record of this device
    for (const TuningRecord& r : db.records())
      if (r.device.name == o.device.name && r.device.sm == o.device.sm) {
        o.device.sm_count = r.device.sm_count;
        break;
      }
  const ProblemKey key = explained_key(o);
  const Environments env = explain_environments(o.environment);
  const ServingDecision decision = lookup(db, o.device, key, env);
  fmt::print("problem:  {}\ndevice:   {} sm{}\n", key.canonical(), printable(o.device.name), o.device.sm);
  fmt::print("decision: {}\nconfig:   {}\n", printable(decision.explanation), decision.config.name());
  fmt::print("stale:    {}\n", printable(staleness_text(decision)));
  fmt::print("env:      {}\n", describe(env, o.environment));
  print_records(db, o.device, key, env, decision);
  return 0;
}

}  // namespace jitgemm
