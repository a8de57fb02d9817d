// Runtime: validate -> select (database) -> module cache -> launch. Tunes only when asked.
#include "jitgemm/runtime.hpp"

#include <fmt/format.h>

#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <mutex>

#include "codegen/kernel_family.hpp"
#include "codegen/template_store.hpp"
#include "compile/binary_cache.hpp"
#include "compile/compiler.hpp"
#include "cuda/context.hpp"
#include "cuda/device_info.hpp"
#include "cuda/driver_api.hpp"
#include "cuda/stream.hpp"
#include "database/default_database.hpp"
#include "database/device_key.hpp"
#include "database/environments.hpp"
#include "database/record_from_tuning.hpp"
#include "database/serving_policy.hpp"
#include "database/tuning_database.hpp"
#include "database/tuning_priors.hpp"
#include "exec/gemm_launch.hpp"
#include "exec/zero_diagonal.hpp"
#include "jitgemm/error.hpp"
#include "launch/backward_checks.hpp"
#include "launch/kernel_cache.hpp"
#include "launch/memoized_selector.hpp"
#include "launch/operand_checks.hpp"
#include "launch/plan_cache.hpp"
#include "launch/served_problem.hpp"
#include "launch/workspace_pool.hpp"
#include "problem/gemm_work.hpp"
#include "problem/problem_key.hpp"
#include "tune/tuner.hpp"

#ifndef JITGEMM_VERSION
#define JITGEMM_VERSION "0.0.0"
#endif

namespace jitgemm {

std::string_view version() noexcept { return JITGEMM_VERSION; }

namespace {

std::string first_non_empty(const std::string& option, const char* env, const std::string& fallback) {
  if (!option.empty()) return option;
  if (const char* value = std::getenv(env); value != nullptr && *value != '\0') return value;
  return fallback;
}

const TemplateStore& templates_for(const std::string& dir, std::unique_ptr<TemplateStore>& owned) {
  if (dir.empty()) return TemplateStore::active();
  owned = std::make_unique<TemplateStore>(TemplateStore::from_directory(dir));
  return *owned;
}

// This machine's environment for records of each kernel family (the template hash differs
// per family: TemplateStore::template_hash, no kernel rendered).
Environments this_machine(const cuda::DeviceInfo& info, const TemplateStore& templates) {
  return machine_environments(templates, info.driver_version, nvrtc_version(), std::string(version()));
}

// The public name of a serving rule.
ServeRule to_serve_rule(ServingRule rule) noexcept {
  switch (rule) {
    case ServingRule::Exact: return ServeRule::Exact;
    case ServingRule::Sibling:  // the public rules: a sibling device's record is a nearest one
    case ServingRule::Nearest: return ServeRule::Nearest;
    case ServingRule::Default: return ServeRule::Default;
  }
  return ServeRule::Default;
}

// The database is read first, so a damaged file is the error a Runtime reports.
MemoizedSelector load_selector(const std::string& database_path, const DeviceKey& device,
                               const cuda::DeviceInfo& info, const TemplateStore& templates) {
  TuningDatabase database = TuningDatabase::load(database_path);
  return MemoizedSelector(std::move(database), device, this_machine(info, templates));
}

}  // namespace

struct Runtime::Impl {
  RuntimeOptions options;
  cuda::PrimaryContext context;
  cuda::DeviceInfo info;
  DeviceKey device;
  std::unique_ptr<TemplateStore> owned_templates;
  const TemplateStore& templates;
  Compiler compiler;
  KernelCache kernels;
  GemmLauncher launcher;
  PlanCache plans;
  WorkspacePool workspaces;
  std::string database_path;
  mutable std::mutex database_mutex;  // guards selector (the database and its memo)
  MemoizedSelector selector;
  std::atomic<uint64_t> exact{0}, nearest{0}, fallback{0}, stale{0};
  std::atomic<int> last_rule{static_cast<int>(ServeRule::Default)};

