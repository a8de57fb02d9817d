// CompileQueue: ranked parallel compiles, taken as they finish (see compile_queue.hpp).
#include "tune/compile_queue.hpp"

#include <algorithm>
#include <chrono>
#include <limits>
#include <map>
#include <string>

#include "codegen/kernel_family.hpp"
#include "codegen/source_render.hpp"
#include "jitgemm/error.hpp"

namespace jitgemm {
namespace {

constexpr size_t kNone = std::numeric_limits<size_t>::max();

// The name of the kernel a config renders (configs differing only in split_k share one); a
// config whose name cannot be formed is a kernel of its own (its render will say why).
std::string kernel_key(const KernelConfig& c, const KernelSpecialization& s) {
  try {
    return rules_of(c).kernel_name(c, s);
  } catch (const std::exception&) {
    return "!" + c.name();
  }
}

}  // namespace

CompileQueue::CompileQueue(std::vector<KernelConfig> configs, const std::vector<size_t>& order,
                           const KernelSpecialization& specialization, CompileKernel compile,
                           const TemplateStore& templates, int jobs, TuningClock clock, CompileProgress progress)
    : results_(configs.size()),
      rank_of_(configs.size(), kNone),
      kernel_of_(configs.size(), kNone),
      specialization_(specialization),
      compile_(std::move(compile)),
      templates_(templates),
      clock_(std::move(clock)),
      progress_(std::move(progress)) {
  for (size_t i = 0; i < configs.size(); ++i) results_[i].config = std::move(configs[i]);
  std::map<std::string, size_t> kernel_named;
  for (size_t rank = 0; rank < order.size(); ++rank) {
    const size_t i = order[rank];
    if (i >= results_.size() || rank_of_[i] != kNone) continue;  // out of range or listed twice
    rank_of_[i] = rank;
    const auto [it, inserted] = kernel_named.emplace(kernel_key(results_[i].config, specialization_), kernels_.size());
    if (inserted) kernels_.emplace_back();
    kernel_of_[i] = it->second;
    kernels_[it->second].configs.push_back(i);
  }
  stats_.kernels = kernels_.size();
  unsigned threads = jobs > 0 ? static_cast<unsigned>(jobs) : std::max(1u, std::thread::hardware_concurrency());
  threads = std::min<unsigned>(threads, static_cast<unsigned>(std::max<size_t>(1, kernels_.size())));
  for (unsigned t = 0; t < threads && !kernels_.empty(); ++t) threads_.emplace_back([this] { work(); });
}

CompileQueue::~CompileQueue() {
  stop_starting();
  threads_.clear();  // joins
}

void CompileQueue::work() {
  for (;;) {
    size_t kernel = 0;
    {
      std::lock_guard lock(mutex_);
      if (stop_ || next_kernel_ >= kernels_.size()) return;
      kernel = next_kernel_++;
      ++in_flight_;
      ++stats_.started;
      if (stats_.first_start_s < 0) stats_.first_start_s = clock_();
    }
    compile_kernel(kernel);
  }
}

// Renders and compiles one kernel and delivers every config that shares it; an exception from
// the compiler stops the queue.
void CompileQueue::compile_kernel(size_t kernel) {
  const std::vector<size_t>& configs = kernels_[kernel].configs;
  CompiledCandidate& lead = results_[configs.front()];
  const double start_s = clock_();
  try {
    bool rendered = true;
    try {
      lead.rendered = render_kernel(lead.config, specialization_, templates_);
    } catch (const InvalidArgument& e) {  // an unrenderable config is an outcome, like a compile error
      lead.outcome.ok = false;
      lead.outcome.log = e.what();
      rendered = false;
    }
    if (rendered) lead.outcome = compile_(lead.rendered);  // a compile error: ok=false with the log
  } catch (...) {  // a broken environment
    std::lock_guard lock(mutex_);
    if (!error_) error_ = std::current_exception();
    stop_ = true;
    --in_flight_;
    ready_changed_.notify_all();
    return;
  }
  const double end_s = clock_();
  std::lock_guard lock(mutex_);
  for (size_t i : configs) {
    if (i != configs.front()) results_[i].rendered = lead.rendered, results_[i].outcome = lead.outcome;
    ready_.emplace(rank_of_[i], i);
  }
  compile_seconds_ += end_s - start_s;
  ++stats_.finished;
  stats_.mean_compile_s = compile_seconds_ / static_cast<double>(stats_.finished);
  stats_.last_finish_s = std::max(stats_.last_finish_s, end_s);
  --in_flight_;
  try {
    if (progress_) progress_(stats_.finished, kernels_.size(), lead);
  } catch (...) {  // a progress report that fails (a full disk) ends the run like a broken compiler
    if (!error_) error_ = std::current_exception();
    stop_ = true;
  }
  ready_changed_.notify_all();
}

bool CompileQueue::done_locked() const {
  return !error_ && ready_.empty() && in_flight_ == 0 && (stop_ || next_kernel_ >= kernels_.size());
}

std::optional<size_t> CompileQueue::next(double timeout_s) {
  std::unique_lock lock(mutex_);
  const auto wait = std::chrono::duration<double>(std::max(0.0, timeout_s));
  ready_changed_.wait_for(lock, wait, [&] { return !ready_.empty() || done_locked() || (error_ && !in_flight_); });
  if (error_) {
    ready_changed_.wait(lock, [&] { return in_flight_ == 0; });
    std::rethrow_exception(error_);
  }
  if (ready_.empty()) return std::nullopt;
  const size_t index = ready_.begin()->second;
  ready_.erase(ready_.begin());
  return index;
}

void CompileQueue::stop_starting() {
  std::lock_guard lock(mutex_);
  stop_ = true;
  ready_changed_.notify_all();
}

bool CompileQueue::done() const {
  std::lock_guard lock(mutex_);
  return done_locked();
}

bool CompileQueue::started(size_t index) const {
  std::lock_guard lock(mutex_);
  return index < kernel_of_.size() && kernel_of_[index] != kNone && kernel_of_[index] < next_kernel_;
}

CompileQueueStats CompileQueue::stats() const {
  std::lock_guard lock(mutex_);
  CompileQueueStats s = stats_;
  s.in_flight = in_flight_;
  s.ready = ready_.size();
  return s;
}

}  // namespace jitgemm
