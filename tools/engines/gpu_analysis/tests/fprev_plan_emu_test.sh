#!/usr/bin/env bash
# fprev.plan end to end without a GPU: the plan write_check_plans.sh writes, answered by the
# expected presets (plan_emu_results), must give every kernel's expected summation tree in
# gpu-analyze: the plan's M, units and layout are what the replay of the FPRev recovery needs.
# usage: fprev_plan_emu_test.sh FPCONFORM PLAN_EMU_RESULTS
set -u
cli=$1 emu=$2
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
bash "$here/../../../../gpu_probes/plans/write_check_plans.sh" --fprev-only "$tmp" || { echo "FAIL: write_check_plans.sh"; exit 1; }
for cc in 89 90; do
  mkdir -p "$tmp/res$cc"
  "$emu" "$tmp/fprev.plan" $cc "$tmp/res$cc" >"$tmp/emu$cc.log" || { echo "FAIL: plan_emu_results cc $cc"; cat "$tmp/emu$cc.log"; fail=1; }
  n=$(grep -c '^wrote' "$tmp/emu$cc.log")
  out=$("$cli" gpu-analyze "$tmp/res$cc" --no-fit --threads 2 2>&1); rc=$?
  echo "cc $cc: $n results; $(grep -c '^fprev .*: tree ' <<<"$out") trees; $(grep 'summation trees' <<<"$out" | sed 's/.*MMA results/MMA results/')"
  # every result written gives a tree, and every tree that has an expected one matches it
  [[ $n -ge 5 && $(grep -c '^fprev .*: tree ' <<<"$out") -eq $n ]] || { echo "FAIL: cc $cc: not every result gave a tree"; grep -A1 "no tree" <<<"$out"; fail=1; }
  grep -q "summation trees (.* as expected, 0 differ)" <<<"$out" || { echo "FAIL: cc $cc: a tree differs"; grep -B1 -A2 DIFFERS <<<"$out"; fail=1; }
  ! grep -q "DIFFERS" <<<"$out" || fail=1
  [[ $rc -eq 0 ]] || { echo "FAIL: cc $cc: gpu-analyze exit $rc, wanted 0 (everything as expected)"; fail=1; }
done
[[ $fail -eq 0 ]] && echo ok
exit $fail