  explicit Impl(RuntimeOptions opts)
      : options(std::move(opts)),
        context(options.device),
        info(cuda::query_device(options.device)),
        device(device_key(info)),
        templates(templates_for(first_non_empty(options.template_dir, "JITGEMM_TEMPLATE_DIR", ""), owned_templates)),
        compiler(std::filesystem::path(
            first_non_empty(options.cache_dir, "JITGEMM_CACHE_DIR", BinaryCache::default_dir().string()))),
        kernels(compiler, templates),
        launcher(compiler, templates, info.sm_count),
        database_path(options.database_path.empty() ? default_database_path() : options.database_path),
        selector(load_selector(database_path, device, info, templates)) {}

  const uint64_t owner = ThreadServeCache::new_owner();
  // Bumped when the database changes (tune): the threads' serve caches then miss and select
  // again. Read before a selection, so a cache entry never outlives the database it came from.
  std::atomic<uint64_t> generation{0};

  // A validated, checked product: the thread's serve cache, else selection (database) ->
  // module cache -> plan; then the launch.
  void serve(const GemmProblem& problem, const float* a, const float* b, float* c, CUstream_st* stream) {
    const GemmWork work = gemm_work(problem);
    if (work == GemmWork::None) return;  // an empty C: nothing to do (BLAS)
    context.make_current();
    const auto cu_stream = reinterpret_cast<CUstream>(stream);
    if (work == GemmWork::ScaleOutput) {  // C = beta * C, A and B not read (BLAS)
      launcher.scale_output(problem, reinterpret_cast<CUdeviceptr>(c), cu_stream);
      return;
    }
    const ProblemKey key = make_problem_key(problem, a, b, c);
    const uint64_t gen = generation.load(std::memory_order_acquire);
    const ServedProblem* served = ThreadServeCache::find(owner, gen, key);
    if (served == nullptr) {
      std::shared_ptr<const ServedProblem> made = make_served(key, cu_stream, problem);
      served = made.get();
      ThreadServeCache::remember(owner, gen, std::move(made));  // keeps it alive for the launch
    }
    launch(*served, problem, a, b, c, cu_stream);
  }

  // Selection -> module cache -> plan -> the plan's kernels, for a key not in the thread's cache.
  std::shared_ptr<const ServedProblem> make_served(const ProblemKey& key, CUstream stream, const GemmProblem& problem) {
    auto served = std::make_shared<ServedProblem>();
    served->key = key;
    KernelConfig config;
    {
      std::lock_guard lock(database_mutex);
      const ServingDecision& decision = selector.select(key);
      served->rule = decision.rule;
      served->stale = decision.stale();
      config = decision.config;
    }
    if (stream != nullptr && cuda::is_capturing(stream) && !plans.find(config, key))
      throw NotSupported(fmt::format(
          "Runtime::gemm: {} is captured into a CUDA graph before it ever ran: run it once outside the capture first "
          "(a warm-up compiles its kernel and uploads its launch plan, which a capture cannot do)",
          problem.to_string()));
    const LoadedKernel& kernel = kernels.get(config, specialization_of(key));
    served->plan = plans.get(launcher, kernel.function, config, key);
    served->kernels = launcher.kernels(*served->plan, kernel.function);
    return served;
  }

  // The launch of a served key with the call's leading dimensions, alpha, beta and operands.
  void launch(const ServedProblem& served, const GemmProblem& problem, const float* a, const float* b, float* c,
              CUstream stream) {
    count(served.rule, served.stale);
    const size_t bytes = served.plan->workspace.total_bytes;
    const bool capturing = bytes > 0 && cuda::is_capturing(stream);
    const WorkspacePool::Lease workspace = workspaces.get(stream, bytes, capturing);
    launcher.launch(*served.plan, served.kernels, problem, reinterpret_cast<CUdeviceptr>(a),
                    reinterpret_cast<CUdeviceptr>(b), reinterpret_cast<CUdeviceptr>(c), workspace.get(), stream);
  }

