#include "tune/record_refresh.hpp"

#include <fmt/format.h>

#include <map>
#include <optional>

#include "codegen/kernel_family.hpp"
#include "codegen/source_render.hpp"
#include "codegen/support_templates.hpp"
#include "database/environments.hpp"
#include "exec/launch_plan.hpp"
#include "jitgemm/runtime.hpp"

namespace jitgemm {
namespace {

// The cubin of `record`'s kernel under `templates`, or the reason there is none.
struct Built {
  std::vector<char> cubin;
  std::string error;
};

Built build(const TuningRecord& record, const TemplateStore& templates, const Compiler& compiler) {
  try {
    const RenderedKernel kernel = render_kernel(record.config, specialization_of(record.problem), templates);
    const CompileOutcome out = compiler.compile(kernel.source, kernel.kernel_name, CompileOptions{});
    if (!out.ok) return {{}, fmt::format("{} does not compile: {}", kernel.kernel_name, out.log)};
    return {out.kernel.cubin, {}};
  } catch (const Error& e) {
    return {{}, e.what()};
  }
}

// A support kernel a record's launches run: its name and source.
struct SupportKernel {
  std::string name, source;
};

// The support kernels of a record's plan under `templates`: its pre-passes (dense copies, planes),
// the split-K reduction where it cuts K, the edge strips where its tiles leave some. Plans do not
// depend on the SM count in which kernels they launch.
std::vector<SupportKernel> support_kernels(const TuningRecord& record, const TemplateStore& templates) {
  const LaunchPlan plan = make_launch_plan(record.config, record.problem, DeviceSlots{132, 0});
  std::vector<SupportKernel> out;
  const PlanSplitPasses passes = split_passes(plan);
  for (const std::optional<SplitPass>& pass : {passes.copy_a, passes.copy_b, passes.split_a, passes.split_b}) {
    if (!pass) continue;
    RenderedKernel k = pass->render(templates);
    out.push_back({std::move(k.kernel_name), std::move(k.source)});
  }
  if (record.config.split_k > 1) out.push_back({"split_k_reduce", templates.expand_includes(kSplitKReduceTemplate)});
  if (plan.strips.any(record.problem.m, record.problem.n))
    out.push_back({"edge_strips", templates.expand_includes(kEdgeStripsTemplate)});
  return out;
}

// Cubins of support kernels by source, shared by the records that launch the same ones.
class SupportCubins {
 public:
  explicit SupportCubins(const Compiler& compiler) : compiler_(compiler) {}
  // The first of the record's support kernels whose cubin differs between the two stores, or
  // why one did not build; empty when they are all the same.
  std::string first_difference(const TuningRecord& record, const TemplateStore& before, const TemplateStore& after) {
    std::vector<SupportKernel> old_kernels, new_kernels;
    try {
      old_kernels = support_kernels(record, before), new_kernels = support_kernels(record, after);
    } catch (const Error& e) {
      return fmt::format("its support kernels do not render: {}", e.what());
    }
    if (old_kernels.size() != new_kernels.size()) return "its launches run other support kernels";
    for (size_t i = 0; i < old_kernels.size(); ++i) {
      if (old_kernels[i].source == new_kernels[i].source) continue;
      const Built& was = cubin(old_kernels[i]);
      const Built& is = cubin(new_kernels[i]);
      if (!was.error.empty() || !is.error.empty() || was.cubin != is.cubin)
        return fmt::format("support kernel {} -> {} {}", old_kernels[i].name, new_kernels[i].name,
                           !was.error.empty() ? "did not compile before" : !is.error.empty() ? "does not compile now"
                                                                                             : "compiles differently");
    }
    return {};
  }

