#!/usr/bin/env bash
# gpu label: runs the smoke plan and checks its results; skips (77) where there is no GPU.
set -u
runner=$1 plan=$2 out=$3
rm -rf "$out"
log=$("$runner" --out "$out" "$plan" 2>&1); rc=$?
echo "$log"
if [[ $rc -eq 3 ]]; then echo "SKIP: $(tail -1 <<<"$log")"; exit 77; fi
[[ $rc -eq 0 ]] || { echo "FAIL: runner exit $rc"; exit 1; }
for job in smoke_cvt_f32_bf16_rn smoke_f16_hadd smoke_mma_f16_f32 smoke_sweep_f16_hsqrt smoke_sweep_cvt_f32_bf16_rn; do
  [[ -s "$out/$job.res" ]] || { echo "FAIL: no $out/$job.res"; exit 1; }
done
grep -q "summary: 5 ok" <<<"$log" || { echo "FAIL: not all 5 jobs ok"; exit 1; }
# The bf16 conversion of 1.0 is 0x3F80 (exact), the f16 sum 1+1 is 0x4000 (exact): both from the
# formats' definitions. Outputs block: 2-byte little-endian values at the end of the file.
tail -c 8 "$out/smoke_cvt_f32_bf16_rn.res" | od -An -tx2 | grep -q "3f80" || { echo "FAIL: bf16(1.0) is not 0x3f80"; exit 1; }
tail -c 4 "$out/smoke_f16_hadd.res" | od -An -tx2 | grep -q "4000" || { echo "FAIL: 1+1 is not 0x4000 in f16"; exit 1; }
echo "ok"
