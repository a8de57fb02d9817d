#!/usr/bin/env bash
# One call on the GPU machine: build, run the GPU tests, tune the reference problems and
# the sweep, run the benchmark (jitgemm and cuBLAS side by side) and print the table.
# Usage: bash bench/device-run.sh [all|test|python|eval|stale|retune|tune|structured|sweep|bench|sass|reliability|sanitize|budget|profile|clocks|ab]...
#        (default: all, which leaves out stale, retune, reliability, sanitize, budget, profile, clocks and ab)
# stale: re-tune this device's records whose environment (template hash, driver, NVRTC) differs
# from this machine's, e.g. after a kernel template changed (jitgemm-tune --stale, budget
# ${STALE_BUDGET:-12} s each, the old configs first as priors). retune: the problems of the file
# RETUNE_PROBLEMS in mode RETUNE_MODE (default fp32), whatever their environment, same budget.
# budget: cold tunes of the reference problems with --budget ${BUDGET:-20} (empty cache and
# database), then the bench's reference rows (BUDGET_ROWS, a regular expression, to take fewer)
# served by those records and by the shipped ones.
# reliability: 20 rounds of tuning against planted bad candidates (tests/gpu/isolated_tuning_test.cpp).
# profile: Nsight Compute on the bench rows matching PROFILE_ROWS (default: the fp32 4096^3 NN
# and NT rows), jitgemm's kernel and cuBLAS's side by side; details in profile.txt, the
# SASS of jitgemm's kernels in profile.sass (both in $OUT/logs.tgz). PROFILE_KERNELS is a regular expression of
# kernel names (without "regex:"; "." takes every kernel, the pre-passes and the bench's own).
# PROFILE_EXTRA adds ncu arguments (not --metrics: the step passes its own), e.g. "--section SourceCounters" (excess shared wavefronts, the
# warp stall samples; the bank-conflict metrics above count more than excess wavefronts on Hopper).
# clocks: the SM clock each kernel of the bench rows matching CLOCK_ROWS (a space-separated list
# of regular expressions) really ran at, one Nsight Compute pass per kernel (cycles over duration,
# and the tensor pipe's active share): NVML reads 1980 MHz while tensor-core kernels run at ~1.72
# GHz (docs/performance-log.md), so the bench's MHz column cannot tell.
# ab: the bench rows matching AB_ROWS (default: every fp32 row) under the kernel templates in
# AB_TEMPLATES (a directory, e.g. `git archive <rev> kernel_templates | tar -x -C .scratch/base`
# here and carry .scratch) and then under this tree's, the same records, in one call: a template
# change measured on the configs it will serve, AB_ROUNDS times (default 1). Rows go to
# ab-{base,tree}.json (the last round). A change to the host side too: AB_TREE instead, a whole
# source tree to compare with (e.g. `git archive <rev> | tar -x -C .scratch/basetree` here and
# carry .scratch), built here (about 70 s more) and its own jitgemm-bench run for the base side,
# served by its own tuning database (AB_SAME_RECORDS=1: by this tree's).
# Configs instead: AB_RECORDS="<problems.json>=<config> ..." serves the tree side from a copy of
# the database whose records for those problems are re-tuned with that config alone.
# AB_SASS=1 adds the SASS of the kernels each side compiled (ab-<side>.sass in logs.tgz) and their
# instruction counts (FFMA, LDS, LDGSTS, BAR, integer arithmetic, HGMMA, ...) per kernel.
# sanitize: the small products of every kernel family (SanitizerSmoke) under compute-sanitizer
# memcheck, racecheck, initcheck and synccheck.
# python runs the PyTorch package's tests (python/tests, pytest); eval runs python -m jitgemm.eval
# (the four Models against eager PyTorch; bench/results/<gpu>-torch.json).
# structured tunes bench/structured_problems.json (lowertri and symmetric_both in every mode;
# the bench rows of those problems run untuned without it)
# sweep tunes the shapes of bench/sweep_problems.json up to 300 GFLOP (8192^3 fp32 is served by the
# nearest record, 4096^3, on the H200; on the H100 it has its own from a three-config tune, README;
# 8192^3 tf32x3 has its own, from `jitgemm-tune --m 8192 --n 8192 --k 8192
# --precision tf32x3 --budget 0`, 66 s on the H200, 78 on the H100)
# Logs, bench/results/<gpu>.json and the tuning database are copied to $OUT when set: the
# results and the database as files, the logs (and profile.txt / profile.sass) in logs.tgz.
# TUNE_MODES (default "fp32 tf32x3 tf32") picks the precision modes the tune step tunes; TUNE_ARGS
# (e.g. "--budget 10") goes to every jitgemm-tune of the tune, structured and sweep steps
# (SWEEP_ARGS, when set, to the sweep step instead).
set -uo pipefail
cd "$(dirname "$0")/.."
out="${OUT:-/tmp/jitgemm-out}"
mkdir -p "$out"
started_marker=$(mktemp)  # what this run writes is newer than this file
export JITGEMM_CACHE_DIR="${JITGEMM_CACHE_DIR:-/tmp/jitgemm-cache}"
export JITGEMM_TUNING_DB="${JITGEMM_TUNING_DB:-$PWD/tuning_db/jitgemm_tuning.json}"
steps="${*:-all}"
want() { [[ " $steps " == *" all "* || " $steps " == *" $1 "* ]]; }
only() { [[ " $steps " == *" $1 "* ]]; }  # steps that "all" leaves out

nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu --format=csv,noheader
echo "== build"
if ! JOBS=16 bash scripts/build.sh >"$out/build.log" 2>&1; then
  tail -60 "$out/build.log"; exit 1
fi
status=0
if want test; then
  echo "== tests (cpu + gpu)"
  # TEST_ARGS picks what runs (default: every test, 4 at a time), e.g. "-L gpu -j 8 -R EdgeStrips|Reduce":
  # split on spaces, not parsed by a shell, so no quotes inside. No test matched is a failure.
  (cd build && ctest --output-on-failure --no-tests=error ${TEST_ARGS:--j 4} --timeout 1500) >"$out/tests.log" 2>&1 || status=1
  # The summary first (ctest lists the skipped tests after it), then what failed, then a count.
  grep -E "tests passed|tests failed" "$out/tests.log"
  grep -E "\*\*\*Failed|\*\*\*Timeout|\*\*\*Exception|Not Run" "$out/tests.log" | head -20
  echo "$(grep -c "(Skipped)" "$out/tests.log") skipped (full sweeps behind JITGEMM_FULL_SWEEP, CPU-only paths)"
fi
if want python; then
  echo "== python package tests (torch, GPU)"
  JITGEMM_LIBRARY=$PWD/build/libjitgemm.so JITGEMM_PYTHON_TUNE=1 python3 python/tests/run_suite.py torch \
    >"$out/python-tests.log" 2>&1 || status=1
  grep -E "passed|failed|FAILED|ERROR|SKIPPED" "$out/python-tests.log" | tail -40
fi
if want eval; then
  echo "== python -m jitgemm.eval"
  JITGEMM_LIBRARY=$PWD/build/libjitgemm.so PYTHONPATH=$PWD/python python3 -m jitgemm.eval ${EVAL_ARGS:-} \
    2>"$out/eval-progress.log" | tee "$out/eval.log" || status=1
  tail -5 "$out/eval-progress.log"
fi
if only stale; then
  echo "== re-tune this device's stale records"
  build/jitgemm-tune --stale --jobs 16 --budget ${STALE_BUDGET:-12} 2>>"$out/tune-progress.log" | tee -a "$out/tune.log" \
    | grep -vE "^(skipping|time:)" || status=1
