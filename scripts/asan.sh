#!/usr/bin/env bash
# Builds jitgemm with AddressSanitizer and UndefinedBehaviorSanitizer into
# ${BUILD_DIR:-build-asan} and runs the CPU tests (ctest -L cpu); any report fails the run.
#
#   bash scripts/asan.sh [ctest arguments...]
#
# Compiler: ${ASAN_CXX:-g++} (clang++ also works; installed when g++ cannot link the sanitizers).
# Left out (excluded below), with the reason:
#   python.*  the Python tests load libjitgemm.so into an uninstrumented python3; ASan would
#             have to be LD_PRELOADed into the interpreter, whose own allocations then report.
#   *SampleCompiles.*, StructuredCompiles.*, SplitOperandCompiles.*: render and NVRTC-compile
#             samples of every kernel family (about 6 min of CPU); the time is NVRTC's (not
#             instrumented), and the rendering code they run is what the codegen tests run here.
#   install.consumer  installs the library and builds programs against it: an instrumented
#             library under uninstrumented programs (ASan must come first); nothing it runs
#             is library code that other tests do not run here.
#   TuningDatabaseKill.*, TuningDatabaseSave.ConcurrentWritersLoseNothing: 200 killed writes
#             and 8 concurrent writers, the save path the other TuningDatabaseSave tests run
#             once, repeated; under ASan at -O0 they take 16 min of CPU. scripts/test.sh runs
#             all of these.
# Not built: tests/gpu (-DJITGEMM_GPU_TESTS=OFF): ctest -L cpu runs none of it, and at -O0 with
# the sanitizers it is a minute of the build on 2 cores.
# Leaks inside the CUDA libraries (NVRTC, cuBLAS, the driver: uninstrumented, kept for the life
# of the process) are suppressed by tests/fuzz/lsan.supp, and only those (what that hides: see there).
set -euo pipefail
cd "$(dirname "$0")/.."
build_dir="${BUILD_DIR:-build-asan}"
cuda_root="${CUDA_HOME:-/usr/local/cuda}"
sanitizers="-fsanitize=address,undefined"

bash scripts/setup.sh
source tests/fuzz/sanitizer_toolchain.sh
cxx="${ASAN_CXX:-g++}"
if ! sanitizer_program_links "$cxx" $sanitizers; then
  echo "asan: $cxx cannot link $sanitizers; using clang++"
  cxx=clang++
  ensure_sanitizer_toolchain "$cxx" $sanitizers
fi

# -O0: g++ compiles the sanitized code about 3x faster than at -O1 (12 min instead of about 30 on
# one core), while the tests kept below take 5 min instead of about 3.5; UBSan stops at its first report.
flags="-O0 -g $sanitizers -fno-omit-frame-pointer -fno-sanitize-recover=all"
# --as-needed: Debian's g++ drops its default --as-needed when -fsanitize is given, and then
# libjitgemm.so would require the libcuda.so.1 that CUDA::nvrtc names (CMake links the stub), which
# machines without a driver lack; the library loads the driver at run time instead.
link_flags="$sanitizers -Wl,--as-needed"
cmake -S . -B "$build_dir" -DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_COMPILER="$cxx" \
  -DCMAKE_CXX_FLAGS="$flags" -DCMAKE_EXE_LINKER_FLAGS="$link_flags" -DCMAKE_SHARED_LINKER_FLAGS="$link_flags" \
  -DCUDAToolkit_ROOT="$cuda_root" -DJITGEMM_BUILD_BENCH=OFF -DJITGEMM_GPU_TESTS=OFF >/dev/null
cmake --build "$build_dir" -j "${JOBS:-$(nproc)}"

# Every report is an error exit. protect_shadow_gap=0: the CUDA driver maps memory where ASan
# would otherwise protect (needed where a GPU exists; harmless here).
export ASAN_OPTIONS="halt_on_error=1:detect_leaks=1:protect_shadow_gap=0:strict_string_checks=1:detect_stack_use_after_return=1"
export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1"
export LSAN_OPTIONS="suppressions=$PWD/tests/fuzz/lsan.supp:print_suppressions=0"

cd "$build_dir"
excluded='^python\.|SampleCompiles\.|^AllModes/StructuredCompiles\.|^SplitOperandCompiles\.'
excluded+='|^TuningDatabaseKill\.|^TuningDatabaseSave\.ConcurrentWritersLoseNothing$|^install\.consumer$'
ctest --output-on-failure -j "${JOBS:-$(nproc)}" -L cpu -E "$excluded" "$@"
