#!/usr/bin/env bash
# End-to-end tests of `fpconform validate`: a kernel output that matches the model, a planted
# fault found at its element, --element's working, the exact reference, --against/--logits,
# batch invariance, raw binary files with --shape, and bad input (exit 2 naming the argument).
# Usage: validate_cli_test.sh path/to/fpconform
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh" "$@"
cd "$tmp" || exit 2

# bf16 operands as hex CSV (exponents 2^-4..2^3, both signs), A 8x32, B 32x6.
python3 - <<'PY'
import random, struct
random.seed(1)
def m(r, c):
    return "\n".join(",".join("0x%04x" % ((random.getrandbits(1) << 15) | ((123 + random.randrange(8)) << 7) | random.getrandbits(7)) for _ in range(c)) for _ in range(r)) + "\n"
open("A.csv", "w").write(m(8, 32))
open("B.csv", "w").write(m(32, 6))
# The same A and B as raw little-endian bf16 codes.
for name in ("A", "B"):
    codes = [int(x, 16) for line in open(name + ".csv") for x in line.strip().split(",")]
    open(name + ".bin", "wb").write(struct.pack("<%dH" % len(codes), *codes))
# Two logit rows: mu = (1/2, 1/2); pi = (1/4, 3/4) (f32 ln 3 in row 0), row 1 identical.
import math
open("mu.csv", "w").write("0,0\n1,2\n")
from decimal import Decimal
open("pi.csv", "w").write("0,%s\n1,2\n" % Decimal(struct.unpack("<f", struct.pack("<f", math.log(3)))[0]))
open("tokens.txt", "w").write("0\n1\n")
PY
m=(--model hopper --in bf16 --out f32 --a A.csv --b B.csv)
"$bin" gemm "${m[@]}" -o D.csv --hex || bad "gemm"
expect "model output passes" 0 "48/48 bit-exact" -- validate "${m[@]}" --d D.csv
expect "verdict line" 0 "verdict: PASS (bit-exact against model hopper)" -- validate "${m[@]}" --d D.csv
# Plant a fault in row 2, column 0 (the third line's first cell).
sed '3s/^0x[0-9a-f]*/0x3f800000/' D.csv >Dbad.csv
expect "planted fault fails" 1 "47/48 bit-exact" -- validate "${m[@]}" --d Dbad.csv
expect "planted fault located" 1 "D[2][0] = 0x3f800000" -- validate "${m[@]}" --d Dbad.csv
expect "repro command" 1 "--element 2,0" -- validate "${m[@]}" --d Dbad.csv
expect "element working" 0 "kernel:   3f800000" -- validate "${m[@]}" --d Dbad.csv --element 2,0 --reference exact
# The element's model line, fed to `dot`, gives the model's value.
line=$("$bin" validate "${m[@]}" --d Dbad.csv --element 2,0 | sed -n "s/^the model's working: echo '\(.*\)' | .*/\1/p")
want=$("$bin" validate "${m[@]}" --d Dbad.csv --element 2,0 | sed -n 's/^model: *\([0-9a-f]*\) .*/\1/p')
got=$(echo "$line" | "$bin" dot --model hopper --in bf16 --out f32 | tr A-F a-f)
[[ -n "$want" && "$got" == "$want" ]] && ok || bad "element line through dot: got [$got] want [$want]"
# The hopper model (RZ, 25 fraction bits) is not correctly rounded: the exact reference says so.
expect "exact reference" 0 "against exact (correctly rounded, rne)" -- validate "${m[@]}" --d D.csv --reference exact
expect "exact only, tolerance" 0 "verdict: PASS" -- validate --in bf16 --out f32 --a A.csv --b B.csv --d D.csv --reference exact --max-ulp 8
expect "exact only, bit-exact fails" 1 "verdict: FAIL" -- validate --in bf16 --out f32 --a A.csv --b B.csv --d D.csv --reference exact
# Raw binary inputs with --shape.
expect "raw inputs" 0 "48/48 bit-exact" -- validate --model hopper --in bf16 --out f32 --a A.bin --b B.bin --d D.csv --shape 8,32,6
expect "raw needs shape" 2 "needs --shape" -- validate --model hopper --in bf16 --out f32 --a A.bin --b B.bin --d D.csv
expect "raw wrong size" 2 "holds 512 bytes; 8x33 bf16 codes of 2 bytes need 528" -- validate --model hopper --in bf16 --out f32 --a A.bin --b B.bin --d D.csv --shape 8,33,6
# Two implementations; logits.
expect "against itself" 0 "48/48 bit-exact" -- validate --in bf16 --out f32 --d D.csv --against D.csv
expect "against faulty" 1 "D[2][0]" -- validate --in bf16 --out f32 --d Dbad.csv --against D.csv
expect "logits KL" 0 "KL(mu || pi): mean" -- validate --in f32 --out f32 --d mu.csv --against pi.csv --logits --tokens tokens.txt
expect "logits max-kl fails" 1 "verdict: FAIL" -- validate --in f32 --out f32 --d mu.csv --against pi.csv --logits --tokens tokens.txt --max-kl 1e-6
"$bin" validate --in f32 --out f32 --d mu.csv --against pi.csv --logits --tokens tokens.txt --json kl.json >/dev/null
python3 - <<'PY' && ok || bad "logits JSON: KL by direct computation"
import json, math, struct
j = json.load(open("kl.json"))
l3 = struct.unpack("<f", struct.pack("<f", math.log(3)))[0]
p1 = math.exp(l3) / (1 + math.exp(l3)); p0 = 1 - p1
kl0 = 0.5 * math.log(0.5 / p0) + 0.5 * math.log(0.5 / p1)
assert abs(j["kl_per_row"][0] - kl0) < 1e-12 and abs(j["kl_per_row"][1]) < 1e-15, j
PY
# Batch invariance: a kernel that splits K in 4 for batches but not for single rows.
expect "batch invariance" 1 "rows differ between the batch (split-k 4)" -- validate --model custom:structure=sequential,out_round=rne --in bf16 --out f32 --a A.csv --b B.csv --batch-invariance --split-k 4 --split-k-alone 1
expect "batch invariance holds" 0 "0 of 8 rows differ" -- validate --model hopper --in bf16 --out f32 --a A.csv --b B.csv --batch-invariance
# Bad input.
head -c 40 D.csv >Dtrunc.csv
expect "shape mismatch" 2 "--b" -- validate --model hopper --in bf16 --out f32 --a A.csv --b A.csv --d D.csv
expect "truncated D" 2 "--d: D is 1x4 but A.B is 8x6" -- validate "${m[@]}" --d Dtrunc.csv
expect "unknown model" 2 "--model" -- validate --model hoper --in bf16 --out f32 --a A.csv --b B.csv --d D.csv
expect "no expectation" 2 "--reference exact" -- validate --in bf16 --out f32 --a A.csv --b B.csv --d D.csv
expect "bad element" 2 "--element" -- validate "${m[@]}" --d D.csv --element 9,9
expect "bad reference" 2 "--reference" -- validate "${m[@]}" --d D.csv --reference mpfr
sed '2s/^0x[0-9a-f]*/0x7fc0/' A.csv >Anan.csv
expect "NaN operand refused" 2 "--a Anan.csv row 1 column 0: NaN input" -- validate "${m[@]/A.csv/Anan.csv}" --d D.csv
expect "NaN operand allowed" 1 "against model hopper" -- validate "${m[@]/A.csv/Anan.csv}" --d D.csv --allow-nan
sed '4s/,[^,]*$//' A.csv >Aragged.csv
expect "ragged CSV" 2 "Aragged.csv:4" -- validate "${m[@]/A.csv/Aragged.csv}" --d D.csv
python3 -c "
import numpy as np
np.save('D_i8.npy', np.zeros((8, 6), dtype=np.int8))
" 2>/dev/null && expect "wrong npy dtype" 2 "D_i8.npy" -- validate "${m[@]}" --d D_i8.npy
expect "missing file" 2 "nope.csv" -- validate "${m[@]}" --d nope.csv

finish validate_cli_test