fi
if only retune; then
  # A problem's record re-tuned although its environment is current (e.g. after a host-side change
  # to how its kernels are launched, which no template hash sees).
  echo "== re-tune the problems of ${RETUNE_PROBLEMS:?retune needs RETUNE_PROBLEMS, a problems file} (${RETUNE_MODE:-fp32})"
  build/jitgemm-tune --problems "$RETUNE_PROBLEMS" --precision ${RETUNE_MODE:-fp32} --jobs 16 --budget ${STALE_BUDGET:-12} \
    2>>"$out/tune-progress.log" | tee -a "$out/tune.log" | grep -vE "^(skipping|time:)" || status=1
fi
if want tune; then
  echo "== tune"
  for mode in ${TUNE_MODES:-fp32 tf32x3 tf32}; do
    build/jitgemm-tune --reference --precision $mode --jobs 16 ${TUNE_ARGS:-} 2>>"$out/tune-progress.log" | tee -a "$out/tune.log" \
      | grep -v "^skipping" || status=1
  done
fi
if want structured; then
  echo "== tune the structured problems"
  build/jitgemm-tune --problems bench/structured_problems.json --jobs 16 ${TUNE_ARGS:-} 2>>"$out/tune-progress.log" \
    | tee -a "$out/tune.log" | tail -10 || status=1
fi
if want sweep; then
  echo "== tune the sweep"
  build/jitgemm-tune --problems bench/sweep_problems.json --jobs 16 --max-gflop 300 ${SWEEP_ARGS:-${TUNE_ARGS:-}} 2>>"$out/tune-progress.log" \
    | tee -a "$out/tune.log" | tail -14 || status=1
fi
if want bench; then
  echo "== bench"
  build/jitgemm-bench --benchmark_out="$out/bench.json" --benchmark_out_format=json >"$out/bench.log" 2>&1 || status=1
  # The whole table (every row, from the "wrote" line on); the last lines if it never got there.
  if grep -q "^wrote " "$out/bench.log"; then sed -n '/^wrote /,$p' "$out/bench.log"; else tail -16 "$out/bench.log"; fi
fi
if want sass; then
  echo "== SASS of the tf32x3 default kernel (nvcc on the rendered source, cuobjdump)"
  d=$(mktemp -d)
  JITGEMM_DUMP_DIR=$d JITGEMM_CACHE_DIR=$d/cache build/jitgemm-tune --m 4096 --n 4096 --k 4096 --precision tf32x3 \
    --compile-only --sample --jobs 16 >/dev/null 2>&1
  f=$(ls $d/jitgemm_wgmma_tf32x3_128x128x32_c2_s3_a32_b1_m0_g8*.cu | head -1)
  nvcc -cubin -gencode=arch=compute_90a,code=sm_90a -o $d/k.cubin "$f" &&
    cuobjdump -sass $d/k.cubin > "$out/tf32x3_default.sass" &&
    grep -oE "HGMMA\.[0-9x]+\.F32\.TF32" "$out/tf32x3_default.sass" | sort | uniq -c
  grep -cE "LDL|STL" "$out/tf32x3_default.sass" | sed 's/^/local-memory instructions: /'
  echo "== SASS of the tf32 kernel with A in registers (wgmma register-A form)"
  JITGEMM_DUMP_DIR=$d JITGEMM_CACHE_DIR=$d/cache build/jitgemm-tune --m 4096 --n 4096 --k 4096 --precision tf32 \
    --compile-only --sample --jobs 16 >/dev/null 2>&1
  f=$(ls $d/jitgemm_wgmma_tf32_128x256x32_c2_s4_a0_b1_m0_g8_rs_k*.cu | head -1)
  nvcc -cubin -gencode=arch=compute_90a,code=sm_90a -o $d/rs.cubin "$f" &&
    cuobjdump -sass $d/rs.cubin > "$out/tf32_rs.sass" &&
    grep -oE "HGMMA[^;]*" "$out/tf32_rs.sass" | sed -E 's/U?R[0-9]+/R/g; s/ +/ /g' | sort | uniq -c
  grep -cE "LDL|STL" "$out/tf32_rs.sass" | sed 's/^/local-memory instructions: /'
