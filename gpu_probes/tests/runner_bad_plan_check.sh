#!/usr/bin/env bash
# The runner refuses bad plans with file:line and exit 2 before looking for a GPU, accepts the
# shipped plans (--check), and says clearly when there is no GPU (exit 3) or runs (exit 0).
set -u
runner=$1 plans=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
expect() {  # expect CODE PATTERN -- command...
  local code=$1 pattern=$2; shift 3
  local out rc
  out=$("$@" 2>&1); rc=$?
  if [[ $rc -ne $code ]] || ! grep -qE -- "$pattern" <<<"$out"; then
    echo "FAIL: $* -> exit $rc, output: $out (wanted exit $code and /$pattern/)"; fail=1
  else
    echo "ok: $* -> exit $rc: $(head -1 <<<"$out")"
  fi
}
printf 'fpconform-gpu-plan 1\njob a\nkernel no_such_kernel\nend\n' >"$tmp/bad_kernel.plan"
printf 'fpconform-gpu-plan 1\njob a\nkernel f16_hadd\ninput explicit\ncase 3c00\nend\n' >"$tmp/bad_case.plan"
printf 'not a plan\n' >"$tmp/not_a_plan.plan"
expect 2 "bad_kernel.plan:3: unknown kernel 'no_such_kernel'" -- "$runner" "$tmp/bad_kernel.plan"
expect 2 "bad_case.plan:5: kernel f16_hadd takes 2 codes per case, got 1" -- "$runner" "$tmp/bad_case.plan"
expect 2 "not_a_plan.plan:1: a plan starts with" -- "$runner" "$tmp/not_a_plan.plan"
expect 2 "missing.plan:0: cannot open plan file" -- "$runner" "$tmp/missing.plan"
expect 2 "no plan file given" -- "$runner"
expect 2 "unknown option '--frobnicate'" -- "$runner" --frobnicate x
for p in "$plans"/*.plan; do
  expect 0 "job\(s\): ok" -- "$runner" --check "$p"
done
# No GPU: exit 3 and a clear sentence; with a GPU the smoke plan runs (exit 0).
out=$("$runner" --out "$tmp/res" "$plans/smoke.plan" 2>&1); rc=$?
if [[ $rc -eq 3 ]]; then
  grep -q "no usable CUDA GPU here" <<<"$out" && echo "ok: no GPU -> exit 3: $out" || { echo "FAIL: exit 3 without the sentence: $out"; fail=1; }
elif [[ $rc -ne 0 ]]; then
  echo "FAIL: smoke plan exit $rc: $out"; fail=1
else
  echo "ok: a GPU is here and the smoke plan ran"
fi
exit $fail
