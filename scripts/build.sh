#!/usr/bin/env bash
# Configures and builds jitgemm into ${BUILD_DIR:-build} (only the targets in BUILD_TARGETS when set,
# e.g. "jitgemm-bench").
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
build_dir="${BUILD_DIR:-build}"
cuda_root="${CUDA_HOME:-/usr/local/cuda}"
# The interpreter for the Python tests: the first python3 that has pytest (PATH's, then Debian's).
python=""
for candidate in python3 /usr/bin/python3; do
  if "$candidate" -c 'import pytest' 2>/dev/null; then python="$(command -v "$candidate")"; break; fi
done
cmake -S . -B "$build_dir" -DCMAKE_BUILD_TYPE=Release -DCUDAToolkit_ROOT="$cuda_root" \
  ${python:+-DPython3_EXECUTABLE="$python"} >/dev/null
cmake --build "$build_dir" -j "${JOBS:-$(nproc)}" ${BUILD_TARGETS:+--target $BUILD_TARGETS}