fi
if only reliability; then
  echo "== reliability: tuning against planted candidates, 20 rounds"
  JITGEMM_PLANTED_ROUNDS=20 build/test_gpu --gtest_filter='IsolatedTuning.*' >"$out/reliability.log" 2>&1 || status=1
  grep -E "^\[ info \]|OK \]|FAILED|Failure" "$out/reliability.log" | head -40
fi
if only profile; then
  rows="${PROFILE_ROWS:-^dense_4096x4096x4096_N[NT]/fp32/}"
  echo "== Nsight Compute on the bench rows matching $rows"
  # The bench's own kernels (L2 flush, random fill, float64 reference, tril) are left out by name;
  # after PROFILE_SKIP warm-up launches, PROFILE_COUNT launches (the default: jitgemm's kernel and
  # cuBLAS's, twice, of the first row). Its rows go to profile-rows.json, not bench/results.
  # --clock-control none: the card's clocks as found (METHOD.md: leave them alone; ncu's
  # default locks them to base, about 1.35 GHz on the H200 against the 1.98 it runs at).
  JITGEMM_BENCH_RESULTS="$out/profile-rows.json" ncu --clock-control none --kernel-name "regex:${PROFILE_KERNELS:-simt|wgmma|mma_sync|sgemm|gemm_f32|xmma|cutlass}" \
    --launch-skip ${PROFILE_SKIP:-4} --launch-count ${PROFILE_COUNT:-4} \
    --section SpeedOfLight --section ComputeWorkloadAnalysis --section MemoryWorkloadAnalysis \
    --section WarpStateStats --section SchedulerStats --section InstructionStats --section LaunchStats \
    --section Occupancy ${PROFILE_EXTRA:-} --metrics l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum,smsp__inst_executed_pipe_fma.sum,smsp__inst_executed.sum,smsp__inst_executed_op_ldgsts.sum,'regex:smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio' \
    build/jitgemm-bench --benchmark_filter="$rows" >"$out/profile.txt" 2>&1 || status=1
  # The SASS of the jitgemm kernels those rows ran (compiled afresh, so dumped): instruction mix.
  # All of it goes to one file, profile.sass (the device tool returns at most 8 files).
  d=$(mktemp -d)
  JITGEMM_DUMP_DIR=$d JITGEMM_CACHE_DIR=$d/cache JITGEMM_BENCH_RESULTS=$d/rows.json build/jitgemm-bench \
    --benchmark_filter="$rows" >/dev/null 2>&1
  : > "$out/profile.sass"
  for f in "$d"/*.cu; do
    [[ -f $f ]] || continue
    n=$(basename "$f" .cu)
    nvcc -cubin -gencode=arch=compute_90a,code=sm_90a -o "$d/$n.cubin" "$f" 2>/dev/null &&
      cuobjdump -sass "$d/$n.cubin" > "$d/$n.sass" &&
      { echo "==== $n"; cat "$d/$n.sass"; } >> "$out/profile.sass" &&
      echo "$n: $(grep -oE '^ +/\*[0-9a-f]+\*/ +[A-Z0-9_]+' "$d/$n.sass" | awk '{print $2}' | sort | uniq -c | sort -rn | head -14 | awk '{printf "%s %s, ", $2, $1}')"
  done
  grep -E "^  [a-zA-Z_0-9]+.*\(|Duration|Compute \(SM\) Throughput|Issue Slots Busy|Executed Ipc Active|Registers Per|Achieved Occupancy|issue_stalled|bank_conflicts|inst_executed|Block Size|Shared Memory Configuration Size|L1/TEX Hit|Memory Throughput|Wavefronts Shared|Stall Sampling \(All" "$out/profile.txt" | grep -vE "issue_stalled.* 0(\.0[0-9]*)?$" | head -160
