// What ptxas reports for one kernel (registers, shared memory, stack, spills), parsed
// from the log of an NVRTC compile with --ptxas-options=-v.
#pragma once

#include <string>
#include <string_view>

namespace jitgemm {

struct ResourceUsage {
  int registers = -1;        // per thread; -1 when not reported
  int shared_bytes = 0;      // static shared memory
  int stack_bytes = 0;       // stack frame
  int spill_store_bytes = 0;
  int spill_load_bytes = 0;
  int const_bytes = 0;       // constant banks (cmem[...]) where reported
  int barriers = 0;
  bool parsed = false;       // the "Used N registers" line of this kernel was found

  bool spills() const noexcept { return spill_store_bytes > 0 || spill_load_bytes > 0; }
  // "168 registers, 0 B smem, 0 B stack, no spills" or "... 784 B spill stores, 952 B spill loads".
  std::string to_string() const;
  friend bool operator==(const ResourceUsage&, const ResourceUsage&) = default;
};

// Reads the ptxas -v lines of `kernel_name` (the lowered/mangled symbol as ptxas prints
// it) from an NVRTC log:
//   ptxas info    : Compiling entry function 'k' for 'sm_90a'
//   ptxas info    : Function properties for k
//   ptxas         .     672 bytes stack frame, 784 bytes spill stores, 952 bytes spill loads
//   ptxas info    : Used 24 registers, used 1 barriers, 672 bytes cumulative stack size, 4096 bytes smem
// Lines of other kernels are ignored; parsed stays false when the kernel is absent.
ResourceUsage parse_ptxas_log(std::string_view log, std::string_view kernel_name);

}  // namespace jitgemm