  // One gradient (jitgemm/backward.hpp): its product, the transposed product added for a
  // symmetric projection, the diagonal zeroed for a unit-diagonal one. Those two steps only
  // follow a real product: an empty or all-zero gradient is already projected.
  void serve_gradient(const GradientProblem& g, const GradientOperands& ops, CUstream_st* stream) {
    const GemmProblem& p = g.product;
    float* out = static_cast<float*>(ops.out);
    serve(p, static_cast<const float*>(ops.first), static_cast<const float*>(ops.second), out, stream);
    if (gemm_work(p) != GemmWork::Product) return;
    if (g.transposed_sum)  // X^T = op(second)^T op(first)^T: the operands exchange places
      serve(*g.transposed_sum, static_cast<const float*>(ops.second), static_cast<const float*>(ops.first), out,
            stream);
    if (g.zero_diagonal)
      zero_diagonal(reinterpret_cast<CUdeviceptr>(out), p.m, p.n, p.effective_ldc(), reinterpret_cast<CUstream>(stream));
  }

  void count(ServingRule serving_rule, bool is_stale) {
    const ServeRule rule = to_serve_rule(serving_rule);
    (rule == ServeRule::Exact ? exact : rule == ServeRule::Nearest ? nearest : fallback)
        .fetch_add(1, std::memory_order_relaxed);
    if (is_stale) stale.fetch_add(1, std::memory_order_relaxed);
    last_rule.store(static_cast<int>(rule), std::memory_order_relaxed);
  }
};

Runtime::Runtime(RuntimeOptions options) : impl_(std::make_unique<Impl>(std::move(options))) {}
Runtime::~Runtime() = default;
Runtime::Runtime(Runtime&&) noexcept = default;
Runtime& Runtime::operator=(Runtime&&) noexcept = default;

void Runtime::gemm(const GemmProblem& problem, const float* a, const float* b, float* c, CUstream_st* stream) {
  problem.validate("Runtime::gemm");
  check_operands(problem, a, b, c);
  impl_->serve(problem, a, b, c, stream);
}

void Runtime::gemm_backward(const GemmProblem& problem, const float* dc, const float* a, const float* b, float* da,
                            float* db, CUstream_st* stream, const BackwardOptions& options) {
  // The options are checked even when nothing is computed: a bad call fails the same way always.
  const BackwardProblems grads = backward_problems(problem, options);
  const BackwardOperands ptrs{dc, a, b, da, db};
  check_backward_operands(grads, ptrs);
  // dA first: check_backward_operands made sure dA does not overlap what dB's product reads.
  if (da != nullptr) impl_->serve_gradient(grads.da, da_operands(grads.da, ptrs), stream);
  if (db != nullptr) impl_->serve_gradient(grads.db, db_operands(grads.db, ptrs), stream);
}

struct GemmPlan::State {
  Runtime::Impl* runtime = nullptr;
  GemmProblem problem;
  std::shared_ptr<const ServedProblem> served;  // null when the problem multiplies nothing
};

GemmPlan Runtime::plan(const GemmProblem& problem) {
  problem.validate("Runtime::plan");
  auto state = std::make_shared<GemmPlan::State>();
  state->runtime = impl_.get();
  state->problem = problem;
  if (gemm_work(problem) == GemmWork::Product) {
    impl_->context.make_current();
    // The key of 16-byte aligned operands (make_problem_key assumes 256-byte aligned ones).
    state->served = impl_->make_served(make_problem_key(problem), nullptr, problem);
  }
  GemmPlan plan;
  plan.state_ = std::move(state);
  return plan;
}

void GemmPlan::run(const float* a, const float* b, float* c, CUstream_st* stream) const {
  if (state_ == nullptr) throw InvalidArgument("GemmPlan::run: the plan is empty (default-constructed or moved from)");
  const GemmProblem& p = state_->problem;
  check_operands(p, a, b, c, "GemmPlan::run");
  Runtime::Impl& runtime = *state_->runtime;
  const ServedProblem* served = state_->served.get();
  // Operands at other alignments than the plan's take another kernel: Runtime::gemm's path.
  if (served == nullptr || vector_width(p.effective_lda(), a) != served->key.vec_a ||
      vector_width(p.effective_ldb(), b) != served->key.vec_b || vector_width(p.effective_ldc(), c) != served->key.vec_c)
    return runtime.serve(p, a, b, c, stream);
  runtime.context.make_current();
  runtime.launch(*served, p, a, b, c, reinterpret_cast<CUstream>(stream));
}

const GemmProblem& GemmPlan::problem() const {
  if (state_ == nullptr) throw InvalidArgument("GemmPlan::problem: the plan is empty");
  return state_->problem;
}

std::string GemmPlan::kernel() const {
  if (state_ == nullptr) throw InvalidArgument("GemmPlan::kernel: the plan is empty");
  return state_->served != nullptr ? state_->served->plan->config.name() : std::string();
}

double Runtime::tune(const GemmProblem& problem, const TuneOptions& options) {
  check_tunable(problem, "Runtime::tune");
  Impl& im = *impl_;
  im.context.make_current();
  TuneSettings settings;
  settings.jobs = options.jobs;
  settings.timing_runs = std::max(20, options.timing_runs);
  settings.search = search_for_budget(options.budget_s), settings.budget_s = options.budget_s;
  {  // as jitgemm-tune: what the database knows is tried first (budgeted), and a re-tune keeps the
     // problem's own record unless a finalist beats it by more than TuneSettings::incumbent_margin
    std::lock_guard lock(im.database_mutex);
    const ProblemKey key = make_problem_key(problem);
    if (options.budget_s > 0) settings.priors = tuning_priors(im.selector.database(), im.device, key);
    settings.incumbent = tuning_incumbent(im.selector.database(), im.device, key);
  }
  const TuneResult result = tune_problem(problem, im.info, im.compiler, im.templates, settings);
  if (result.best() == nullptr)
    throw Error(fmt::format("Runtime::tune: no candidate for {} passed verification ({} tried)", problem.to_string(),
                            result.candidates.size()));
  TunedRecord tuned = make_tuned_record(result, im.device, current_environment(im.info, result.template_hash));
  if (options.write_database) TuningDatabase::save_merged(im.database_path, {tuned.record}, {tuned.history});
  std::lock_guard lock(im.database_mutex);
  im.selector.upsert(std::move(tuned.record));
  im.generation.fetch_add(1, std::memory_order_acq_rel);
  return result.best()->timing.median_ms;
}

ServeExplanation Runtime::explain(const GemmProblem& problem) const {
  problem.validate("Runtime::explain");
  const ProblemKey key = make_problem_key(problem);
  std::lock_guard lock(impl_->database_mutex);
  const ServingDecision& d = impl_->selector.select(key);
  ServeExplanation e;
  e.rule = to_serve_rule(d.rule);
  e.kernel = d.config.name();
  e.record = d.record != nullptr ? d.record->key() : std::string();
  e.stale = d.stale();
  e.text = fmt::format("problem:  {}\ndevice:   {}\ndecision: {}\nkernel:   {}\nstale:    {}\n", key.canonical(),
                       impl_->info.name, d.explanation, e.kernel, staleness_text(d));
  return e;
}

ServeCounters Runtime::serve_counters() const {
  return {impl_->exact.load(), impl_->nearest.load(), impl_->fallback.load(), impl_->stale.load()};
}

ServeRule Runtime::last_serve_rule() const { return static_cast<ServeRule>(impl_->last_rule.load()); }

std::string Runtime::device_name() const { return impl_->info.name; }

}  // namespace jitgemm
