#!/usr/bin/env bash
# Builds and runs every test (ctest). GPU tests skip, visibly, where no GPU exists.
# JITGEMM_FULL_SWEEP=1 also compiles every candidate of every template (slow on 2 cores).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/build.sh
cd "${BUILD_DIR:-build}"
ctest --output-on-failure -j "${JOBS:-$(nproc)}" "$@"
