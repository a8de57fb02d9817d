// grid_dependency.cuh — programmatic dependent launch between kernels of one stream (sm_90).
//
// PTX ISA, "Parallel Synchronization and Communication Instructions: griddepcontrol"
// (docs.nvidia.com/cuda/parallel-thread-execution, anchor
// #parallel-synchronization-and-communication-instructions-griddepcontrol). The host
// launches the dependent kernel with CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION;
// without it both instructions do nothing.
#pragma once

// In the kernel that runs first: the next kernel in the stream may be scheduled once every
// CTA of this one has executed this (or exited). Its data is still only safe to read after
// its griddepcontrol_wait.
__device__ __forceinline__ void griddepcontrol_launch_dependents() {
  asm volatile("griddepcontrol.launch_dependents;\n" ::: "memory");
}

// In the dependent kernel: blocks until the kernels it depends on have completed and their
// memory operations are visible.
__device__ __forceinline__ void griddepcontrol_wait() { asm volatile("griddepcontrol.wait;\n" ::: "memory"); }
