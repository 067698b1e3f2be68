#!/usr/bin/env bash
# gpu-analyze on the recorded A100/H100 tensor-core rows turned into result files (a stand-in for
# GPU output). The expected verdicts come from the dumps and the papers, not from this code:
# Khattak & Mikaitis's models (presets ampere, hopper) reproduce the A100 and H100 fp16/bf16/tf32
# rows and the H100 fp8 rows with f32 output (wgmma, C = 0; the 13-bit accumulator); the H100 fp8
# rows with f16 output are ptxas's HMMA emulation (preset hopper-mma). And the presets gpu-analyze
# calls bit-exact must be exactly those `fpconform fit --rows` lists on the original dumps.
# usage: gpu_analyze_dumps_test.sh FPCONFORM DUMPS_TO_RESULTS DUMPS_ROOT
set -u
cli=$1 conv=$2 dumps=$3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
"$conv" "$dumps" "$tmp/res" || { echo "FAIL: converter"; exit 1; }
out=$("$cli" gpu-analyze "$tmp/res" --devices "$tmp/devices" --threads 2 2>&1); rc=$?
echo "$out"
[[ $rc -eq 0 ]] || { echo "FAIL: exit $rc, wanted 0 (every kernel matches its expected preset)"; fail=1; }
grep -q "12 MMA results (12 kernels: 12 match the expected preset, 0 another preset, 0 no preset)" <<<"$out" ||
  { echo "FAIL: summary"; fail=1; }

a100="$tmp/devices/nvidia-a100-tensor-core-dumps" h100="$tmp/devices/nvidia-h100-tensor-core-dumps"
[[ -s $a100/mma.md && -s $h100/mma.md ]] || { echo "FAIL: no mma.md per GPU"; ls -R "$tmp/devices"; fail=1; }

# The profiles: per kernel, which presets are bit-exact (JSON evidence "preset X": "N/N rows (bit-exact)").
python3 - "$a100" "$h100" <<'EOF' || fail=1
import glob, json, sys
a100, h100 = sys.argv[1], sys.argv[2]
def exact(path):
    p = json.load(open(path))
    assert p["schema"] == "fpconform.device-profile/1", path
    return p, {e["probe"][len("preset "):] for e in p["evidence"]
               if e["probe"].startswith("preset ") and "(bit-exact)" in e["finding"]}
want = {  # (gpu folder, profile stem prefix): (must be exact, must not be exact, model)
    (a100, "cuda-mma-m16n8k16-f32-f16.f16-f32"): ({"ampere"}, {"hopper", "volta"}, "ampere"),
    # f16 output: the RNE to 11 bits hides F and L; only volta's F = 23 shows (as fit says too)
    (a100, "cuda-mma-m16n8k16-f16-f16.f16-f16"): ({"ampere", "hopper"}, {"volta"}, "ampere"),
    (a100, "cuda-mma-m16n8k16-f32-bf16.bf16-f32"): ({"ampere"}, {"hopper"}, "ampere"),
    (a100, "cuda-mma-m16n8k8-f32-tf32.tf32-f32"): ({"ampere"}, {"hopper"}, "ampere"),
    (h100, "cuda-mma-m16n8k16-f32-f16.f16-f32"): ({"hopper", "hopper-mma"}, {"ampere"}, "hopper-mma"),
    (h100, "cuda-mma-m16n8k16-f16-f16.f16-f16"): ({"hopper", "hopper-mma"}, {"ampere"}, "hopper-mma"),
    (h100, "cuda-mma-m16n8k16-f32-bf16.bf16-f32"): ({"hopper"}, {"ampere"}, "hopper-mma"),
    (h100, "cuda-mma-m16n8k8-f32-tf32.tf32-f32"): ({"hopper"}, {"ampere"}, "hopper-mma"),
    (h100, "cuda-wgmma-m64n8k32-f32-e4m3.e4m3-f32"): ({"hopper", "hopper-wgmma"}, {"ada", "blackwell"}, "hopper-wgmma"),
    (h100, "cuda-wgmma-m64n8k32-f32-e5m2.e5m2-f32"): ({"hopper", "hopper-wgmma"}, {"ada", "blackwell"}, "hopper-wgmma"),
    (h100, "cuda-mma-m16n8k32-f16-e4m3.e4m3-f16"): ({"hopper-mma"}, {"blackwell"}, "hopper-mma"),
    (h100, "cuda-mma-m16n8k32-f16-e5m2.e5m2-f16"): ({"hopper-mma"}, {"blackwell"}, "hopper-mma"),
}
bad = 0
for (folder, stem), (must, mustnot, model) in want.items():
    files = glob.glob(f"{folder}/{stem}.json")
    if len(files) != 1:
        print(f"FAIL: {folder}/{stem}.json missing"); bad = 1; continue
    p, ex = exact(files[0])
    if not must <= ex or ex & mustnot or p["model"]["spec"] != model or p["validation"]["agreed"] != 5000:
        print(f"FAIL: {stem}: bit-exact {sorted(ex)}, model {p['model']['spec']}, "
              f"agreed {p['validation']['agreed']}; wanted {sorted(must)} exact, not {sorted(mustnot)}, model {model}")
        bad = 1
sys.exit(bad)
EOF

# The same verdicts from the passive fit on the original dumps (not through the converter): the
# NVIDIA presets among its matching sets are exactly those gpu-analyze calls bit-exact.
check_fit() {  # dump folder, fit options, GPU folder, profile stem
  "$cli" fit --rows "$dumps/$1" $2 --threads 2 --probes 0 >"$tmp/fit.txt" 2>&1
  python3 - "$tmp/fit.txt" "$3/$4.json" "$1 $2" <<'EOF2' || fail=1
import json, re, sys
fit, profile, what = open(sys.argv[1]).read(), json.load(open(sys.argv[2])), sys.argv[3]
nvidia = {"volta", "turing", "ampere", "ada", "hopper", "hopper-mma", "hopper-wgmma", "blackwell",
          "blackwell-mma", "rtx-blackwell"}
listed = {p.strip() for m in re.findall(r"\(= preset ([^)]*)\)", fit) for p in m.split(",")} & nvidia
exact = {e["probe"][len("preset "):] for e in profile["evidence"]
         if e["probe"].startswith("preset ") and "(bit-exact)" in e["finding"]}
if "agrees on 5000/5000 cases" not in fit or listed != exact:
    print(f"FAIL: fit --rows {what} lists {sorted(listed)}; gpu-analyze calls {sorted(exact)} bit-exact")
    sys.exit(1)
EOF2
}
check_fit A100/bf16 "" "$a100" cuda-mma-m16n8k16-f32-bf16.bf16-f32
check_fit A100/tf32 "" "$a100" cuda-mma-m16n8k8-f32-tf32.tf32-f32
check_fit A100/fp16 "--out f16" "$a100" cuda-mma-m16n8k16-f16-f16.f16-f16
check_fit H100/fp16 "--out f32" "$h100" cuda-mma-m16n8k16-f32-f16.f16-f32
check_fit H100/E4M3 "--out f32 --c-zero" "$h100" cuda-wgmma-m64n8k32-f32-e4m3.e4m3-f32
check_fit H100/E4M3 "--out f16" "$h100" cuda-mma-m16n8k32-f16-e4m3.e4m3-f16

[[ $fail -eq 0 ]] && echo ok
exit $fail