 private:
  const Built& cubin(const SupportKernel& k) {
    auto [at, added] = built_.try_emplace(k.source);
    if (added) {
      const CompileOutcome out = compiler_.compile(k.source, k.name, CompileOptions{});
      at->second = out.ok ? Built{out.kernel.cubin, {}} : Built{{}, out.log.empty() ? "failed" : out.log};
    }
    return at->second;
  }
  const Compiler& compiler_;
  std::map<std::string, Built> built_;
};

}  // namespace

std::string_view to_string(RefreshOutcome outcome) noexcept {
  switch (outcome) {
    case RefreshOutcome::Refreshed: return "refreshed";
    case RefreshOutcome::KernelChanged: return "kernel changed";
    case RefreshOutcome::OtherTemplates: return "other templates";
    case RefreshOutcome::OtherFields: return "stale otherwise";
    case RefreshOutcome::NotCompiled: return "not compiled";
  }
  return "?";
}

std::vector<RecordRefresh> refresh_unchanged(TuningDatabase& db, const TemplateStore& tuned_with,
                                             const TemplateStore& current, const Compiler& compiler) {
  const Environments now = machine_environments(current, std::nullopt, nvrtc_version(), std::string(version()));
  // Of `tuned_with`, per family as records ask: its hash, the family-template-only hash records
  // stamped before session 45 carry, and whether a support kernel's template differs from this
  // build's (then the records' own support kernels are compared, SupportCubins).
  struct Before {
    std::string hash, legacy_hash;
    bool support_changed = false;
  };
  std::map<KernelFamily, Before> tuned_with_hashes;
  std::vector<RecordRefresh> out;
  std::vector<TuningRecord> refreshed;
  SupportCubins support(compiler);
  for (const TuningRecord& record : db.records()) {
    const std::vector<StaleField> stale = staleness(record, now);
    bool template_hash = false, other = false;
    for (const StaleField& f : stale) (f.field == EnvironmentField::TemplateHash ? template_hash : other) = true;
    if (!template_hash) continue;  // current in its templates: nothing to refresh
    RecordRefresh r{record.key(), RefreshOutcome::Refreshed, {}};
    const KernelFamily family = record.config.family();
    const std::string_view path = template_path(family);
    auto [at, added] = tuned_with_hashes.try_emplace(family);
    if (added) {
      at->second = {family_template_hash(tuned_with, family), legacy_template_hash(tuned_with, family), false};
      for (std::string_view support : family_rules(family).support_template_paths())
        at->second.support_changed |= tuned_with.expand_includes(support) != current.expand_includes(support);
    }
    const std::string& before = at->second.hash;
    const std::string& after = now.template_hashes.at(family);
    const std::string& tuned = record.environment.template_hash;
    if (other) {
      r.outcome = RefreshOutcome::OtherFields, r.detail = to_string(stale);
    } else if (tuned != before && tuned != at->second.legacy_hash) {
      r.outcome = RefreshOutcome::OtherTemplates;
      r.detail = fmt::format("tuned with {} templates {}, not {} ({})", path, tuned, before, tuned_with.origin());
    } else if (const std::string support_change =
                   at->second.support_changed ? support.first_difference(record, tuned_with, current) : std::string();
               !support_change.empty()) {
      // A support template changed, and with it a kernel this record's launches run.
      r.outcome = RefreshOutcome::KernelChanged;
      r.detail = fmt::format("{} templates {} -> {}: {}", path, tuned, after, support_change);
    } else {
      const Built old_kernel = build(record, tuned_with, compiler), new_kernel = build(record, current, compiler);
      if (!old_kernel.error.empty() || !new_kernel.error.empty()) {
        r.outcome = RefreshOutcome::NotCompiled;
        r.detail = !old_kernel.error.empty() ? "before: " + old_kernel.error : "now: " + new_kernel.error;
      } else if (old_kernel.cubin != new_kernel.cubin) {
        r.outcome = RefreshOutcome::KernelChanged;
        r.detail = fmt::format("{} templates {} -> {}: the cubins differ", path, tuned, after);
      } else {
        r.detail = fmt::format("{} templates {} -> {}: the same cubin ({} bytes)", path, tuned, after,
                               new_kernel.cubin.size());
        TuningRecord updated = record;
        updated.environment.template_hash = after;
        refreshed.push_back(std::move(updated));
      }
    }
    out.push_back(std::move(r));
  }
  for (TuningRecord& r : refreshed) db.upsert(std::move(r));
  return out;
}

}  // namespace jitgemm
