#!/usr/bin/env bash
# No input crashes it, no option silently passes: every command's numeric options (one parser,
# one message form, exit 2 before any work), thread counts (--threads and FPCONFORM_THREADS
# alike), probe --max-k, .npy dtypes and shapes, custom: model specs, and ver's bad lines.
# Usage: refusal_cli_test.sh path/to/fpconform
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh" "$@"
data=$(realpath "$(dirname "${BASH_SOURCE[0]}")/data")
cd "$tmp" || exit 2

# refuse NAME SUBSTRING -- ARGS: exit 2, SUBSTRING on stderr, nothing on stdout, no signal.
refuse() {
  local name=$1 want=$2
  shift 3
  local out rc
  out=$("$bin" "$@" <"$input" 2>err.txt)
  rc=$?
  if ((rc != 2)); then bad "$name: exit $rc, want 2 ($(head -c 300 err.txt))"
  elif ! grep -qF -- "$want" err.txt; then bad "$name: stderr lacks [$want]: $(head -c 300 err.txt)"
  elif [[ -n $out ]]; then bad "$name: stdout not empty: $(head -c 200 <<<"$out")"
  else ok; fi
}

# A 2x3 by 3x2 e4m3 product, its D, and a D with one wrong element.
printf '1,2,0.5\n-1,0.25,4\n' >A.csv
printf '1,0\n0,1\n2,2\n' >B.csv
"$bin" gemm --model hopper --in e4m3 --out f32 --a A.csv --b B.csv -o D.csv || bad "gemm"
sed '1s/^[^,]*/100/' D.csv >Dbad.csv
printf '0,0\n1,2\n' >mu.csv
printf '0,1\n1,2\n' >pi.csv
val=(validate --model hopper --in e4m3 --out f32 --a A.csv --b B.csv)

# ---- numeric options: the user's examples, then every command ------------------------------
refuse "worst -1" "--worst: must be an integer in 0..1000000, got -1" -- "${val[@]}" --d D.csv --worst -1
refuse "worst -5" "--worst: must be an integer in 0..1000000, got -5" -- "${val[@]}" --d D.csv --worst -5
refuse "worst INT_MIN" "--worst: must be an integer in 0..1000000, got -2147483648" -- "${val[@]}" --d D.csv --worst -2147483648
refuse "worst 2^64" "--worst: must be an integer" -- "${val[@]}" --d D.csv --worst 18446744073709551616
refuse "worst 1.5" "--worst: must be an integer" -- "${val[@]}" --d D.csv --worst 1.5
for t in nan -nan inf -inf 1e300 -1 1e400; do
  refuse "max-ulp $t" "--max-ulp: must be a finite number in 0..1e+18, got $t" -- "${val[@]}" --d Dbad.csv --max-ulp "$t"
  refuse "max-rel $t" "--max-rel: must be a finite number in 0..1e+18, got $t" -- "${val[@]}" --d Dbad.csv --max-rel "$t"
  refuse "max-kl $t" "--max-kl: must be a finite number in 0..1e+18, got $t" -- validate --in f32 --out f32 --d mu.csv --against pi.csv --logits --max-kl "$t"
done
refuse "split-k-alone 0" "--split-k-alone: must be an integer in 1.." -- "${val[@]}" --batch-invariance --split-k-alone 0
refuse "validate seed -1" "--seed: must be an integer in 0..18446744073709551615, got -1" -- "${val[@]}" --d D.csv --seed -1
# The verdicts the thresholds give: a failing kernel fails under 0 ulp and passes under a huge
# limit, which prints as the number it is (no integer overflow).
expect "max-ulp 0 fails" 1 "verdict: FAIL" -- "${val[@]}" --d Dbad.csv --max-ulp 0
expect "max-ulp 1e18 passes" 0 "max 1000000000000000000 ulp" -- "${val[@]}" --d Dbad.csv --max-ulp 1e18
expect "worst 0 lists none" 1 "verdict: FAIL" -- "${val[@]}" --d Dbad.csv --worst 0
expect "max-kl 0 gives a verdict" 1 "verdict: FAIL" -- validate --in f32 --out f32 --d mu.csv --against pi.csv --logits --max-kl 0

