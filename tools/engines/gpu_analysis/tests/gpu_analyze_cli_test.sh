#!/usr/bin/env bash
# fpconform gpu-analyze on synthetic result files: verdicts, the planted difference (exit 1),
# rows for fit, and bad input refused with the path named (exit 2).
set -u
cli=$1 writer=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/res" "$tmp/out"
"$writer" "$tmp/res" || { echo "FAIL: writer"; exit 1; }
fail=0
out=$("$cli" gpu-analyze "$tmp/res" --out "$tmp/out" --devices "$tmp/devices" --threads 2 2>&1); rc=$?
echo "$out"
[[ $rc -eq 1 ]] || { echo "FAIL: exit $rc, wanted 1 (a difference)"; fail=1; }
grep -q "^agree (cvt_f32_e4m3x2_rn_satfinite): agrees with emu on 3/3 cases" <<<"$out" || { echo "FAIL: agree line"; fail=1; }
grep -q "^differ (bf16_hadd): DIFFERS from emu on 1 of 2 cases (1 agree)" <<<"$out" || { echo "FAIL: differ line"; fail=1; }
grep -q "1 agree with emu, 1 differ, 3 MMA results (3 kernels: 2 match the expected preset, 0 another preset, 1 no preset)" <<<"$out" || { echo "FAIL: summary"; fail=1; }
# made with hopper on cc 90: wgmma's expected preset (= hopper) reproduces every row and digest
grep -q "^wgmma_m64n8k32_f32_e4m3 (e4m3 -> f32) on synthetic (emu) (cc 90) matches hopper-wgmma bit for bit (1024/1024 rows, 16/16 chunk digests)" <<<"$out" || { echo "FAIL: hopper verdict"; fail=1; }
# made with a custom unit: no preset; the fit's proposal reproduces all 512 rows
grep -q "^mma_m16n8k16_f32_bf16 (bf16 -> f32) on synthetic (emu) (cc 80): no preset reproduces every row.*proposes fused(.*which agrees on 512/512 rows" <<<"$out" || { echo "FAIL: custom verdict"; fail=1; }
d="$tmp/devices/synthetic-emu"
for f in mma.md cuda-wgmma-m64n8k32-f32-e4m3.e4m3-f32.json cuda-wgmma-m64n8k32-f32-e4m3.e4m3-f32.md cuda-mma-m16n8k16-f32-bf16.bf16-f32.json; do
  [[ -s $d/$f ]] || { echo "FAIL: no $d/$f"; ls "$tmp/devices" "$d"; fail=1; }
done
grep -q '"schema": "fpconform.device-profile/1"' "$d/cuda-wgmma-m64n8k32-f32-e4m3.e4m3-f32.json" || { echo "FAIL: profile schema"; fail=1; }
grep -q '"spec": "hopper-wgmma"' "$d/cuda-wgmma-m64n8k32-f32-e4m3.e4m3-f32.json" || { echo "FAIL: profile model"; fail=1; }
grep -q "| wgmma_m64n8k32_f32_e4m3 | e4m3 -> f32 | 1024 | hopper-wgmma | hopper-wgmma | 1024/1024 | matches the expected preset |" "$d/mma.md" || { echo "FAIL: mma.md"; cat "$d/mma.md"; fail=1; }
grep -q "^3c00 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 | 4000 .* | 0 | 40000000$" "$tmp/out/rows/mma.rows" || { echo "FAIL: rows"; cat "$tmp/out/rows/mma.rows"; fail=1; }
[[ -s "$tmp/out/verdicts.txt" ]] || { echo "FAIL: no verdicts.txt"; fail=1; }
printf 'junk' >"$tmp/junk.res"
out=$("$cli" gpu-analyze "$tmp/junk.res" 2>&1); rc=$?
[[ $rc -eq 2 ]] && grep -q "junk.res" <<<"$out" || { echo "FAIL: junk -> exit $rc: $out"; fail=1; }
out=$("$cli" gpu-analyze "$tmp/nothing-here" 2>&1); rc=$?
[[ $rc -eq 2 ]] && grep -q "nothing-here" <<<"$out" || { echo "FAIL: missing -> exit $rc: $out"; fail=1; }
[[ $fail -eq 0 ]] && echo ok
exit $fail
