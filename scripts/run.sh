#!/usr/bin/env bash
# The main job: set up, build, tune and run the reference problems in every precision mode
# (fp32, tf32x3, tf32) and print the table: largeK (huge K in pieces, a deterministic
# reduction), symmetric, lowertri (triangular operands, lower fill) and transA.
# Without a GPU it says so, then generates and compiles every candidate for sm_90a and
# prints their resource use. Extra arguments go to jitgemm-tune.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/build.sh
exec "${BUILD_DIR:-build}/jitgemm-tune" --reference --jobs "$(nproc)" "$@"
