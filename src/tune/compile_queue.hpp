// compile_queue.hpp — the budgeted search's producer: threads that render and compile a
// problem's candidates in the order the search ranked them, while the calling thread takes
// each one as soon as it is compiled (best ranked first among those ready) and measures it.
// compile_candidates (tune/candidate_compiler.hpp) drains one in the input order. Configs that
// render the same kernel (they differ in split_k only) share one compile; an unrenderable
// config, a compile error and spills are the candidate's outcome; anything the compiler throws
// is a broken environment: no further compile starts, and next() rethrows it once the threads
// have stopped.
//
//   CompileQueue queue(configs, order, specialization, compile, templates, jobs, clock);
//   while (auto i = queue.next(0.05)) measure(queue.candidate(*i));   // nullopt: timeout or done
//   ... queue.stop_starting() when the budget says so; queue.done() once nothing more will come.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <exception>
#include <mutex>
#include <optional>
#include <set>
#include <thread>
#include <vector>

#include "tune/candidate_compiler.hpp"
#include "tune/tuning_budget.hpp"

namespace jitgemm {

struct CompileQueueStats {
  size_t kernels = 0;           // distinct kernels of the configs in the order
  size_t started = 0;           // compiles started
  size_t finished = 0;          // and finished (delivered)
  size_t in_flight = 0;         // compiles under way
  size_t ready = 0;             // configs compiled and not yet taken
  double mean_compile_s = 0;    // wall seconds per finished compile (0 before the first)
  double first_start_s = -1;    // clock readings: the first compile's start, the last one's end
  double last_finish_s = -1;
};

class CompileQueue {
 public:
  // Compiles the kernels of configs[order[0]], configs[order[1]], ... (a config not in `order`
  // is never compiled) on `jobs` threads (<= 0: hardware threads), starting at once.
  // `progress` is called under the queue's lock from the compiling threads.
  CompileQueue(std::vector<KernelConfig> configs, const std::vector<size_t>& order,
               const KernelSpecialization& specialization, CompileKernel compile, const TemplateStore& templates,
               int jobs, TuningClock clock, CompileProgress progress = {});
  // Stops starting compiles and joins the threads (a compile under way finishes first).
  ~CompileQueue();
  CompileQueue(const CompileQueue&) = delete;
  CompileQueue& operator=(const CompileQueue&) = delete;

  // The index (into configs) of a compiled config not taken before: the best ranked of those
  // ready, waiting up to `timeout_s` (real time) for one. nullopt on timeout or once done().
  // Rethrows a compile's exception, after the threads have stopped.
  std::optional<size_t> next(double timeout_s);
  // No compile starts after this; those under way finish and are delivered.
  void stop_starting();
  // Nothing more will be delivered: every compile started has been, and none will start.
  // False after a compile threw: next() throws it.
  bool done() const;
  // Whether config `index`'s kernel was ever started (false: left out by stop_starting).
  bool started(size_t index) const;
  CompileQueueStats stats() const;

  // A config that next() returned; unchanged from then on.
  const CompiledCandidate& candidate(size_t index) const { return results_[index]; }

 private:
  struct Kernel {
    std::vector<size_t> configs;  // sharing it, in rank order
  };
  void work();
  void compile_kernel(size_t kernel);
  bool done_locked() const;

  std::vector<CompiledCandidate> results_;
  std::vector<size_t> rank_of_;      // config -> position in the order
  std::vector<size_t> kernel_of_;    // config -> kernel (SIZE_MAX: not in the order)
  std::vector<Kernel> kernels_;      // in the order of their best-ranked config
  KernelSpecialization specialization_;
  CompileKernel compile_;
  const TemplateStore& templates_;
  TuningClock clock_;
  CompileProgress progress_;

  mutable std::mutex mutex_;
  std::condition_variable ready_changed_;
  std::set<std::pair<size_t, size_t>> ready_;  // (rank, config) compiled, not yet taken
  size_t next_kernel_ = 0;
  size_t in_flight_ = 0;
  bool stop_ = false;
  std::exception_ptr error_;
  CompileQueueStats stats_;
  double compile_seconds_ = 0;
  std::vector<std::jthread> threads_;  // last: joined first
};

}  // namespace jitgemm