fi
if only clocks; then
  echo "== effective SM clocks (Nsight Compute, one pass per kernel)"
  for row in ${CLOCK_ROWS:-^largeK/tf32x3/ ^symmetric/tf32x3/ ^symmetric/tf32/ ^dense_4096x4096x4096_NN/fp32/}; do
    echo "-- $row"
    JITGEMM_BENCH_RESULTS="$out/clock-rows.json" ncu --clock-control none --cache-control none \
      --kernel-name "regex:${PROFILE_KERNELS:-wgmma|simt|mma_sync|split_k|split_operand|sgemm|gemm_f32|xmma|cutlass}" \
      --launch-skip ${PROFILE_SKIP:-6} --launch-count ${PROFILE_COUNT:-6} \
      --metrics gpc__cycles_elapsed.avg.per_second,sm__cycles_elapsed.avg,gpu__time_duration.sum,sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_elapsed \
      build/jitgemm-bench --benchmark_filter="$row" 2>&1 | tee -a "$out/clocks.txt" |
      grep -E "^  [a-zA-Z_0-9]+.*\(|per_second|duration|hmma" | sed -E 's/, Context.*//; s/ {2,}/ /g' || status=1
  done
  nvidia-smi --query-gpu=clocks.sm,clocks.max.sm,power.draw,clocks_event_reasons.active --format=csv
