// The software environment given on jitgemm-db's command line (--driver, --nvrtc,
// --template-hash, --jitgemm-version), turned into the Environments that staleness() compares
// records with: prune --stale compares only the fields given; explain compares this
// machine's environment with the given fields replaced.
#pragma once

#include <CLI/CLI.hpp>

#include <string>

#include "database/environments.hpp"

namespace jitgemm {

struct EnvironmentFlags {
  int driver = 0;  // 0: not given
  int nvrtc = 0;   // 0: not given
  std::string template_hash;
  std::string jitgemm_version;

  bool any() const { return driver > 0 || nvrtc > 0 || !template_hash.empty() || !jitgemm_version.empty(); }
  // `base` with each given flag replacing its field (--template-hash: every family's hash).
  Environments over(Environments base) const;
};

void add_environment_flags(CLI::App& cmd, EnvironmentFlags& env);

}  // namespace jitgemm
