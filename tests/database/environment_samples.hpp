// Environments for the serving-policy tests: one EnvironmentKey for every family, or a
// distinct template hash per family.
#pragma once

#include <fmt/format.h>

#include "database/environments.hpp"
#include "database/record_samples.hpp"

namespace jitgemm::testing {

// Every field known; every family's template hash key.template_hash.
inline Environments environments_of(const EnvironmentKey& key) {
  Environments out{key.driver_version, key.nvrtc_version, key.jitgemm_version, {}};
  for (KernelFamily f : kKernelFamilies) out.template_hashes[f] = key.template_hash;
  return out;
}

// kEnv's versions; family f's template hash "tmpl-<f>".
inline Environments per_family_environments() {
  Environments out = environments_of(kEnv);
  for (KernelFamily f : kKernelFamilies) out.template_hashes[f] = fmt::format("tmpl-{}", to_string(f));
  return out;
}

}  // namespace jitgemm::testing
