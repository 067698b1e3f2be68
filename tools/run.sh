#!/usr/bin/env bash
# fpconform's one entry point:
#   tools/run.sh report   install what is missing, build (Release), write the default report
#   tools/run.sh test     install what is missing, build, run the default test suite (CTest)
#   tools/run.sh exhaustive   the long sweeps (CTest label "exhaustive")
#   tools/run.sh build    install and build only
# Environment: BUILD_DIR (default build), JOBS (default: number of cores).
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

case "$cmd" in
  build) build_all ;;
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
    echo "usage: tools/run.sh report|test|exhaustive|build [args]" >&2
    exit 2
    ;;
esac
