#!/usr/bin/env bash
# Builds the libFuzzer targets of tests/fuzz (Debian's clang, -fsanitize=fuzzer,address,undefined)
# into ${BUILD_DIR:-build-fuzz} and fuzzes each for SECONDS (default 60):
#
#   bash scripts/fuzz.sh [SECONDS] [TARGET...]     # TARGET: fuzz_tuning_database, ...
#
# Each target first runs the saved reproducers of tests/fuzz/crashes/<target>/ (regressions), then
# fuzzes a working corpus, <build>/corpus/<target>/, which keeps what earlier runs found and
# gets the seeds (tests/fuzz/corpus/<name>/ and the valid files named below) copied in. Prints
# runs, coverage (cov: edges, ft: features), exec/s and findings per target, and exits non-zero
# on any crash, leak, timeout, out-of-memory or sanitizer report; libFuzzer saves the input under
# <build>/artifacts/<target>/ (copy it to tests/fuzz/crashes/<target>/ to keep it as a regression).
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-60}"
shift || true
build_dir="${BUILD_DIR:-build-fuzz}"
cuda_root="${CUDA_HOME:-/usr/local/cuda}"

bash scripts/setup.sh
source tests/fuzz/sanitizer_toolchain.sh
ensure_sanitizer_toolchain clang++ -fsanitize=fuzzer,address,undefined

# Debug: no NDEBUG and no -O3 from the Release default; tests/fuzz adds -O1 -g.
cmake -S . -B "$build_dir" -DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_COMPILER=clang++ \
  -DCUDAToolkit_ROOT="$cuda_root" -DJITGEMM_FUZZ=ON -DJITGEMM_BUILD_TESTS=OFF -DJITGEMM_BUILD_BENCH=OFF >/dev/null
cmake --build "$build_dir" --target fuzz -j "${JOBS:-$(nproc)}"

# Seeds of each target beyond tests/fuzz/corpus/<name>/: the valid files the readers meet.
seed_files() {
  case "$1" in
    fuzz_tuning_database) ls tests/fixtures/*.json ;;
    fuzz_problem_list) ls bench/*_problems.json ;;
  esac
}

# Reports make any run fail: UBSan stops at the first (the targets are built with
# -fno-sanitize-recover), ASan at the first error, LeakSanitizer at the end of each input.
export ASAN_OPTIONS="${ASAN_OPTIONS:-halt_on_error=1:abort_on_error=1:detect_leaks=1}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}"

targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(fuzz_tuning_database fuzz_problem_list fuzz_db_command_line fuzz_tune_command_line)
failed=()
summary=()
for target in "${targets[@]}"; do
  binary="$build_dir/tests/fuzz/$target"
  name="${target#fuzz_}"
  corpus="$build_dir/corpus/$target"
  artifacts="$build_dir/artifacts/$target"
  log="$build_dir/logs/$target.log"
  mkdir -p "$corpus" "$artifacts" "$(dirname "$log")"
  cp tests/fuzz/corpus/"$name"/* $(seed_files "$target") "$corpus"/
  dict=()
  [ -f "tests/fuzz/$name.dict" ] && dict=(-dict="tests/fuzz/$name.dict")

  # The saved reproducers, each run once: a regression fails here before any fuzzing.
  status=0
  if compgen -G "tests/fuzz/crashes/$target/*" >/dev/null; then
    "$binary" tests/fuzz/crashes/"$target"/* >"$log.replay" 2>&1 || status=$?
    if [ "$status" -ne 0 ]; then
      echo "fuzz: $target fails on a saved reproducer (tests/fuzz/crashes/$target/, log $log.replay)"
      tail -n 30 "$log.replay"
      failed+=("$target")
      summary+=("$(printf '%-24s %s' "$target" "FAILED on a saved reproducer")")
      continue
    fi
  fi

  echo "fuzz: $target for ${seconds} s (log $log)"
  saved_before="$(find "$artifacts" -type f | wc -l)"
  "$binary" "$corpus" "${dict[@]}" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
    -artifact_prefix="$artifacts/" -print_final_stats=1 >"$log" 2>&1 || status=$?
  # The last status line ("#N DONE cov: C ft: F corp: ...") and the final statistics.
  done_line="$(grep -E '^#[0-9]+[[:space:]]+(DONE|pulse|NEW|REDUCE)' "$log" | tail -n 1 || true)"
  cov="$(sed -nE 's/.* cov: ([0-9]+).*/\1/p' <<<"$done_line")"
  ft="$(sed -nE 's/.* ft: ([0-9]+).*/\1/p' <<<"$done_line")"
  runs="$(sed -nE 's/^stat::number_of_executed_units: *([0-9]+)/\1/p' "$log")"
  rate="$(sed -nE 's/^stat::average_exec_per_sec: *([0-9]+)/\1/p' "$log")"
  findings="$(( $(find "$artifacts" -type f | wc -l) - saved_before ))"
  reports="$(grep -cE 'ERROR: (Address|Leak|Undefined)Sanitizer|runtime error:|==[0-9]+== ?ERROR: libFuzzer' "$log" || true)"
  summary+=("$(printf '%-24s runs %-9s cov %-6s ft %-7s exec/s %-7s findings %s' "$target" "${runs:-?}" \
    "${cov:-?}" "${ft:-?}" "${rate:-?}" "$findings")")
  if [ "$status" -ne 0 ] || [ "$reports" -gt 0 ]; then
    echo "fuzz: $target FAILED (exit $status); the input is under $artifacts/"
    grep -E -A 30 'ERROR:|runtime error:|deadly signal|uncaught exception' "$log" | head -n 60 || true
    failed+=("$target")
  fi
done

echo
echo "fuzz summary (${seconds} s per target):"
printf '  %s\n' "${summary[@]}"
if [ ${#failed[@]} -gt 0 ]; then
  echo "fuzz: FAILED: ${failed[*]}"
  exit 1
fi
echo "fuzz: no crash, leak, timeout or sanitizer report"
