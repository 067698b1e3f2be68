#!/usr/bin/env bash
# Same inputs and seed, same outputs, whatever the thread count: every multi-threaded command
# path run with 1, 2, 3 and 7 threads (FPCONFORM_THREADS, or --threads where the command has
# it), outputs compared byte for byte with the 1-thread run. Timing lines ("... s)") are the
# only text removed before comparing.
#   sweep    conformance::ConversionSweep (chunks taken dynamically by the workers)
#   validate validate::exact_gemm (rows interleaved across workers), text and --json
#   fit      characterize::fit (the family split across workers), text and --json
# Usage: determinism_cli_test.sh path/to/fpconform
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh" "$@"
cd "$tmp" || exit 2

# same NAME FILE...: each FILE.T (T = 2 3 7) equals FILE.1, and FILE.1 is not empty.
same() {
  local name=$1 f t
  shift
  for f in "$@"; do
    if [[ ! -s $f.1 ]]; then bad "$name: $f.1 is empty"; continue; fi
    for t in 2 3 7; do
      if cmp -s "$f.1" "$f.$t"; then ok; else bad "$name: $f with $t threads differs from 1 thread: $(diff "$f.1" "$f.$t" | head -5)"; fi
    done
  done
}
untimed() { sed -E 's/[0-9.]+ s\)/<time> s)/g; s/"(fit|probe)_seconds": [0-9.e+-]+/"\1_seconds": 0/' "$1"; }

# Inputs: bf16 A (16 x 24) and B (24 x 5) with a spread of exponents, so that the exact
# reference and the model disagree on some elements (the worst-element list is then not empty).
python3 - <<'PY'
import random
random.seed(5)
def m(r, c):
    return "\n".join(",".join("0x%04x" % ((random.getrandbits(1) << 15) | ((115 + random.randrange(24)) << 7) | random.getrandbits(7)) for _ in range(c)) for _ in range(r)) + "\n"
open("A.csv", "w").write(m(16, 24))
open("B.csv", "w").write(m(24, 5))
def bf16():
    return (random.getrandbits(1) << 15) | ((127 + random.randint(-12, 12)) << 7) | random.getrandbits(7)
with open("inputs.txt", "w") as f:
    for _ in range(60):
        f.write(" ".join(["%04x" % bf16() for _ in range(8)] + ["%08x" % ((random.getrandbits(1) << 31) | ((127 + random.randint(-20, 20)) << 23) | random.getrandbits(23))]) + "\n")
PY
m=(--model hopper --in bf16 --out f32 --a A.csv --b B.csv)
"$bin" gemm "${m[@]}" -o D.csv --hex || bad "gemm"
"$bin" dot --model custom:block=2,frac_bits=26,align=nearest_even,out_round=rne --in bf16 --out f32 \
  <inputs.txt >d.txt || bad "dot"
{ echo "# in=bf16 out=f32"; paste -d ' ' inputs.txt d.txt; } >rows.txt

for t in 1 2 3 7; do
  # A conversion sweep with chunks of a few inputs, so that 7 workers interleave.
  FPCONFORM_THREADS=$t "$bin" sweep --from e5m2 --to e2m1 --modes all --sat all --subnormal full \
    >sweep.env.$t 2>/dev/null
  "$bin" sweep --from bf16 --to e4m3 --inputs 3000 --modes deterministic --sat none,finite \
    --threads "$t" >sweep.opt.$t 2>/dev/null
  # (The same --json name every time: the text output repeats the command line.)
  FPCONFORM_THREADS=$t "$bin" validate "${m[@]}" --d D.csv --reference exact --worst 8 \
    --json val.json >val.raw.$t 2>&1
  untimed val.raw.$t >val.txt.$t
  untimed val.json >val.json.$t
  "$bin" fit --rows rows.txt --threads "$t" --seed 3 --probes 300 --json fit.json >fit.raw.$t 2>&1
  untimed fit.raw.$t >fit.txt.$t
  untimed fit.json >fit.json.$t
done
# fit reads FPCONFORM_THREADS when --threads is not given (one run: the path is the same).
FPCONFORM_THREADS=7 "$bin" fit --rows rows.txt --seed 3 --probes 300 >fit.env.raw 2>&1
untimed fit.env.raw >fit.env
cmp -s fit.env fit.txt.1 && ok || bad "fit with FPCONFORM_THREADS=7 differs from --threads 1"
same "sweep (FPCONFORM_THREADS)" sweep.env
same "sweep (--threads)" sweep.opt
same "validate --reference exact" val.txt val.json
same "fit (--threads)" fit.txt fit.json
# The runs did work: the sweep counted every case, validate compared every element.
grep -q "^cases: " sweep.env.1 && ok || bad "sweep output has no case count: $(head -3 sweep.env.1)"
grep -q "80" val.txt.1 && ok || bad "validate output does not mention its 80 elements: $(head -5 val.txt.1)"
grep -q "agrees on 60/60 cases" fit.txt.1 && ok || bad "fit did not fit the rows: $(tail -2 fit.txt.1)"

finish determinism
