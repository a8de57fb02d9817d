// The version of the NVRTC that libjitgemm would use on this machine, found without linking
// NVRTC: jitgemm-db links no NVRTC, cuBLAS or CUDA runtime (so that every run starts in a few
// milliseconds), and only `explain`, which compares records with this machine's environment,
// asks for it.
//
// Loads JITGEMM_NVRTC_SONAME (the library name libjitgemm is linked against, e.g.
// "libnvrtc.so.13") the way the dynamic loader finds it ($LD_LIBRARY_PATH, the loader cache),
// else from the toolkit directory this build used (JITGEMM_NVRTC_DIR), calls nvrtcVersion and
// unloads it.
#pragma once

#include <optional>

namespace jitgemm {

// 1000 * major + 10 * minor, as nvrtc_version() gives it; empty when no NVRTC loads here.
std::optional<int> probe_nvrtc_version();

}  // namespace jitgemm
