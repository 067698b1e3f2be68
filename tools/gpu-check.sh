#!/usr/bin/env bash
# One command that characterizes an NVIDIA GPU with the fpconform GPU probes.
#
#   tools/gpu-check.sh --build            on the CPU machine: build the runner for sm_80/89/90a
#                                         (+100a/120a) and fpconform, write the check plans and the
#                                         first round of the probe engine's plans for every dot
#                                         kernel (probe-plans.tar.xz), stage them under
#                                         build-gpu/stage (the folder to carry); FPCONFORM=path
#                                         uses an fpconform already built instead
#   tools/gpu-check.sh [--bin DIR] [--out DIR] [--budget SECONDS]
#                                         on the GPU machine: run every plan, write raw results
#                                         and a summary (at most 8 files, 16 MiB each)
#   tools/gpu-check.sh --probe-round N [--plans DIR] [--bin DIR] [--out DIR]
#                                         on the GPU machine: only the probe engine's later
#                                         rounds, DIR/<kernel>/round-N.plan (DIR: gpu-plans), with
#                                         DIR/results.tar.xz (<kernel>/*.res) as earlier answers
#
# Outputs in --out (default $OUT if set, else out/gpu-check): summary.txt, run.log and
# results.tar.xz (<plan>/<job>.res; split into results.tar.xz.partNN above 15 MiB: join them
# with cat; cpu/ in it: profiles of the host CPU's bf16/fp16 units where it has them, see
# below); cpu-bench.txt and cpu-bench.notes, `fpconform bench --quick` on the host's CPU
# when time is left. The exact device call is in gpu_probes/README.md. Exit: 0 all plans ran, 1 some job failed, 3 no GPU.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
stage="$root/build-gpu/stage"

build() {
  set -e
  cd "$root"
  bash tools/install-deps.sh  # cuobjdump for the SASS test, among the rest
  cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release >/dev/null
  cmake --build build-gpu -j"${JOBS:-2}" --target fpconform-gpu-run gpu_files_test emu_tests
  rm -rf "$stage" && mkdir -p "$stage/plans"
  cp build-gpu/gpu_probes/fpconform-gpu-run "$stage/"
  cp build-gpu/emu/emu_tests "$stage/"  # the native AVX-512 conversion kernel's tests
  bash gpu_probes/plans/write_check_plans.sh "$stage/fpconform-gpu-run" "$stage/plans"
  cp gpu_probes/plans/*.plan "$stage/plans/" 2>/dev/null || true
  probe_plans
  stage_fpconform
  du -sh "$stage" "$stage"/* "$stage/plans"/*
  echo "staged: $stage (carry build-gpu/stage)"
}

# fpconform and the shared libraries a CUDA image lacks (MPFR, GMP, Google Benchmark; not
# libstdc++: the GPU machine's own is newer), so that the probe engine's later rounds are planned
# on the GPU machine itself, within the same call.
stage_fpconform() {
  local fpc=${FPCONFORM:-build-gpu/tools/fpconform/fpconform} lib
  cp "$fpc" "$stage/fpconform"
  mkdir -p "$stage/lib"
  for lib in libmpfr.so.6 libgmp.so.10 libbenchmark.so.1debian; do
    lib=$(ldd "$fpc" | awk -v l="$lib" '$1 == l {print $3}')
    [[ -n $lib ]] && cp -L "$lib" "$stage/lib/"
  done
}

# The MMA feature probes: `fpconform probe --target cuda:K --plan-out` for every dot kernel, with
# nothing recorded, so every row is answered by the stand-in (the expected preset) and the whole
# adaptive characterization runs on its answers: round-1.plan holds every row that hardware
# behaving like the stand-in needs (a rerun with nothing recorded asks the same rows), and later
# rounds only what the hardware's different answers lead to. --cases is part of the rows asked:
# the CPU side must continue with the same value (gpu_probes/README.md, "After the run").
probe_cases=500
probe_plans() {
  local fpc=${FPCONFORM:-} tmp k rc
  if [[ -z $fpc ]]; then
    cmake --build build-gpu -j"${JOBS:-2}" --target fpconform
    fpc=build-gpu/tools/fpconform/fpconform
  fi
  tmp=$(mktemp -d)
  for k in $("$stage/fpconform-gpu-run" --list | awk '$2 == "dot" {print $1}'); do
    rc=0
    "$fpc" probe --target "cuda:$k" --cases $probe_cases --plan-out "$tmp/$k" >"$tmp/$k.log" 2>&1 || rc=$?
    # exit 4 = plan written (INCOMPLETE); anything else: no plan for this kernel, say why
    if [[ $rc -ne 4 || ! -s $tmp/$k/round-1.plan ]]; then
      echo "probe plans: $k: exit $rc, no round-1.plan: $(tail -1 "$tmp/$k.log")" >&2
      rm -rf "${tmp:?}/$k"
    else
      "$stage/fpconform-gpu-run" --check "$tmp/$k/round-1.plan" | sed "s|^|probe $k: |"
    fi
    rm -f "$tmp/$k.log"
  done
  echo "cases $probe_cases" >"$tmp/ARGS"  # what the CPU side's --cases must be
  # hex text compresses about tenfold; the run unpacks it (xz is needed for the results anyway)
  tar -cf - -C "$tmp" . | xz -T0 -6 >"$stage/probe-plans.tar.xz"
  rm -rf "$tmp"
}

bin="$stage" out="${OUT:-$root/out/gpu-check}" budget=420 probe_round="" probe_dir="$root/gpu-plans"
while [[ $# -gt 0 ]]; do
  case $1 in
    --build) build; exit $? ;;
    --bin) bin=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --budget) budget=$2; shift 2 ;;
    --probe-round) probe_round=$2; shift 2 ;;
    --plans) probe_dir=$2; shift 2 ;;
    -h|--help) sed -n '2,/^set -uo/p' "$0" | grep '^#'; exit 0 ;;
    *) echo "gpu-check.sh: unknown argument '$1'" >&2; exit 2 ;;
  esac
done
runner="$bin/fpconform-gpu-run"
# The runner opens libcublasLt at run time; a CUDA image keeps it in the toolkit or in a Python
# package, not always on the loader's path.
if ! ldconfig -p 2>/dev/null | grep -q 'libcublasLt\.so\.1[23]'; then
  cublas=$(find /usr/local/cuda*/lib64 /usr/local/cuda*/targets/*/lib /opt /usr/lib/python3*/ /usr/local/lib/python3*/ \
             -name 'libcublasLt.so.1[23]*' 2>/dev/null | head -1)
  [[ -n $cublas ]] && export LD_LIBRARY_PATH="$(dirname "$cublas")${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