gemm=(gemm --model hopper --in e4m3 --out f32 --a A.csv --b B.csv -o X.csv)
refuse "gemm split-k 0" "--split-k: must be an integer in 1..16777216" -- "${gemm[@]}" --split-k 0
refuse "gemm split-k 1.5" "--split-k: must be an integer in 1..16777216" -- "${gemm[@]}" --split-k 1.5
refuse "gemm promote -4" "--promote: must be an integer in 0..16777216" -- "${gemm[@]}" --promote -4
refuse "gemm promote 1e3" "--promote: must be an integer" -- "${gemm[@]}" --promote 1e3
refuse "gemm scale-b-block-cols 0" "--scale-b-block-cols: must be an integer in 1.." -- "${gemm[@]}" --scale-b-block-cols 0
check "gemm wrote nothing" '[[ ! -e X.csv ]]'
refuse "fit probes -1" "--probes: must be an integer in 0..10000000, got -1" -- fit --rows r.rows --probes -1
refuse "fit seed 1e3" "--seed: must be an integer" -- fit --rows r.rows --seed 1e3
refuse "sweep max-counterexamples -1" "--max-counterexamples: must be an integer in 0..1000000" -- sweep --from e4m3 --to e5m2 --max-counterexamples -1
for t in nan inf -1 1e9; do
  refuse "sweep checkpoint-every $t" "--checkpoint-every: must be a finite number in 0..86400, got $t" -- sweep --from e4m3 --to e5m2 --checkpoint-every "$t"
done
refuse "probe cases 0" "--cases: must be an integer in 1..1000000000, got 0" -- probe --target emu:hopper --cases 0
refuse "probe order-k 1" "--order-k: must be an integer in 2..256, got 1" -- probe --target emu:hopper --order-k 1
refuse "probe seed -1" "--seed: must be an integer" -- probe --target emu:hopper --seed -1
refuse "report seed x" "--seed: must be an integer" -- report --out rep --seed x
refuse "report unit-cases -1" "--unit-cases: must be an integer in 0..1000000000" -- report --out rep --unit-cases -1
refuse "gpu-analyze digest-chunks -1" "--digest-chunks: must be an integer" -- gpu-analyze x.res --digest-chunks -1
refuse "gpu-analyze run-samples 1e3" "--run-samples: must be an integer" -- gpu-analyze x.res --run-samples 1e3
refuse "gpu-analyze fit-rows -1" "--fit-rows: must be an integer" -- gpu-analyze x.res --fit-rows -1
refuse "gen level 3" "--level: must be an integer in 1..2, got 3" -- gen bf16_add --level 3
refuse "gen level -1 (TestFloat spelling)" "--level: must be an integer in 1..2, got -1" -- gen bf16_add -level -1
refuse "gen n -1" "-n: must be an integer in 0..1000000000000" -- gen bf16_add -n -1
refuse "gen seed 0x10" "--seed: must be an integer" -- gen bf16_add --seed 0x10
refuse "gen sr-bits 0" "--sr-bits: must be an integer in 1..64, got 0" -- gen bf16_add --round sr --sr-bits 0
refuse "eval sr-bits 65" "--sr-bits: must be an integer in 1..64, got 65" -- eval bf16_add --round sr --sr-bits 65
refuse "convert sr-bits nan" "--sr-bits: must be an integer in 1..64, got nan" -- convert --to e4m3 --round sr --sr-bits nan 1

# ---- a flag's value: a count too large for 64 bits is refused, not thrown out of the parser -----
refuse "notexact=2^64" "--notexact=18446744073709551616: a flag's value is true, false or a small count" -- \
  eval roundToInt --format f32 2.5 --notexact=18446744073709551616
refuse "notexact=-2^70" "--notexact=-1180591620717411303424" -- eval roundToInt --format f32 2.5 --notexact=-1180591620717411303424

# ---- thread counts: every --threads, and FPCONFORM_THREADS, the same way --------------------
range="must be an integer in 0..1024 (0: FPCONFORM_THREADS, else all cores), got"
refuse "fit threads" "--threads: $range 100000" -- fit --rows r.rows --threads 100000
refuse "sweep threads" "--threads: $range 100000" -- sweep --from e4m3 --to e5m2 --threads 100000
refuse "sweep threads -1" "--threads: $range -1" -- sweep --from e4m3 --to e5m2 --threads -1
refuse "report threads" "--threads: $range 5000" -- report --out rep --threads 5000
refuse "bench threads" "--threads: $range 5000" -- bench --smoke --threads 5000
refuse "gpu-analyze threads" "--threads: $range 5000" -- gpu-analyze x.res --threads 5000
check "report made nothing" '[[ ! -e rep ]]'
env_range="FPCONFORM_THREADS: must be an integer in 0..1024 (0: all cores), got"
for v in 100000 -1 four 2x; do
  export FPCONFORM_THREADS=$v
  refuse "env $v: fit" "$env_range $v" -- fit --rows r.rows
  refuse "env $v: sweep" "$env_range $v" -- sweep --from e4m3 --to e5m2
  refuse "env $v: validate" "$env_range $v" -- "${val[@]}" --d D.csv
  refuse "env $v: gpu-analyze" "$env_range $v" -- gpu-analyze x.res
