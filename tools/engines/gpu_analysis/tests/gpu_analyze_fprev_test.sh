#!/usr/bin/env bash
# fpconform gpu-analyze on synthetic FPRev results of the split-K kernel: rows made by ampere
# slices reduced pairwise (the kernel's documented tree) must give the tree expected_order gives
# for that model (expected.tree, written by the fixture writer from the model, not from the
# analysis), judged "matches", exit 0; rows reduced sequentially must give the sequential tree,
# judged as differing, exit 1; both recorded in verdicts.txt and mma.md; a row that is no FPRev
# row is refused (exit 2, file and row named).
# usage: gpu_analyze_fprev_test.sh FPCONFORM WRITER
set -u
cli=$1 writer=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/res"
"$writer" "$tmp/res" "$tmp/fprev" || { echo "FAIL: writer"; exit 1; }
fail=0
k=splitk4_k128_f32_f16
for case in pairwise sequential; do
  tree=$(cat "$tmp/fprev/$case/expected.tree")
  pairwise=$(cat "$tmp/fprev/pairwise/expected.tree")
  [[ -n $tree ]] || { echo "FAIL: empty expected.tree"; fail=1; }
  out=$("$cli" gpu-analyze "$tmp/fprev/$case" --out "$tmp/out-$case" --devices "$tmp/dev-$case" --no-fit --threads 2 2>&1); rc=$?
  echo "$out" | grep -v '^  ' | head -20
  want_rc=0 verdict=matches mdv=matches summary="1 summation trees (1 as expected, 0 differ)"
  [[ $case == sequential ]] && want_rc=1 verdict=DIFFERS mdv=differs summary="1 summation trees (0 as expected, 1 differ)"
  [[ $rc -eq $want_rc ]] || { echo "FAIL: $case: exit $rc, wanted $want_rc"; fail=1; }
  grep -qxF "fprev $k (k = 128): tree $tree" <<<"$out" || { echo "FAIL: $case: recovered tree line"; fail=1; }
  grep -qxF "  expected (split-k=4 pairwise of ampere): $pairwise: $verdict" <<<"$out" || { echo "FAIL: $case: expected line"; fail=1; }
  grep -qF "$summary" <<<"$out" || { echo "FAIL: $case: summary"; fail=1; }
  grep -qxF "fprev $k (k = 128): tree $tree" "$tmp/out-$case/verdicts.txt" || { echo "FAIL: $case: verdicts.txt"; fail=1; }
  md="$tmp/dev-$case/synthetic-emu/mma.md"
  grep -q "^## Summation trees" "$md" && grep -qF "| $k | \`$tree\` | \`$pairwise\` (split-k=4 pairwise of ampere) | $mdv |" "$md" ||
    { echo "FAIL: $case: mma.md"; cat "$md"; fail=1; }
done
# a row that is no FPRev row is bad input: exit 2, the file and the row named
bad="$tmp/fprev/bad/fprev.mma_m16n8k16_f32_f16.res"
out=$("$cli" gpu-analyze "$bad" --no-fit 2>&1); rc=$?
[[ $rc -eq 2 ]] || { echo "FAIL: bad row: exit $rc, wanted 2"; fail=1; }
grep -qF "$bad" <<<"$out" && grep -q "row 1: not an FPRev row" <<<"$out" || { echo "FAIL: bad row message: $out"; fail=1; }
[[ $fail -eq 0 ]] && echo ok
exit $fail
