#!/usr/bin/env bash
# One command that characterizes an NVIDIA GPU with the fpconform GPU probes (issue 6).
#
#   tools/gpu-check.sh --build            on the CPU machine: build the runner for sm_80/89/90a
#                                         (+100a/120a), write the check plans, stage both under
#                                         build-gpu/stage (the folder to carry)
#   tools/gpu-check.sh [--bin DIR] [--out DIR] [--budget SECONDS]
#                                         on the GPU machine: run every plan, write raw results
#                                         and a summary (at most 8 files, 16 MiB each)
#
# Outputs in --out (default $OUT if set, else out/gpu-check): summary.txt, run.log and
# results.tar.xz (<plan>/<job>.res; split into results.tar.xz.partNN above 15 MiB: join them
# with cat). The exact device call is in gpu_probes/README.md. Exit: 0 all plans ran, 1 some job failed, 3 no GPU.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
stage="$root/build-gpu/stage"

build() {
  set -e
  cd "$root"
  bash tools/install-deps.sh  # cuobjdump for the SASS test, among the rest
  cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release >/dev/null
  cmake --build build-gpu -j"${JOBS:-2}" --target fpconform-gpu-run gpu_files_test
  rm -rf "$stage" && mkdir -p "$stage/plans"
  cp build-gpu/gpu_probes/fpconform-gpu-run "$stage/"
  bash gpu_probes/plans/write_check_plans.sh "$stage/fpconform-gpu-run" "$stage/plans"
  cp gpu_probes/plans/*.plan "$stage/plans/" 2>/dev/null || true
  du -sh "$stage"
  echo "staged: $stage (carry build-gpu/stage)"
}

bin="$stage" out="${OUT:-$root/out/gpu-check}" budget=420
while [[ $# -gt 0 ]]; do
  case $1 in
    --build) build; exit $? ;;
    --bin) bin=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --budget) budget=$2; shift 2 ;;
    -h|--help) sed -n '2,15p' "$0"; exit 0 ;;
    *) echo "gpu-check.sh: unknown argument '$1'" >&2; exit 2 ;;
  esac
done
runner="$bin/fpconform-gpu-run"
[[ -x "$runner" ]] || { echo "gpu-check.sh: $runner not found; run tools/gpu-check.sh --build on the CPU machine and carry build-gpu/stage" >&2; exit 2; }
plans="$bin/plans"
mkdir -p "$out"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
log="$out/run.log"
summary="$out/summary.txt"
start=$(date +%s)
{
  echo "fpconform gpu-check $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  if command -v nvidia-smi >/dev/null; then
    nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm,compute_cap --format=csv,noheader 2>&1 | sed 's/^/nvidia-smi: /'
  fi
  echo "runner: $("$runner" --list | tail -n +2 | wc -l) kernels"
} >"$summary"
: >"$log"
status=0
for plan in conversions scalar mma_sync wgmma gemm fprev; do
  elapsed=$(( $(date +%s) - start ))
  left=$(( budget - elapsed ))
  if (( left < 30 )); then
    echo "$plan: skipped, time budget spent (${elapsed}s of ${budget}s)" | tee -a "$summary"
    continue
  fi
  t0=$(date +%s)
  # One process per plan: a kernel that kills its CUDA context cannot take the other plans along.
  timeout "$left" "$runner" --out "$work/$plan" "$plans/$plan.plan" >"$work/$plan.log" 2>&1
  rc=$?
  t1=$(date +%s)
  cat "$work/$plan.log" >>"$log"
  line=$(grep '^summary:' "$work/$plan.log" | tail -1)
  [[ $rc -eq 3 ]] && line="no GPU"
  echo "$plan: exit $rc, $((t1 - t0)) s, ${line:-no summary (timeout or crash)}" | tee -a "$summary"
  if [[ $rc -eq 3 ]]; then tail -1 "$work/$plan.log" >>"$summary"; status=3; break; fi
  (( rc != 0 )) && status=1
  # every job that did not come back ok, with its reason
  grep -E '^\[[0-9]+/[0-9]+\] ' "$work/$plan.log" | grep -v ' ok (' >>"$summary" || true
done
# All results in one archive, split into 15 MiB parts when larger (the return limit is 8 files
# of 16 MiB): summary.txt + run.log + at most 4 parts.
if compgen -G "$work/*/*.res" >/dev/null; then
  (cd "$work" && find . -name '*.res' | sort | tar -cf - -T -) | xz -T0 -6 >"$out/results.tar.xz"
  if (( $(stat -c %s "$out/results.tar.xz") > 15 * 1024 * 1024 )); then
    split -b 15M -d "$out/results.tar.xz" "$out/results.tar.xz.part" && rm "$out/results.tar.xz"
  fi
fi
if (( $(du -sm "$out" | cut -f1) > 62 )); then
  echo "WARNING: $out holds more than 62 MiB; the device tool returns at most 64 MiB" >>"$summary"
fi
{
  echo "files:"; (cd "$out" && ls -l)
  echo "total $(du -sh "$out" | cut -f1), $(( $(date +%s) - start )) s"
} >>"$summary"
cat "$summary"
exit $status
