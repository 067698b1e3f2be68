#!/usr/bin/env bash
# fpconform probe --target cuda:KERNEL offline, first rounds: with nothing recorded every row is
# the stand-in's, so the probe exits 4 and writes round-1.plan (a plan the runner accepts); a rerun
# writes round-2.plan beside it; the options are refused for other targets (exit 2).
# usage: probe_cuda_offline_test.sh FPCONFORM [RUNNER]
set -u
cli=$1 runner=${2:-}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
out=$("$cli" probe --target cuda:mma_m16n8k16_f32_bf16 --cases 200 --plan-out "$tmp/plans" 2>&1); rc=$?
[[ $rc -eq 4 ]] || { echo "FAIL: exit $rc, wanted 4: $out"; fail=1; }
grep -q "^INCOMPLETE: 0 answers came from recorded results, [0-9]* rows were answered by the stand-in emu:hopper-mma; their plan is $tmp/plans/round-1.plan" <<<"$out" ||
  { echo "FAIL: INCOMPLETE line: $out"; fail=1; }
[[ $(head -1 "$tmp/plans/round-1.plan") == "fpconform-gpu-plan 1" ]] || { echo "FAIL: plan header"; fail=1; }
grep -q "^kernel mma_m16n8k16_f32_bf16$" "$tmp/plans/round-1.plan" || { echo "FAIL: plan kernel"; fail=1; }
if [[ -n $runner && -x $runner ]]; then
  "$runner" --check "$tmp/plans/round-1.plan" || { echo "FAIL: the runner refuses the plan"; fail=1; }
fi
"$cli" probe --target cuda:mma_m16n8k16_f32_bf16 --cases 200 --plan-out "$tmp/plans" >/dev/null 2>&1; rc=$?
[[ $rc -eq 4 && -s $tmp/plans/round-2.plan ]] || { echo "FAIL: second round: exit $rc"; ls "$tmp/plans"; fail=1; }
out=$("$cli" probe --target emu:hopper --plan-out "$tmp/x" 2>&1); rc=$?
[[ $rc -eq 2 ]] && grep -q "cuda: targets" <<<"$out" || { echo "FAIL: emu target with --plan-out: exit $rc: $out"; fail=1; }
out=$("$cli" probe --target cuda:mma_m16n8k16_f32_bf16 --results "$tmp/none" 2>&1); rc=$?
[[ $rc -eq 2 ]] && grep -q "none" <<<"$out" || { echo "FAIL: missing --results folder: exit $rc: $out"; fail=1; }
[[ $fail -eq 0 ]] && echo ok
exit $fail