done
# Within the range, both work (more threads than cores too), and give the same result.
export FPCONFORM_THREADS=3
expect "env 3: sweep" 0 "mismatches: 0" -- sweep --from e4m3 --to e5m2 --modes rne --sat none --subnormal plain
unset FPCONFORM_THREADS
expect "sweep threads 1024" 0 "mismatches: 0" -- sweep --from e4m3 --to e5m2 --modes rne --sat none --subnormal plain --threads 1024
export FPCONFORM_THREADS=
expect "empty env: validate" 0 "verdict: PASS" -- "${val[@]}" --d D.csv
unset FPCONFORM_THREADS

# ---- probe --max-k: never below what the block-size probe needs ------------------------------
for k in 8 63 0 -1 5000; do
  refuse "probe max-k $k" "--max-k: must be an integer in 64..4096" -- probe --target emu:hopper --max-k "$k"
done

# ---- .npy dtypes and shapes -------------------------------------------------------------------
refuse "uint8 npy as bf16" "ones_u8.npy: dtype '|u1' holds 1-byte raw codes, but bf16 codes are 2 bytes wide" -- \
  validate --model exact --in bf16 --out f32 --a "$data/ones_u8.npy" --b "$data/ones_u8.npy" --d D.csv
refuse "uint8 npy as f32" "ones_u8.npy: dtype '|u1'" -- gemm --model exact --in f32 --out f32 --a "$data/ones_u8.npy" --b "$data/ones_u8.npy" -o X.csv
# The same file is four e4m3 codes (uint8 is e4m3's storage width): 0x01 is 2^-9, and the
# product of two of them, twice, is 2^-17.
expect "uint8 npy as e4m3" 0 "" -- gemm --model exact --in e4m3 --out f32 --a "$data/ones_u8.npy" --b "$data/ones_u8.npy" -o X.csv --hex
check "uint8 npy as e4m3: 2^-17" '[[ $(head -1 X.csv) == "0x37000000,0x37000000" ]]'
refuse "structured npy" "structured.npy: dtype [('a', '<f4'), ('b', '<i4')] is a structured dtype" -- \
  gemm --model hopper --in e4m3 --out f32 --a "$data/structured.npy" --b B.csv -o X.csv
grep -q endian err.txt && bad "structured npy: message speaks of endianness"
refuse "4x0 npy" "empty_cols.npy: shape (4, 0) has an empty dimension (no columns)" -- \
  gemm --model hopper --in e4m3 --out f32 --a "$data/empty_cols.npy" --b B.csv -o X.csv

# ---- custom: model specs ----------------------------------------------------------------------
printf '38 38 00000000\n' >row.txt
input=row.txt
refuse "duplicate key" "--model: parameter 'block' given twice" -- dot --model custom:block=4,block=8 --in e4m3 --out f32
refuse "duplicate base" "--model: parameter 'base' given twice" -- dot --model custom:base=hopper,base=hopper --in e4m3 --out f32
block="block must be 1..64 with structure=fused"
refuse "block=100" "$block" -- dot --model custom:block=100 --in e4m3 --out f32
refuse "block=1000000000" "$block" -- dot --model custom:block=1000000000 --in e4m3 --out f32
refuse "block=99999999999" "$block" -- dot --model custom:block=99999999999 --in e4m3 --out f32
refuse "block=0" "$block" -- dot --model custom:block=0 --in e4m3 --out f32
expect "block=64" 0 "" -- dot --model custom:block=64 --in e4m3 --out f32
input=/dev/null

# ---- ver: control bytes shown, and what a bad line after a mismatch leaves ---------------------
printf '3F80 3F80\0 4000 00\n' >nul.txt
refuse "ver NUL" "line 1: field 2 '3F80\\x00': expected 4 hex digits for bf16 (16 bits), got 5" -- ver bf16_add --file nul.txt
# Streaming: the mismatch of line 1 is printed, then line 2 stops the run (exit 2) before the
# summary, as the README says.
printf '3F80 3F80 4000 01\nzz\n' >late.txt
out=$("$bin" ver bf16_add --file late.txt 2>err.txt)
rc=$?
check "ver late bad line: exit 2" '[[ $rc -eq 2 ]]'
check "ver late bad line: names line 2" 'grep -qF "line 2: expected 4 fields" err.txt'
check "ver late bad line: the mismatch line only" '[[ $out == "line 1: 3F80 3F80 4000 01 expected 4000 00" ]]'

finish "refusal cli"
