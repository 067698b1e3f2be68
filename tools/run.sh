#!/usr/bin/env bash
# fpconform's one entry point:
#   tools/run.sh report   install what is missing, build (Release), write the default report
#   tools/run.sh test     install what is missing, build, run the default test suite (CTest)
#   tools/run.sh exhaustive   the long sweeps (CTest label "exhaustive")
#   tools/run.sh build    install and build only
#   tools/run.sh sanitize AddressSanitizer + UBSan build (preset asan, into build-asan) of the
#                         libraries, the CLI and the unit tests; runs CTest labels unit and cli
#   tools/run.sh fuzz [SECONDS]  libFuzzer targets (suites/fuzz, clang, into build-fuzz), each run
#                         for SECONDS (default: FUZZ_SECONDS, else 60) from its seed corpus,
#                         JOBS targets at a time
# Environment: BUILD_DIR (default build), JOBS (default: number of cores), FUZZ_SECONDS,
# FUZZ_TARGETS (space-separated subset of the fuzz targets), FUZZ_SEED (libFuzzer's -seed: CI
# fixes it so that a run explores what the same run explored before the commit; unset, each run
# draws its own and explores further).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
build=${BUILD_DIR:-build}
jobs=${JOBS:-$(nproc)}
cmd=${1:-}
shift || true

build_all() {
  bash tools/install-deps.sh
  if [[ ! -f "$build/CMakeCache.txt" ]]; then
    cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release >"$build.configure.log" 2>&1 ||
      { cat "$build.configure.log"; exit 2; }
  fi
  cmake --build "$build" -j"$jobs" >"$build.build.log" 2>&1 ||
    { grep -E "error|Error" -A3 "$build.build.log" | head -60; echo "build failed: see $build.build.log"; exit 2; }
}

# The targets CTest labels unit and cli need (every test of those labels runs one of these;
# a gtest executable left out is silently not run, so new ones belong here). Names that do not
# exist in this checkout (no CUDA, no Google Benchmark) are dropped below.
sanitize_targets=(core_tests emu_tests reference_tests testfloat_tests reports_tests cli_lib_tests
  checkpoint_tests fpconform tiled_gemm_example gpu_files_test gpu_analysis_test
  gpu_write_synthetic_results gpu_dumps_to_results gpu_plan_emu_results)

# Skipped under the sanitizers; the Release suite (tools/run.sh test) runs every one of them:
# - unit tests that are sweeps (10-250 s each under ASan, minutes together): the fast-convert
#   kernels against each other over all of fp32, and the narrow-format operation tables; smaller
#   tests of the same kernels run under ASan;
# - determinism_cli_test: compares outputs across thread counts, which ASan does not change
#   (90 s under ASan, five fits); its code paths run under ASan in sweep_resume_test,
#   validate_cli_test and fit_cli_test;
# - gpu_analyze_dumps and gpu_probe_rounds_emu: gpu-analyze over every recorded dump, and probe
#   rounds until a characterization closes (3-5 min each under ASan); gpu_analyze_cli,
#   gpu_analyze_h200 and gpu_probe_cuda_offline run the same code under ASan on fewer rows;
# - report_resume_test and report_render_test: whole reports (the render test: every section),
#   with the CPU's units characterized (minutes each under ASan); the checkpoint's code
#   runs under ASan in checkpoint_tests (Checkpoint.ReportSectionsRoundTrip) and reports_tests;
# - the CUDA runner's checks (gpu_sass_expectations, gpu_runner_*): they need the nvcc-built
#   fpconform-gpu-run, whose device code the host sanitizers do not instrument.
sanitize_skip='FastConvertFormat\.MatchesConvertEverywhere|SmallFormatOp\.AllPairsOfNarrowFormats'
sanitize_skip+='|FastConvert\.SignAlignedTierMatchesPortable|FastConvert\.F16cKernelMatchesAvx2Kernel'
sanitize_skip+='|^gpu_analyze_dumps$|^gpu_probe_rounds_emu$'
sanitize_skip+='|^determinism_cli_test$|^report_resume_test$|^report_render_test$|^gpu_sass_expectations$|^gpu_runner_'

