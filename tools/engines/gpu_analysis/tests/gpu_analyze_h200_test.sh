#!/usr/bin/env bash
# Recorded hardware as the oracle: the H200 results committed under reports/devices/nvidia-h200
# (gpu-check/, two xz parts) must keep agreeing with emu. Conversions and scalar results, the
# split-K and cuBLASLt GEMMs (the units composed as cuda_kernel_composition says), and the bf16
# and tf32 mma.sync rows (overflow to inf, +0 underflow) must each give their exact verdict, and
# the FPRev rows of all 11 kernels the tree their expected preset implies.
# usage: gpu_analyze_h200_test.sh FPCONFORM DEVICE_DIR [fprev|gemm]
#   default: the conversions and the bf16/tf32 mma.sync rows; fprev: the FPRev rows; gemm: the scalar results and the
#   split-K and cuBLASLt GEMMs (about 13 min: the exhaustive label)
set -u
cli=$1 dir=$2 part=${3:-}
command -v xz >/dev/null || { echo "SKIP: xz is not installed (the recorded results are .tar.xz)"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if [[ $part == gemm ]]; then members=(./gemm ./scalar)
elif [[ $part == fprev ]]; then members=(./fprev)
else members=(./conversions ./mma_sync/random_finite.mma_m16n8k16_f32_bf16.res
              ./mma_sync/random_finite.mma_m16n8k8_f32_tf32.res); fi
cat "$dir"/gpu-check/results.tar.xz.part* | xz -dc | tar -xf - -C "$tmp" "${members[@]}" ||
  { echo "FAIL: cannot unpack the results"; exit 1; }
out=$("$cli" gpu-analyze "$tmp" --no-fit --devices "$tmp/devices" --out "$tmp/analysis" 2>&1)
rc=$?
fail=0
[[ $rc -eq 0 ]] || { echo "FAIL: gpu-analyze exit $rc"; grep -E 'DIFFERS|no preset|NOT' <<<"$out" | head -20; fail=1; }
summary=$(tail -1 <<<"$out")
if [[ $part == gemm ]]; then
  for k in cublaslt_e4m3_k512_f32_fast_accum cublaslt_e4m3_k512_f32_promoted; do
    grep -q "^$k .* matches hopper bit for bit (196608/196608 rows" <<<"$out" || { echo "FAIL: $k"; fail=1; }
  done
  grep -q "^66 agree with emu, 0 differ" <<<"$summary" || { echo "FAIL: summary: $summary"; fail=1; }
  grep -q "^splitk4_k128_f32_f16 .* matches hopper-mma bit for bit (196608/196608 rows" <<<"$out" || { echo "FAIL: split-K"; fail=1; }
elif [[ $part == fprev ]]; then
  grep -q " 11 summation trees (11 as expected, 0 differ)" <<<"$summary" || { echo "FAIL: FPRev trees: $summary"; fail=1; }
  [[ $(grep -c "^  expected (.*): matches$" <<<"$out") -eq 11 ]] || { echo "FAIL: FPRev trees"; grep -A3 "^fprev" <<<"$out" | head -40; fail=1; }
else
  grep -q "^40 agree with emu, 0 differ" <<<"$summary" || { echo "FAIL: summary: $summary"; fail=1; }
  grep -q "^sweep.cvt_f32_tf32_rna_satfinite .*agrees with emu" <<<"$out" || { echo "FAIL: tf32 rna satfinite"; fail=1; }
  grep -q "^mma_m16n8k16_f32_bf16 .* matches hopper-mma bit for bit (131072/131072 rows" <<<"$out" || { echo "FAIL: bf16 rows"; fail=1; }
  grep -q "^mma_m16n8k8_f32_tf32 .* matches hopper-mma bit for bit (131072/131072 rows" <<<"$out" || { echo "FAIL: tf32 rows"; fail=1; }
fi
[[ $fail -eq 0 ]] && echo "ok: $summary"
exit $fail
