#!/usr/bin/env bash
# End-to-end tests of `fpconform fit`: rows written by `dot` for a custom model are fitted back
# (exit 0, last line `model <staged unit> agrees on N/N cases`, a model `dot --check` accepts);
# recorded H100 fp8 rows without --c-zero match nothing (exit 1, the closest and the failing
# rows); bad rows files exit 2 naming file:line.
# Usage: fit_cli_test.sh path/to/fpconform path/to/suites/data/tensorcore-dumps
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh" "$@"
dumps=${2:?usage: fit_cli_test.sh fpconform dumps-dir}

# run NAME WANT_RC -- ARGS...: output (stdout + stderr) in $out, exit status checked
run() {
  local name=$1 rc_want=$2
  shift 3
  out=$("$bin" "$@" 2>&1)
  local rc=$?
  if [[ $rc -ne $rc_want ]]; then bad "$name: exit $rc, want $rc_want ($(tail -3 <<<"$out"))"; else ok; fi
}
has() {  # has NAME SUBSTRING: $out contains it
  if [[ "$out" == *"$2"* ]]; then ok; else bad "$1: output lacks [$2]: $(tail -5 <<<"$out")"; fi
}
last_line_is_model() {  # last_line_is_model NAME N/M
  local last
  last=$(tail -1 <<<"$out")
  if [[ "$last" =~ ^model\ [a-z]+\(.*\)\ agrees\ on\ $2\ cases$ ]]; then ok
  else bad "$1: last line [$last] is not 'model <stage>(...) | ... agrees on $2 cases'"; fi
}

# ---- rows of a custom model, written by `dot`, fitted back ----
model="custom:block=2,frac_bits=26,align=nearest_even,out_round=rne"
python3 - >"$tmp/inputs.txt" <<'PY'
import random
random.seed(3)
def bf16():  # finite bf16 with exponents in [-12, 12]
    return (random.getrandbits(1) << 15) | ((127 + random.randint(-12, 12)) << 7) | random.getrandbits(7)
for _ in range(600):
    words = ["%04x" % bf16() for _ in range(8)]
    c = (random.getrandbits(1) << 31) | ((127 + random.randint(-20, 20)) << 23) | random.getrandbits(23)
    print(" ".join(words + ["%08x" % c]))
PY
"$bin" dot --model "$model" --in bf16 --out f32 <"$tmp/inputs.txt" >"$tmp/d.txt" || bad "dot for the rows"
{
  echo "# in=bf16 out=f32"
  paste -d ' ' "$tmp/inputs.txt" "$tmp/d.txt"   # the dot --check layout: a.. b.. c d
} >"$tmp/custom.rows"
run "fit custom rows" 0 -- fit --rows "$tmp/custom.rows" --json "$tmp/fit.json"
last_line_is_model "fit custom rows" "600/600"
has "fit custom rows: family size" "family: "
spec=$(tail -1 <<<"$out" | sed -E 's/^model (.*) agrees on [0-9]+\/[0-9]+ cases$/\1/')
grep -v '^#' "$tmp/custom.rows" >"$tmp/check.txt"
if "$bin" dot --model "$spec" --in bf16 --out f32 --check <"$tmp/check.txt" >/dev/null 2>&1; then ok
else bad "the fitted model $spec does not reproduce the rows in dot --check"; fi
if python3 -c "
import json, sys
j = json.load(open('$tmp/fit.json'))
assert j['model'] == '$spec' and j['agrees'] == 600 and j['cases'] == 600, j['model']
assert j['matching'] and j['family_size'] > 100000
assert j['pinned']['structure'] == 'fused' and 'why' in list(j['open'].values())[0]
" 2>&1; then ok; else bad "fit --json"; fi
run "fit same seed, same report" 0 -- fit --rows "$tmp/custom.rows" --seed 7 --threads 1
first=$out
run "fit same seed again" 0 -- fit --rows "$tmp/custom.rows" --seed 7 --threads 2
if [[ "$(grep -v 's)' <<<"$first")" == "$(grep -v 's)' <<<"$out")" ]]; then ok
else bad "fit with one seed gave two reports"; fi

# ---- recorded rows: a dump directory ----
run "fit V100 fp16 -> f32" 0 -- fit --rows "$dumps/V100/fp16" --out f32
last_line_is_model "fit V100" "5000/5000"
has "fit V100 names the preset" "(= preset volta)"
has "fit V100 pins F" "frac_bits=23"
has "fit V100 says why L is open" "block: every L >= K = 4 computes the rows in one block"
has "fit V100 probes" "probe 1: K = "
# H100 fp8 rows with fp32 output were recorded with C = 0 (README): read with their C file,
# nothing matches.
run "fit H100 E4M3 without --c-zero" 1 -- fit --rows "$dumps/H100/E4M3" --out f32 --probes 100
has "no match is said" "no parameter set in the family reproduces every row"
has "no match: the failing rows" "a_H100_E4M3.txt:"
has "no match: the README's hint" "try --c-zero"
last_line_is_model "no match: the closest on the last line" "[0-9]+/5000"
if [[ "$(tail -1 <<<"$out")" == *" 5000/5000 cases" ]]; then bad "no match but 5000/5000"; else ok; fi

# ---- bad input: exit 2 naming the place ----
printf '# in=e4m3 out=f32\n38 38 | 38 38 | 0 | 0\n38 38 | 38 | 0 | 0\n' >"$tmp/ragged.rows"
run "ragged row" 2 -- fit --rows "$tmp/ragged.rows"
has "ragged row" "ragged.rows:3: ragged row"
printf '# in=e4m3 out=f32\n38 3g | 38 38 | 0 | 0\n' >"$tmp/hex.rows"
run "bad hex" 2 -- fit --rows "$tmp/hex.rows"
has "bad hex" "hex.rows:2: '3g' is not a hex word"
printf '# in=e4m3 out=f32\n38 100 | 38 38 | 0 | 0\n' >"$tmp/wide.rows"
run "code too wide" 2 -- fit --rows "$tmp/wide.rows"
has "code too wide" "wide.rows:2: 0x100 does not fit in 8-bit e4m3"
printf '# in=e4m3 out=f99\n38 | 38 | 0 | 0\n' >"$tmp/format.rows"
run "unknown format" 2 -- fit --rows "$tmp/format.rows"
has "unknown format" "format.rows:1"
: >"$tmp/empty.rows"
run "empty rows" 2 -- fit --rows "$tmp/empty.rows"
has "empty rows" "empty.rows: no rows"
run "missing rows file" 2 -- fit --rows "$tmp/nothing.rows"
has "missing rows file" "cannot open"
run "dump with two outputs" 2 -- fit --rows "$dumps/V100/fp16"
has "dump with two outputs" "choose one with --out"
run "no --rows" 2 -- fit

# ---- recorded x86 rows without the presets: the rows alone give VDPBF16PS's tree ----
rows="$dumps/../cpu-units/intel-xeon-emr/avx512-bf16-vdpbf16ps-special.txt"
run "no presets" 0 -- fit --rows "$rows" --no-presets --probes 0
has "no presets: the tree" "model products(flush) | tree(((c 1) 0)) | out(rne, nan=x86) agrees on 20000/20000 cases"
has "no presets: no preset named" "products(flush) | tree("

finish fit_cli_test
