// served_config.hpp — a tuned config carried over to a nearby problem of the same kind.
//
// The serving policy (database/serving_policy.hpp) serves a problem without a record of its
// own with the tiles of the nearest record of the same kind. The record's config was tuned
// and verified for the record's problem; this is the one place that says what must change
// for another problem:
//   - the K split (SIMT and mma.sync: KernelFamilyRules::adapt of each family) is re-derived for this problem: the split keeps the
//     accuracy contract, and it depends on K and the output size (default_split_k);
//   - a wgmma config that reads an operand in place which this problem's memory does not
//     allow (alignment, layout: wgmma_runs_in_place) reads it through the pre-pass instead
//     (the register-A / in-kernel conversion fields back at their defaults).
//
//   if (auto config = adapt_record_config(record.config, key)) serve(*config);
//   else serve(untuned_config(key));
#pragma once

#include <optional>

#include "codegen/kernel_config.hpp"
#include "problem/problem_key.hpp"

namespace jitgemm {

// The config to run `key` with, given `tuned`, the config of a record tuned for a problem of
// the same kind (precision, transposes, structure, fill) but another shape or layout class.
// When present, the result is statically_valid and wgmma_runs_in_place(result, key); it keeps
// `tuned`'s family and tiles. nullopt: `tuned` cannot serve `key` (the adapted config no
// longer fits the static limits): the caller serves the default (untuned_config).
// An exact record (same key) needs no adaptation and is served as it is.
std::optional<KernelConfig> adapt_record_config(const KernelConfig& tuned, const ProblemKey& key);

}  // namespace jitgemm