fi
[[ -z $probe_round || $probe_round =~ ^[0-9]+$ ]] || { echo "gpu-check.sh: --probe-round '$probe_round' is not a round number" >&2; exit 2; }
if [[ -n $probe_round ]] && ! compgen -G "$probe_dir/*/round-$probe_round.plan" >/dev/null; then
  echo "gpu-check.sh: no $probe_dir/<kernel>/round-$probe_round.plan (fpconform probe --plan-out writes them)" >&2; exit 2
fi
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
# Runs one plan in its own process (a kernel that kills its CUDA context cannot take the other
# plans along) in the budget that is left, if at least MIN seconds are: its log into run.log, one
# line into summary.txt, and every job that did not come back ok, with its reason. status: 3 no
# GPU, 1 a failure.
run_plan() {  # LABEL OUT_DIR PLAN MIN
  local label=$1 dir=$2 plan=$3 min=$4 elapsed left t0 rc line name
  elapsed=$(( $(date +%s) - start ))
  left=$(( budget - elapsed ))
  if (( left < min )); then
    echo "$label: skipped, time budget spent (${elapsed}s of ${budget}s)" | tee -a "$summary"
    return
  fi
  name="$work/run.${label// /.}.log"
  t0=$(date +%s)
  timeout "$left" "$runner" --out "$dir" "$plan" >"$name" 2>&1
  rc=$?
  cat "$name" >>"$log"
  line=$(grep '^summary:' "$name" | tail -1)
  [[ $rc -eq 3 ]] && line="no GPU"
  echo "$label: exit $rc, $(( $(date +%s) - t0 )) s, ${line:-no summary (timeout or crash)}" | tee -a "$summary"
  if [[ $rc -eq 3 ]]; then tail -1 "$name" >>"$summary"; status=3; return; fi
  (( rc != 0 )) && status=1
  grep -E '^\[[0-9]+/[0-9]+\] ' "$name" | grep -v ' ok (' >>"$summary" || true
}
# The host CPU's matrix and dot units (cpu:amx-bf16 and cpu:avx512-bf16 need a Sapphire
# Rapids or later Xeon, which the CPU machine only sometimes is), first: the GPU's own results are recorded
# already (reports/devices/nvidia-h200), these are not. Each unit the host has is characterized
# with 10^6 validation cases into cpu/<profile>.json/.md (in results.tar.xz) within 120 s; a unit
# it lacks costs nothing. FPCONFORM_CPU_FLAGS replaces /proc/cpuinfo's flags (to test this part).
# The staged fpconform (for the host CPU's units, the later probe rounds and the bench), when it
# runs on this machine.
fpc="$bin/fpconform" fpc_runs=false
[[ -x $fpc ]] && LD_LIBRARY_PATH="$bin/lib" "$fpc" --version >/dev/null 2>&1 && fpc_runs=true
cpu_flags=${FPCONFORM_CPU_FLAGS:-$(grep -m1 '^flags' /proc/cpuinfo 2>/dev/null | cut -d: -f2)}
{
  echo "host cpu: $(grep -m1 '^model name' /proc/cpuinfo 2>/dev/null | cut -d: -f2- | sed 's/^ *//'), $(nproc) cores"
  echo "host cpu flags:$(for f in avx2 f16c avx512f avx512_bf16 avx512_fp16 amx_bf16 amx_tile; do
    [[ " $cpu_flags " == *" $f "* ]] && printf ' %s' "$f"; done)"
} >>"$summary"
if $fpc_runs; then
  mkdir -p "$work/cpu"
  for unit in amx-bf16:amx_bf16 avx512-bf16:avx512_bf16 avx512-fp16:avx512_fp16; do
    name=${unit%%:*} flag=${unit#*:} target=cpu:${unit%%:*}
    if [[ " $cpu_flags " != *" $flag "* ]]; then echo "host $target: no $flag on this CPU" >>"$summary"; continue; fi
    t0=$(date +%s)
    LD_LIBRARY_PATH="$bin/lib" timeout 120 "$fpc" probe --target "$target" --cases 1000000 \
      --out-dir "$work/cpu" >"$work/cpu/$name.log" 2>&1
    rc=$?
    echo "host $target: exit $rc, $(( $(date +%s) - t0 )) s, $(tail -1 "$work/cpu/$name.log" | cut -c1-200)" | tee -a "$summary"
  done
else
  echo "host cpu units: not probed, $fpc does not run here" >>"$summary"
fi
# The AVX-512 conversion kernel (ConvertKernel::avx512) natively, where the host has
# AVX-512: the CPU machine checks it only under emulation. The conversion tests of the 1-byte
# formats, which then run it beside avx2 and portable (13 s on the CPU machine without it, less
# the two 2-byte-format tests); log in results.tar.xz (cpu/).
if [[ " $cpu_flags " == *" avx512f "* && -x $bin/emu_tests ]]; then
  mkdir -p "$work/cpu"
  timeout 40 "$bin/emu_tests" --gtest_brief=1 \
    --gtest_filter='FastConvert.*:*Avx512*:Formats/FastConvertFormat.*/e4m3:Formats/FastConvertFormat.*/e5m2:Formats/FastConvertFormat.*/e2m1-FastConvert.SignAlignedTierMatchesPortable:FastConvert.F16cKernelMatchesAvx2Kernel' \
    >"$work/cpu/avx512-convert-tests.log" 2>&1
  echo "host avx512 conversion kernel tests: exit $?, $(grep -E '^\[  (PASSED|FAILED|SKIPPED) ' "$work/cpu/avx512-convert-tests.log" | tr '\n' ' ' | cut -c1-300)" >>"$summary"
else
  echo "host avx512 conversion kernel tests: not run (no avx512f on this CPU, or no staged emu_tests)" >>"$summary"
fi
plans_to_run="conversions scalar mma_sync wgmma gemm fprev"
[[ -n $probe_round ]] && plans_to_run=""  # a later probe round only
for plan in $plans_to_run; do
  run_plan "$plan" "$work/$plan" "$plans/$plan.plan" 30
  [[ $status -eq 3 ]] && break
done
# The MMA feature probes: round 1 from probe-plans.tar.xz (--build) after the plans above, or
# round N from --plans; one process per kernel, in the time that is left: results under
# probe/<kernel>/.
if [[ -z $probe_round && -f $bin/probe-plans.tar.xz ]]; then
  probe_round=1 probe_dir="$work/probe-plans"
  mkdir -p "$probe_dir" && xz -dc "$bin/probe-plans.tar.xz" | tar -xf - -C "$probe_dir"
fi
# Results of earlier rounds (DIR/results.tar.xz: <kernel>/*.res), for the later rounds planned
# here: the probe engine continues from every answer recorded so far.
if [[ -f $probe_dir/results.tar.xz ]]; then
  mkdir -p "$work/probe" && xz -dc "$probe_dir/results.tar.xz" | tar -xf - -C "$work/probe"
fi
if [[ $status -ne 3 && -n $probe_round ]]; then
  for p in "$probe_dir"/*/round-"$probe_round".plan; do
    [[ -f $p ]] || continue
    k=$(basename "$(dirname "$p")")
    run_plan "probe $k" "$work/probe/$k" "$p" 30
    [[ $status -eq 3 ]] && break
  done
fi
# Later probe rounds on this machine, when the staged fpconform runs here: per kernel, the probe
# engine continues from the results so far (exit 4: round-N.plan, run it; 0/1: characterized),
# kernels in parallel, until every kernel is done or the budget is spent. The CPU side repeats the
# same commands on the returned results (gpu_probes/README.md, "After the run").
if [[ $status -ne 3 && -d $work/probe ]] && $fpc_runs; then
  cases=$(awk '$1 == "cases" {print $2}' "$probe_dir/ARGS" 2>/dev/null)
  round=${probe_round:-1}
  while :; do
    round=$((round + 1))
    (( budget - ($(date +%s) - start) < 40 )) && { echo "probe round $round: skipped, time budget spent" | tee -a "$summary"; break; }
    rm -f "$work"/probe-cpu.*.rc
    for d in "$work"/probe/*/; do k=$(basename "$d"); [[ -f $work/probe-done.$k ]] || echo "$k"; done | xargs -P "$(nproc)" -I{} sh -c \
      'LD_LIBRARY_PATH="$1/lib" timeout 120 "$1/fpconform" probe --target cuda:{} --cases "$2" --plan-out "$3/{}" \
         --results "$4/probe/{}" --out-dir "$4/profiles/{}" >"$4/probe-cpu.{}.log" 2>&1; echo "{} $?" >"$4/probe-cpu.{}.rc"' \
      _ "$bin" "${cases:-500}" "$probe_dir" "$work"
    pending=()
    for f in "$work"/probe-cpu.*.rc; do
      read -r k rc <"$f"
      echo "probe $k: planning round $round: exit $rc, $(tail -1 "$work/probe-cpu.$k.log" | cut -c1-160)" >>"$log"
      if [[ $rc -eq 4 && -f $probe_dir/$k/round-$round.plan ]]; then pending+=("$k"); else touch "$work/probe-done.$k"; fi
    done
    echo "probe round $round: ${#pending[@]} kernels still asking: ${pending[*]}" | tee -a "$summary"
    (( ${#pending[@]} == 0 )) && break
    for k in "${pending[@]}"; do
      run_plan "probe $k round $round" "$work/probe/$k" "$probe_dir/$k/round-$round.plan" 20
    done
    (( round >= 8 )) && break
  done
  # the final verdict line of every kernel (the CPU side recomputes the profiles from the results)
  for f in "$work"/probe-cpu.*.log; do [[ -f $f ]] && echo "probe $(basename "$f" .log | cut -d. -f2-): $(grep -E '^(reproduced|model|INCOMPLETE|fpconform:)' "$f" | tail -2 | tr '\n' ' ' | cut -c1-300)"; done >>"$summary"
fi
# The host CPU's speed lines (`fpconform bench --quick`), when the staged fpconform runs
# here and time is left: the GPU machine's CPU is the only other x86 these sessions reach (some
# have AVX-512). cpu-bench.txt holds the lines, cpu-bench.notes what each baseline was.
if $fpc_runs && (( budget - ($(date +%s) - start) >= 40 )); then
  LD_LIBRARY_PATH="$bin/lib" timeout 60 "$fpc" bench --quick >"$out/cpu-bench.txt" 2>"$out/cpu-bench.notes"
  echo "cpu bench: exit $?, $(tail -1 "$out/cpu-bench.txt")" >>"$summary"
fi
# All results in one archive, split into 15 MiB parts when larger (the return limit is 8 files
# of 16 MiB): summary.txt + run.log + cpu-bench.txt/.notes + at most 4 parts.
if [[ -n $(find "$work" -name '*.res' -print -quit) || -n $(find "$work/cpu" -type f -print -quit 2>/dev/null) ]]; then
  (cd "$work" && find . -name '*.res' -o -name 'probe-cpu.*.log' -o -path './cpu/*' -type f | sort | tar -cf - -T -) |
    xz -T0 -6 >"$out/results.tar.xz"
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