sanitize() {
  bash tools/install-deps.sh
  local dir=build-asan
  if [[ ! -f "$dir/CMakeCache.txt" ]]; then
    cmake --preset asan >"$dir.configure.log" 2>&1 || { cat "$dir.configure.log"; exit 2; }
  fi
  local targets=() known
  known=$(cmake --build "$dir" --target help 2>/dev/null)
  for t in "${sanitize_targets[@]}"; do
    grep -qxF "... $t" <<<"$known" && targets+=("$t")
  done
  local t0=$SECONDS
  cmake --build "$dir" -j"$jobs" --target "${targets[@]}" >"$dir.build.log" 2>&1 ||
    { grep -E "error|Error" -A3 "$dir.build.log" | head -60; echo "build failed: see $dir.build.log"; exit 2; }
  echo "sanitize: build $((SECONDS - t0)) s"
  t0=$SECONDS
  # Any report fails the test that triggered it: UBSan aborts (-fno-sanitize-recover), ASan
  # and LeakSanitizer exit non-zero.
  local rc=0
  ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1:strict_string_checks=1} \
  UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1} \
    ctest --test-dir "$dir" -L "unit|cli" -LE exhaustive -E "$sanitize_skip" -j"$jobs" \
      --output-on-failure --timeout 900 "$@" || rc=$?
  echo "sanitize: tests $((SECONDS - t0)) s"
  return "$rc"
}

fuzz() {
  bash tools/install-deps.sh
  local seconds=${1:-${FUZZ_SECONDS:-60}}
  local dir=build-fuzz
  if [[ ! -f "$dir/CMakeCache.txt" ]]; then
    CC=clang CXX=clang++ cmake -S suites/fuzz -B "$dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
      >"$dir.configure.log" 2>&1 || { cat "$dir.configure.log"; exit 2; }
  fi
  cmake --build "$dir" -j"$jobs" >"$dir.build.log" 2>&1 ||
    { grep -E "error|Error" -A3 "$dir.build.log" | head -60; echo "build failed: see $dir.build.log"; exit 2; }
  local targets=(${FUZZ_TARGETS:-$(cat "$dir/fuzz_targets.txt")})
  mkdir -p "$dir/corpus" "$dir/artifacts" "$dir/logs"
  # Each libFuzzer run is one thread: JOBS of them run side by side, each for SECONDS.
  local t running=0
  for t in "${targets[@]}"; do
    fuzz_one "$dir" "$t" "$seconds" >"$dir/logs/$t.summary" &
    if ((++running >= jobs)); then wait -n || true; ((running--)); fi
  done
  wait || true
  local failed=()
  for t in "${targets[@]}"; do
    cat "$dir/logs/$t.summary"
    grep -q "^fuzz [^ ]* *ok:" "$dir/logs/$t.summary" || failed+=("$t")
  done
  if ((${#failed[@]})); then
    echo "fuzz: findings in ${failed[*]}"
    exit 1
  fi
}

# One target for SECONDS from its seed corpus; prints one summary line (and the finding).
fuzz_one() {
  local dir=$1 t=$2 seconds=$3
  local seeds=suites/fuzz/corpus/${t#fuzz_}
  local work=$dir/corpus/$t  # what the run adds stays out of the source tree
  mkdir -p "$work" "$dir/artifacts/$t"
  local log=$dir/logs/$t.log
  # Seeds (and the regression inputs kept with them) run first; a crash, a sanitizer
  # report, an unexpected exception (abort), a leak, a 10 s input or 2 GiB is a finding.
  if ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
      "$dir/$t" -max_total_time="$seconds" ${FUZZ_SEED:+-seed="$FUZZ_SEED"} -timeout=10 -rss_limit_mb=2048 -max_len=65536 \
      -print_final_stats=1 -artifact_prefix="$dir/artifacts/$t/" "$work" "$seeds" \
      >"$log" 2>&1; then
    local runs; runs=$(grep -oE "stat::number_of_executed_units: *[0-9]+" "$log" | grep -oE "[0-9]+$" || echo "?")
    printf "fuzz %-18s ok: %s runs in %s s, corpus %s files (seeds %s)\n" "$t" "$runs" \
      "$seconds" "$(ls "$work" | wc -l)" "$(ls "$seeds" 2>/dev/null | wc -l)"
  else
    echo "fuzz $t FAILED (log $log, inputs in $dir/artifacts/$t):"
    grep -E "fpconform fuzz finding|ERROR: |runtime error|SUMMARY|Test unit written" "$log" | head -20
  fi
}

case "$cmd" in
  build) build_all ;;
  sanitize) sanitize "$@" ;;
  fuzz) fuzz "$@" ;;
  test)
    build_all
    ctest --test-dir "$build" -LE exhaustive -j"$jobs" --output-on-failure --timeout 900 "$@"
    ;;
  exhaustive)
    build_all
    ctest --test-dir "$build" -L exhaustive -j"$jobs" --output-on-failure --timeout 0 "$@"
    ;;
  report)
    build_all
    out=${REPORT_DIR:-out/report}
    "$build/tools/fpconform/fpconform" report --out "$out" "$@"
    ;;
  *)
    echo "usage: tools/run.sh report|test|exhaustive|build|sanitize|fuzz [args]" >&2
    exit 2
    ;;
esac
