#!/usr/bin/env bash
# The example kernel validated end to end, as a user would: run it, then `fpconform validate`
# against the model of what it computes (fp32 fma chains, split-K 4, sequential reduction: bit
# for bit), against the exact result (within the classic error bound), and against the hopper
# tensor-core preset (which it is not: validate must say where they differ).
# Usage: tiled_gemm_test.sh path/to/tiled_gemm_example path/to/fpconform
set -u
example=${1:?}
bin=${2:?}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
check() {  # NAME WANT_RC WANT_SUBSTRING -- CMD...
  local name=$1 want_rc=$2 want=$3
  shift 4
  local out rc
  out=$("$@" 2>&1)
  rc=$?
  if [[ $rc -ne $want_rc || "$out" != *"$want"* ]]; then
    echo "FAIL: $name (exit $rc, want $want_rc; want [$want])"; echo "$out"; fail=1
  else echo "ok: $name"; fi
}
"$example" "$tmp" 64 512 48 4 1 || exit 1
v=(validate --in bf16 --out f32 --a "$tmp/A.bin" --b "$tmp/B.bin" --c "$tmp/C.bin" --d "$tmp/D.bin" --shape 64,512,48)
check "bit-exact against its own model" 0 "3072/3072 bit-exact" -- \
  "$bin" "${v[@]}" --model custom:structure=sequential,out_round=rne --split-k 4 --reduction sequential
check "split-K matters: the unsplit chain differs" 1 "verdict: FAIL" -- \
  "$bin" "${v[@]}" --model custom:structure=sequential,out_round=rne
# Against the exact result: not correctly rounded, but close (about 1e-4 at worst here, for
# elements with heavy cancellation; 3,072 elements of unit normal data, K = 512).
check "not correctly rounded" 1 "verdict: FAIL (bit-exact against exact" -- \
  "$bin" "${v[@]}" --reference exact
check "within 1e-3 of the exact result" 0 "verdict: PASS" -- "$bin" "${v[@]}" --reference exact --max-rel 1e-3
check "not the hopper tensor core" 1 "against model hopper" -- "$bin" "${v[@]}" --model hopper
exit $fail
