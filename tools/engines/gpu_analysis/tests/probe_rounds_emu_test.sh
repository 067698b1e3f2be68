#!/usr/bin/env bash
# The offline probe rounds of gpu_probes/README.md ("After the run"), with emu answering the
# plans as a device would (plan_emu_results): round 1 is written with nothing recorded, as
# tools/gpu-check.sh --build does. A device that computes what the stand-in computes (cc 90: the
# stand-in is hopper-mma) needs no second round; one that differs (cc 80: ampere) gets later
# rounds until the characterization is complete, and its model then agrees with every case.
# usage: probe_rounds_emu_test.sh FPCONFORM PLAN_EMU_RESULTS
set -u
cli=$1 emu=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
k=mma_m16n8k16_f32_f16
probe() { "$cli" probe --target cuda:$k --cases 200 --plan-out "$tmp/$1/plans" "${@:2}" >"$tmp/$1/log" 2>&1; }
for cc in 90 80; do
  mkdir -p "$tmp/$cc/res"
  probe $cc; rc=$?
  [[ $rc -eq 4 && -s $tmp/$cc/plans/round-1.plan ]] || { echo "FAIL: cc $cc: first call exit $rc"; fail=1; continue; }
  n=1
  while :; do
    "$emu" "$tmp/$cc/plans/round-$n.plan" $cc "$tmp/$cc/res" >/dev/null || { echo "FAIL: cc $cc: emu round $n"; fail=1; break; }
    probe $cc --results "$tmp/$cc/res" --out-dir "$tmp/$cc/profile"; rc=$?
    [[ $rc -eq 4 && $n -lt 6 ]] || break
    n=$((n + 1))
    [[ -s $tmp/$cc/plans/round-$n.plan ]] || { echo "FAIL: cc $cc: exit 4 without round-$n.plan"; fail=1; break; }
  done
  echo "cc $cc: $n round(s), exit $rc: $(tail -1 "$tmp/$cc/log")"
  [[ $rc -eq 0 ]] || { echo "FAIL: cc $cc: exit $rc after $n rounds"; tail -3 "$tmp/$cc/log"; fail=1; }
  grep -q "agrees on 200/200 cases" "$tmp/$cc/log" || { echo "FAIL: cc $cc: the model does not agree on every case"; fail=1; }
  [[ -s $tmp/$cc/profile/cuda-mma-m16n8k16-f32-f16.f16-f32.json ]] || { echo "FAIL: cc $cc: no profile"; fail=1; }
  # the stand-in's own answers: round 1 is all a device like it needs; ampere needs more
  if [[ $cc == 90 ]]; then [[ $n -eq 1 ]] || { echo "FAIL: cc 90 needed $n rounds, wanted 1"; fail=1; }
  else [[ $n -ge 2 ]] || { echo "FAIL: cc 80 needed $n round(s), wanted a second one (ampere differs from hopper-mma)"; fail=1; }; fi
done
[[ $fail -eq 0 ]] && echo ok
exit $fail