fi
if only ab; then
  base_bench=build/jitgemm-bench base="" what=templates base_db=$JITGEMM_TUNING_DB
  if [[ -n "${AB_TREE:-}" ]]; then
    # The base tree's own records (a stale or retune step before this one has rewritten this
    # tree's, and a re-tune that changed a config would put it on both sides), unless
    # AB_SAME_RECORDS=1.
    [[ -z "${AB_SAME_RECORDS:-}" ]] && base_db=$AB_TREE/tuning_db/jitgemm_tuning.json
    echo "== build the base tree $AB_TREE"
    # Its bench alone (and the library under it): the base side runs nothing else.
    (cd "$AB_TREE" && JOBS=16 BUILD_TARGETS=jitgemm-bench bash scripts/build.sh) >"$out/build-base.log" 2>&1 ||
      { tail -40 "$out/build-base.log"; exit 1; }
    base_bench=$AB_TREE/build/jitgemm-bench what=builds
  elif [[ -n "${AB_RECORDS:-}" ]]; then
    # Records against records: the base side is served by the database as it is, the tree side
    # by a copy in which each listed problem's record is re-tuned with the one config given
    # (verified and timed like any tune), so two configs meet under the bench's conditions.
    echo "== the tree side's records: $AB_RECORDS"
    alt_dir=$(mktemp -d)
    cp "$JITGEMM_TUNING_DB" "$alt_dir/jitgemm_tuning.json"
    for entry in $AB_RECORDS; do
      build/jitgemm-tune --problems "${entry%%=*}" --budget 0 --no-priors --jobs 16 --configs "${entry#*=}" \
        --db "$alt_dir/replaced.json" 2>>"$out/tune-progress.log" | tail -3 || status=1
    done
    build/jitgemm-db merge "$alt_dir/jitgemm_tuning.json" "$alt_dir/replaced.json" || status=1
    tree_db=$alt_dir/jitgemm_tuning.json what=records
  else
    base="${AB_TEMPLATES:?ab needs AB_TEMPLATES (kernel templates), AB_TREE (a source tree) or AB_RECORDS to compare with}"
  fi
  rows="${AB_ROWS:-/fp32/}"
  sass_dir=$(mktemp -d)
  # AB_ROUNDS rounds of base then tree (differences of 1% need two or three: machines and runs
  # differ by about that much); the last round's tables, and one line per side and round.
  for round in $(seq 1 "${AB_ROUNDS:-1}"); do
    for side in base tree; do
      dir=$([[ $side == base ]] && echo "$base" || echo "")
      bin=$([[ $side == base ]] && echo "$base_bench" || echo build/jitgemm-bench)
      # One binary cache for both sides: it is keyed by the rendered source, so a kernel both
      # sides render alike compiles once and one that differs compiles for each.
      # AB_SASS=1: each side's kernels as compiled (PTX is dumped on a compile, not on a cache hit:
      # a binary cache of this call's own, and the dump in the first round)
      dump="" cache="$JITGEMM_CACHE_DIR-ab"
      [[ -n "${AB_SASS:-}" ]] && cache="$sass_dir/cache"
      [[ -n "${AB_SASS:-}" && $round == 1 ]] && dump="$sass_dir/$side"
      db=$([[ $side == tree ]] && echo "${tree_db:-$JITGEMM_TUNING_DB}" || echo "$base_db")
      JITGEMM_TUNING_DB=$db JITGEMM_DUMP_DIR=$dump JITGEMM_TEMPLATE_DIR=$dir JITGEMM_CACHE_DIR="$cache" \
        JITGEMM_BENCH_RESULTS="$out/ab-$side.json" "$bin" --benchmark_filter="$rows" >"$out/ab-$side.log" 2>&1 || status=1
      echo "round $round $side: $(sed -n '/^problem /,/^host cost/p' "$out/ab-$side.log" | grep -vE "^(problem|host cost|$)" |
        awk '{printf "%s/%s %s ms (%s)  ", $1, $2, $3, $8}')"
    done
  done
  for side in base tree; do
    echo "== bench rows matching $rows, $what of the $side (round ${AB_ROUNDS:-1})"
    sed -n '/^problem /,/^host cost/p' "$out/ab-$side.log" | grep -v "^host cost"
  done
  if [[ -n "${AB_SASS:-}" ]]; then
    # The SASS of every kernel each side compiled (ptxas on the PTX NVRTC gave, cuobjdump) in
    # ab-<side>.sass, and per kernel the counts of the instructions a main loop is made of. A
    # kernel both sides render alike compiles once, under the side that ran first (base).
    echo "== SASS of the kernels each side compiled (ab-base.sass, ab-tree.sass)"
    for side in base tree; do
      : > "$out/ab-$side.sass"
      for f in "$sass_dir/$side"/*.ptx; do
        [[ -f $f ]] || continue
        n=$(basename "$f" .ptx)
        ptxas -arch=sm_90a -o "$sass_dir/k.cubin" "$f" 2>/dev/null && cuobjdump -sass "$sass_dir/k.cubin" > "$sass_dir/k.sass" ||
          { echo "$side $n: ptxas or cuobjdump failed"; continue; }
        { echo "==== $n"; cat "$sass_dir/k.sass"; } >> "$out/ab-$side.sass"
        # Integer and control instructions counted by opcode alone, memory and math ones by their form.
        echo "$side $n: $(grep -oE '^ +/\*[0-9a-f]+\*/ +[A-Z0-9_.]+' "$sass_dir/k.sass" |
          awk '{op = $2; if (op ~ /^(ISETP|IADD3|IMAD|LEA|MOV|SEL|BRA)/) sub(/\..*/, "", op); print op}' |
          grep -E '^(FFMA|LDS|LDGSTS|BAR|IADD3|IMAD|LEA|MOV|HGMMA|ISETP|SEL|BRA)' | sort | uniq -c |
          awk '{printf "%s %s, ", $2, $1}')"
      done
    done
  fi
