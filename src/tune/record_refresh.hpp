// record_refresh.hpp — records that a template change left stale without changing their kernel.
//
// A record is stale when the template hash it was tuned with differs from this build's: an
// edit anywhere in its family's template, the headers it includes or the support kernels its
// launches run (family_template_hash). Only a re-tune on its GPU
// re-establishes a stale record's timing. But an edit often leaves most kernels as they were (a
// constexpr path that other configs never take, a comment): a record whose kernel, rendered for
// its own problem, compiles to the same cubin under the templates it was tuned with and under
// this build's measures what it measured. refresh_unchanged() finds those and writes this
// build's template hash into their environment (nothing else of the record changes); the others
// stay stale for `jitgemm-tune --stale` on their GPU. Where a support kernel's template (pre-pass,
// split-K reduction, edge strips) changed between the two, the support kernels the record's
// launches run (its launch plan's) are compared the same way, each cubin against its twin. A
// record stamped with the family template's
// hash alone (legacy_template_hash, before session 45) is taken as tuned with `tuned_with` when
// that hash matches, and re-stamped: `--refresh-unchanged` with this build's own templates
// migrates a database. It needs NVRTC, no GPU.
//
//   const TemplateStore before = TemplateStore::from_directory("base/kernel_templates");
//   TuningDatabase db = TuningDatabase::load(path);
//   for (const RecordRefresh& r : refresh_unchanged(db, before, TemplateStore::active(), Compiler(std::nullopt)))
//     fmt::print("{}: {}\n", r.key, to_string(r.outcome));
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "codegen/template_store.hpp"
#include "compile/compiler.hpp"
#include "database/tuning_database.hpp"

namespace jitgemm {

enum class RefreshOutcome {
  Refreshed,      // same cubin under both: this build's template hash taken
  KernelChanged,  // the cubins differ, or a support kernel changed: stays stale (re-tune it)
  OtherTemplates, // tuned with templates other than `tuned_with` (its hash is neither's): untouched
  OtherFields,    // stale in more than the template hash (driver, NVRTC, jitgemm version): untouched
  NotCompiled,    // its kernel did not render or compile under one of them: untouched
};

std::string_view to_string(RefreshOutcome outcome) noexcept;  // "refreshed", "kernel changed", ...

struct RecordRefresh {
  std::string key;  // TuningRecord::key()
  RefreshOutcome outcome = RefreshOutcome::Refreshed;
  std::string detail;  // why, in words (the stale fields, the compile error, the two hashes)
};

// For every record of `db` whose template hash differs from `current`'s for its family (the
// records current in it are not listed): compares the cubins of its kernel (its config,
// rendered for the specialization of its own problem) under `tuned_with` and `current`,
// compiled by `compiler`, and refreshes the record in `db` where they are the same. Records stale
// in a field other than the template hash, as far as this machine knows (NVRTC, jitgemm
// version; the driver is not compared), are left alone: their kernels may compile alike and
// still run differently. In the order of db.records().
std::vector<RecordRefresh> refresh_unchanged(TuningDatabase& db, const TemplateStore& tuned_with,
                                             const TemplateStore& current, const Compiler& compiler);

}  // namespace jitgemm
