#!/usr/bin/env bash
# Configures and builds jitgemm into ${BUILD_DIR:-build}.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
build_dir="${BUILD_DIR:-build}"
cuda_root="${CUDA_HOME:-/usr/local/cuda}"
cmake -S . -B "$build_dir" -DCMAKE_BUILD_TYPE=Release -DCUDAToolkit_ROOT="$cuda_root" >/dev/null
cmake --build "$build_dir" -j "${JOBS:-$(nproc)}"