fi
if only sanitize; then
  echo "== compute-sanitizer on every kernel family (SanitizerSmoke)"
  for tool in memcheck racecheck initcheck synccheck; do
    extra=""; [[ $tool == memcheck ]] && extra="--leak-check full"
    # Candidates run in worker processes: the sanitizer follows children (--target-processes all).
    compute-sanitizer --tool $tool $extra --target-processes all --error-exitcode 9 \
      build/test_gpu --gtest_filter='*SanitizerSmoke.*' >"$out/sanitize-$tool.log" 2>&1
    rc=$?
    echo "$tool: exit $rc, $(grep -cE '^========= (Invalid|Race|Uninitialized|Barrier|Error)' "$out/sanitize-$tool.log") reports; $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|LEAK SUMMARY' "$out/sanitize-$tool.log" | tr '\n' ' ')"
    grep -E "tests? from .* ran|PASSED|FAILED" "$out/sanitize-$tool.log" | tail -2
    [[ $rc -eq 0 ]] || status=1
  done
fi
if only budget; then
  # Cold, budgeted tunes of the reference problems (an empty binary cache and database), then
  # the reference rows of the bench served by those records and, in the same call, by the
  # shipped (exhaustive) ones: the budget's winners against the exhaustive winners.
  echo "== budgeted cold tune of the reference problems (--budget ${BUDGET:-20})"
  bdir=$(mktemp -d)
  for mode in ${TUNE_MODES:-fp32 tf32x3 tf32}; do
    started=$SECONDS
    JITGEMM_CACHE_DIR=$bdir/cache JITGEMM_TUNING_DB=$bdir/budget.json \
      build/jitgemm-tune --reference --precision $mode --jobs 16 --budget ${BUDGET:-20} \
      2>>"$out/budget-progress.log" | tee -a "$out/budget-tune.log" | grep -v "^skipping" || status=1
    echo "$mode: the reference problems tuned in $((SECONDS - started)) s wall"
  done
  tail -3 "$out/budget-progress.log"
  rows="${BUDGET_ROWS:-^(largeK|symmetric|lowertri|transA)/}"
  # Their results go to budget-rows-<records>.json ("tune s": the cold tune that chose each
  # budgeted record), not over bench/results/<gpu>.json.
  for db in "$bdir/budget.json" "$JITGEMM_TUNING_DB"; do
    echo "== reference rows served by $db"
    name=$([[ $db == "$bdir/budget.json" ]] && echo budgeted || echo shipped)
    JITGEMM_TUNING_DB=$db JITGEMM_BENCH_RESULTS="$out/budget-rows-$name.json" build/jitgemm-bench \
      --benchmark_filter="$rows" >"$out/budget-bench.log" 2>&1 || status=1
    sed -n '/^problem /,/^host cost/p' "$out/budget-bench.log" | grep -v "^host cost"
  done
  cp "$bdir/budget.json" "$out/budget-records.json"
fi
# Only what this run wrote comes back (the device tool returns a limited number of files, and a
# bench or database left as it was would crowd out the logs).
find bench/results tuning_db -maxdepth 1 -name "*.json" -newer "$started_marker" -exec cp {} "$out/" \;
# The device tool returns files of at most 16 MB: a larger one (the candidate history grows with
# each re-tune) comes back gzipped, name.json.gz (gunzip it before merging).
for f in "$out"/*.json; do
  if [[ -f "$f" && $(stat -c %s "$f") -gt 15000000 ]]; then gzip -f "$f"; fi
done
# The device tool returns at most 8 files from $OUT (in name order: a run of several steps left
# more, and the database was among those lost once). Everything but the results and the database
# goes into one archive there, logs.tgz (tar -xzf).
if [[ -n "${OUT:-}" ]]; then
  keep=$(find bench/results tuning_db -maxdepth 1 -name "*.json" -newer "$started_marker" -printf "%f\n%f.gz\n")
  mapfile -t others < <(cd "$out" && find . -maxdepth 1 -type f ! -name logs.tgz -printf "%f\n" | grep -vxF "$keep" | sort)
  if ((${#others[@]} > 0)); then
    tar -czf "$out/logs.tgz" -C "$out" "${others[@]}" && (cd "$out" && rm -f "${others[@]}")
  fi
fi
exit $status
