// jitgemm-db explain: the serving decision a Runtime on this machine would make for a problem
// on the given device (database/serving_policy.hpp: the same lookup, the same Environments),
// the config it would run, whether the served record is stale, and how every record relates.
//
// The environment compared is this machine's: the NVRTC libjitgemm would load (nvrtc_probe.hpp),
// this build's jitgemm version, the templates of TemplateStore::active() ($JITGEMM_TEMPLATE_DIR,
// else the embedded ones) and the driver's version when a CUDA driver loads. A version that
// does not load here is not known: it is not compared and explain says so (give --driver,
// --nvrtc). Each environment flag replaces its field. The options are set on the command line
// (db_command_line.cpp).
#pragma once

#include <string>

#include "database/device_key.hpp"
#include "database/tuning_database.hpp"
#include "environment_flags.hpp"
#include "jitgemm/problem.hpp"

namespace jitgemm {

struct ExplainOptions {
  GemmProblem problem;
  std::string trans_a = "N", trans_b = "N", precision = "fp32";
  std::string structure_a = "general", structure_b = "general", fill = "full";
  DeviceKey device;
  EnvironmentFlags environment;
};

// Prints the decision and the table of records; returns the exit status (0).
int run_explain(const ExplainOptions& o, const TuningDatabase& db);

}  // namespace jitgemm
