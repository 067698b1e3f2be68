#!/usr/bin/env bash
# End-to-end tests of the fpconform binary: output formats, worked examples, error handling
# (exit 2, a message naming the argument or line, nothing on stdout) and gen|ver round trips.
# Usage: cli_test.sh path/to/fpconform
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh" "$@"

# expect_out NAME EXPECTED_STDOUT -- ARGS...   (exit status 0, stdout exactly as given)
expect_out() {
  local name=$1 want=$2
  shift 3
  local got rc
  got=$("$bin" "$@" 2>"$tmp/err")
  rc=$?
  if [[ $rc -ne 0 ]]; then
    bad "$name: exit $rc ($(cat "$tmp/err"))"
  elif [[ "$got" != "$want" ]]; then
    bad "$name: got [$got] want [$want]"
  else
    ok
  fi
}

# expect_err NAME STDERR_SUBSTRING -- ARGS...  (exit status 2, empty stdout, message on stderr)
expect_err() {
  local name=$1 want=$2
  shift 3
  local got rc
  got=$("$bin" "$@" 2>"$tmp/err" </dev/null)
  rc=$?
  if [[ $rc -ne 2 ]]; then
    bad "$name: exit $rc, want 2"
  elif [[ -n "$got" ]]; then
    bad "$name: printed on stdout: [$got]"
  elif ! grep -qF -- "$want" "$tmp/err"; then
    bad "$name: stderr [$(cat "$tmp/err")] lacks [$want]"
  else
    ok
  fi
}

# expect_ver_err NAME STDERR_SUBSTRING INPUT -- ARGS...  (ver on INPUT: exit 2, no summary)
expect_ver_err() {
  local name=$1 want=$2 input=$3
  shift 4
  local got rc
  got=$(printf '%b' "$input" | "$bin" "$@" 2>"$tmp/err")
  rc=$?
  if [[ $rc -ne 2 ]]; then
    bad "$name: exit $rc, want 2"
  elif [[ "$got" == *passed* ]]; then
    bad "$name: printed a summary: [$got]"
  elif ! grep -qF -- "$want" "$tmp/err"; then
    bad "$name: stderr [$(cat "$tmp/err")] lacks [$want]"
  else
    ok
  fi
}

# ---- version and help ----
expect_out "version" "fpconform 0.1.0" -- --version
for cmd in "" formats convert gen ver eval; do
  # shellcheck disable=SC2086
  if "$bin" $cmd --help >"$tmp/help" 2>&1 && grep -q "Usage" "$tmp/help"; then ok; else bad "help $cmd"; fi
done
expect_err "no command" "subcommand is required" --
expect_err "unknown command" "unknown command 'bogus'" -- bogus
expect_err "unknown option" "--bogus" -- convert --to e4m3 --bogus 1
expect_err "missing --to" "--to is required" -- convert 1

# ---- formats ----
"$bin" formats >"$tmp/formats" || bad "formats exit"
for want in "e4m3 " "448" "0x7f 0xff" "float8_e4m3fn" "ue8m0" "binary<K>p<P>" "custom:e=<E>"; do
  if grep -qF -- "$want" "$tmp/formats"; then ok; else bad "formats table lacks [$want]"; fi
done
if command -v python3 >/dev/null; then
  if "$bin" formats --json | python3 -c '
import json, sys
d = json.load(sys.stdin)
assert isinstance(d, list) and len(d) >= 16, len(d)
e = {x["name"]: x for x in d}
assert e["e4m3"]["max_finite"]["exact"] == "448", e["e4m3"]
assert e["e4m3"]["max_finite"]["code"] == "0x7e"
assert e["e4m3"]["min_subnormal"]["exact"] == "0.001953125"
assert e["e4m3"]["nan"]["codes"] == ["0x7f", "0xff"]
assert e["e4m3"]["infinities"]["encoding"] == "none"
assert e["e5m2"]["infinities"]["codes"] == ["0x7c", "0xfc"]
assert e["e4m3fnuz"]["negative_zero"] is False
assert e["ue8m0"]["min_subnormal"] is None
assert e["f16"]["max_finite"]["exact"] == "65504"
assert e["tf32"]["width"] == 19 and e["tf32"]["hex_digits"] == 5
assert "float8_e4m3fn" in e["e4m3"]["aliases"]
'; then ok; else bad "formats --json"; fi
fi

# ---- convert ----
expect_out "e4m3 500 sat none" "0x7f nan overflow inexact" -- convert --to e4m3 --sat none 500
expect_out "e4m3 500 sat finite" "0x7e 448 overflow inexact" -- convert --to e4m3 --sat finite 500
expect_out "e4m3 464 ties to 448" "0x7e 448 inexact" -- convert --to e4m3 464
expect_out "e4m3 465 overflows" "0x7f nan overflow inexact" -- convert --to e4m3 465
# 1 + 2^-8 + 2^-40 is 0x3FF0100000001000 in f64 (2^-40 is fraction bit 12): above the bf16 tie.
expect_out "bf16 from f64 bits" "0x3f81 1.0078125 inexact" -- convert --to bf16 --from f64 0x3FF0100000001000
expect_out "bf16 exact tie" "0x3f80 1 inexact" -- convert --to bf16 --from f64 0x3FF0100000000000
# ml_dtypes' double-rounding trap: -431.99999999999994 is below the 416|448 midpoint (432) in
# magnitude, so e4m3 gets -416 (0xfd); rounding to f32 first gives -432 and then -448.
expect_out "ml_dtypes trap" "0xfd -416 inexact" -- convert --to e4m3 -431.99999999999994
expect_out "ml_dtypes trap, f64 bits" "0xfd -416 inexact" -- convert --to e4m3 --from f64 0xC07AFFFFFFFFFFFF
expect_out "negative numbers and specials" $'0xb8 -1 -\n0x80 -0 -\n0xff -nan invalid\n0x7f nan -' \
  -- convert --to e4m3 -1 -0 -inf nan
expect_out "flags before negative values" $'0x80 -0 underflow inexact\n0xba -1.25 inexact' \
  -- convert --to e4m3 --ftz -0.001 --round=rtz -1.3
expect_out "explicit --" $'0xc0 -2 -\n0x38 1 -' -- convert --to e4m3 -- -2 1
expect_out "hex float" "0x3c 1.5 -" -- convert --to e4m3 0x1.8p0
expect_out "raw e4m3 to f32" "0x43e00000 448 -" -- convert --to f32 --from e4m3 0x7e
expect_out "raw NaN" "0x7fc00000 nan -" -- convert --to f32 --from e4m3 0x7f
expect_out "rtz" "0x7e 448 inexact" -- convert --to e4m3 --round rtz 470
expect_out "up" "0x39 1.125 inexact" -- convert --to e4m3 --round up 1.01
expect_out "tf32 code" "0x1fc00 1 -" -- convert --to tf32 1
expect_out "ftz" "0x00 0 underflow inexact" -- convert --to e4m3 --ftz 0.003
expect_out "tininess before" "0x08 0.015625 underflow inexact" -- convert --to e4m3 --tininess before 0x1.fffffep-7
expect_out "tininess after" "0x08 0.015625 inexact" -- convert --to e4m3 --tininess after 0x1.fffffep-7
expect_out "stochastic" "0x39 1.125 inexact" -- convert --to e4m3 --round sr-a --sr-bits 4 --random 15 1.0625
expect_out "P3109 family" "0x7f inf -" -- convert --to binary8p3se inf
expect_out "custom format" "0x7e 448 -" -- convert --to custom:e=4,m=3,bias=7,inf=none,nan=ones 448

# ---- convert errors: exit 2, named argument, nothing on stdout ----
expect_err "unknown format" "--to: unknown format 'e4m9x'" -- convert --to e4m9x 1
expect_err "unknown --from" "--from" -- convert --to e4m3 --from zz 0x01
expect_err "unknown mode" "--round: unknown rounding mode 'nearest-ish'" -- convert --to e4m3 --round nearest-ish 1
expect_err "unknown sat" "--sat: unknown saturation" -- convert --to e4m3 --sat maybe 1
expect_err "unknown tininess" "--tininess" -- convert --to e4m3 --tininess never 1
expect_err "malformed number" "value '1.2.3': malformed number" -- convert --to e4m3 1 1.2.3 2
expect_err "raw bits too wide" "value '0x1ff': 0x1ff does not fit in 8-bit format e4m3" -- convert --to f32 --from e4m3 0x1ff
expect_err "raw bits too wide for e2m1" "0x10" -- convert --to f32 --from e2m1 0x10
expect_err "stochastic without bits" "--sr-bits" -- convert --to e4m3 --round sr 1
expect_err "unknown profile" "--profile: unknown profile 'nobody'" -- convert --to e4m3 --profile nobody 1
expect_err "profile needs exact f64" "--profile" -- convert --to e4m3 --profile ocp 0.1

# ---- TestFloat lines ----
expect_out "eval" $'43E80000 7E 01\n43E88000 7F 05' -- eval f32_to_e4m3 --file <(printf '43E80000\n43E88000\n')
out=$(printf '43E80000 7E 01\n43E88000 7F 05\n7F800000 7C 00\n' | "$bin" ver f32_to_e4m3)
rc=$?
if [[ $rc -eq 1 && "$out" == $'line 3: 7F800000 7C 00 expected 7F 10\n2 passed, 1 failed' ]]; then ok; else bad "ver mismatch: $rc [$out]"; fi
out=$(printf '7F800000 7C 00\n' | "$bin" ver f32_to_e5m2)
if [[ $? -eq 0 && "$out" == "1 passed, 0 failed" ]]; then ok; else bad "ver e5m2 inf [$out]"; fi
out=$(printf '43E88000 7E 05\n' | "$bin" ver f32_to_e4m3 --sat finite)
if [[ $? -eq 0 && "$out" == "1 passed, 0 failed" ]]; then ok; else bad "ver sat finite [$out]"; fi
out=$(printf '3F880000 39 01\n' | "$bin" ver f32_to_e4m3 -rmax)
if [[ $? -eq 0 && "$out" == "1 passed, 0 failed" ]]; then ok; else bad "ver -rmax [$out]"; fi
expect_ver_err "3 hex digits for e4m3" "line 2: field 2 (result) '07E': expected 2 hex digits" \
  '43E80000 7E 01\n43E80000 07E 01\n' -- ver f32_to_e4m3
expect_ver_err "field count" "line 1: expected 3 fields" '43E80000 7E\n' -- ver f32_to_e4m3
expect_ver_err "bad hex" "line 1: field 1 'XYZ00000'" 'XYZ00000 7E 01\n' -- ver f32_to_e4m3
expect_ver_err "bits not fitting" "line 1: field 1 '1F': does not fit in 4 bits" '1F 00 00\n' -- ver e2m1_to_f16
expect_ver_err "eval malformed" "line 1:" '1\n' -- eval f32_to_e4m3
expect_err "unknown function" "FUNCTION: unknown function 'f32e4m3'" -- ver f32e4m3
expect_err "function with unknown format" "unknown format 'e4m9x'" -- gen f32_to_e4m9x
expect_err "gen level" "--level: must be an integer in 1..2, got 7" -- gen f32_to_e4m3 -level 7
expect_err "gen exhaustive f64" "--exhaustive" -- gen f64_to_f32 --exhaustive
expect_err "gen profile" "--profile" -- gen f32_to_e4m3 --profile nvidia

# ---- gen | ver round trips (the MPFR oracle against emu) ----
for args in "f32_to_e4m3" "f32_to_e5m2 -rminMag" "bf16_to_e2m1 -rnear_maxMag" \
  "binary8p3se_to_f16" "f64_to_bf16 -rmax" "f32_to_e4m3 --sat finite -tininessbefore" \
  "f16_to_e4m3fnuz -rodd" "f32_to_tf32 -rmin --ftz" "f32_to_e2m3 -rnear_even --daz"; do
  # shellcheck disable=SC2086
  out=$("$bin" gen $args 2>/dev/null | "$bin" ver $args)
  if [[ $? -eq 0 && "$out" == *" passed, 0 failed" ]]; then ok; else bad "gen|ver $args: $out"; fi
done
out=$("$bin" gen e4m3_to_f32 --exhaustive | "$bin" ver e4m3_to_f32)
if [[ $? -eq 0 && "$out" == "256 passed, 0 failed" ]]; then ok; else bad "gen --exhaustive|ver: $out"; fi
out=$("$bin" gen f32_to_e2m3 -level 2 -n 50000 -seed 3 2>/dev/null | "$bin" ver f32_to_e2m3)
if [[ $? -eq 0 && "$out" == "50000 passed, 0 failed" ]]; then ok; else bad "gen -level 2|ver: $out"; fi
# gen prints its seed; the same seed gives the same lines, another seed others.
"$bin" gen f32_to_e4m3 -seed 11 -n 5000 2>"$tmp/seed" >"$tmp/a" || bad "gen seed"
if grep -qx "fpconform gen: seed 11" "$tmp/seed"; then ok; else bad "seed on stderr: $(cat "$tmp/seed")"; fi
"$bin" gen f32_to_e4m3 -seed 11 -n 5000 2>/dev/null >"$tmp/b"
"$bin" gen f32_to_e4m3 -seed 12 -n 5000 2>/dev/null >"$tmp/c"
if cmp -s "$tmp/a" "$tmp/b" && ! cmp -s "$tmp/a" "$tmp/c"; then ok; else bad "gen determinism"; fi
if [[ $(wc -l <"$tmp/a") -eq 5000 ]] && grep -qx "43E80000 7E 01" "$tmp/a"; then ok; else bad "gen -n / tie line"; fi
# eval reproduces gen's lines where emu and the oracle agree (everywhere, here).
"$bin" eval f32_to_e4m3 <"$tmp/a" >"$tmp/e" && cmp -s "$tmp/a" "$tmp/e" && ok || bad "eval == gen"

# ---- scalar operations: one-off eval (expected values worked out by hand from IEEE 754) ----
# e4m3: 1.5 = 0x3c, 2 = 0x40, 0x01 = 2^-9; 1.5 * 2 + 2^-9 = 3 + 2^-9 rounds to 3 (0x44).
expect_out "eval mulAdd" $'a: 0x3c 1.5\nb: 0x40 2\nc: 0x01 0.001953125\nresult: 0x44 3 inexact\ntestfloat: 3C 40 01 44 01' \
  -- eval mulAdd --format e4m3 1.5 2 0x01
# bf16: 1e-3 rounds to 131 * 2^-17 = 0x3a83; 1 + that is 1 (rne) or 1 + 2^-7 = 0x3f81 (up).
expect_out "eval add --round up" $'a: 0x3f80 1\nb: 0x3a83 0.00099945068359375\nresult: 0x3f81 1.0078125 inexact\ntestfloat: 3F80 3A83 3F81 01' \
  -- eval add --format bf16 1 1e-3 --round up
"$bin" eval add --format bf16 1 1e-3 >/dev/null 2>"$tmp/err"
if grep -qF "operand b '1e-3': not exact in bf16; using the nearest bf16, 0x3a83" "$tmp/err"; then ok; else bad "eval inexact operand note: $(cat "$tmp/err")"; fi
out=$("$bin" eval add --format bf16 1 1 | grep '^result')
[[ "$out" == "result: 0x4000 2 -" ]] && ok || bad "bf16 1 + 1: [$out]"
# e4m3 448 + 32 = 480, past the 464 tie: NaN without saturation, 448 with --sat finite.
out=$("$bin" eval add --format e4m3 448 32 | grep '^result')
[[ "$out" == "result: 0x7f nan overflow inexact" ]] && ok || bad "e4m3 448+32: [$out]"
out=$("$bin" eval add --format e4m3 448 32 --sat finite | grep '^result')
[[ "$out" == "result: 0x7e 448 overflow inexact" ]] && ok || bad "e4m3 448+32 sat finite: [$out]"
# e2m1 (1.5 = 0x3): 2.25 -> 2 (0x4); 3 * 3 = 9 overflows to 6, the format has no inf or NaN.
out=$("$bin" eval mul --format e2m1 1.5 1.5 | grep '^result')
[[ "$out" == "result: 0x04 2 inexact" ]] && ok || bad "e2m1 1.5*1.5: [$out]"
out=$("$bin" eval mul --format e2m1 3 -3 | grep '^result')
[[ "$out" == "result: 0x0f -6 overflow inexact" ]] && ok || bad "e2m1 3*-3: [$out]"
expect_out "sqrt -1" $'a: 0xbc00 -1\nresult: 0x7e00 nan invalid\ntestfloat: BC00 7E00 10' -- eval sqrt --format f16 -1
out=$("$bin" eval sqrt --format f16 2 | grep '^result')
[[ "$out" == "result: 0x3da8 1.4140625 inexact" ]] && ok || bad "f16 sqrt 2: [$out]"
expect_out "lt_quiet NaN" $'a: 0x3f800000 1\nb: 0x7fc00000 nan\nresult: 0 false -\ntestfloat: 3F800000 7FC00000 0 00' \
  -- eval lt_quiet --format f32 1 nan
out=$("$bin" eval lt --format f32 1 nan | grep '^result')
[[ "$out" == "result: 0 false invalid" ]] && ok || bad "lt NaN: [$out]"
out=$("$bin" eval le --format bf16 -0 0 | grep '^testfloat')
[[ "$out" == "testfloat: 8000 0000 1 00" ]] && ok || bad "le -0 0: [$out]"
out=$("$bin" eval minimum --format f32 0 -0 | grep '^result')
[[ "$out" == "result: 0x80000000 -0 -" ]] && ok || bad "minimum 0 -0: [$out]"
# NaN policies: inf - inf gives x86's negative default NaN; NVIDIA's is 0x7fff in bf16.
out=$("$bin" eval add --format f32 --nan x86 inf -inf | grep '^result')
[[ "$out" == "result: 0xffc00000 -nan invalid" ]] && ok || bad "--nan x86: [$out]"
out=$("$bin" eval add --format bf16 --nan nvidia nan 1 | grep '^result')
[[ "$out" == "result: 0x7fff nan(0xfc00000000000000) -" ]] && ok || bad "--nan nvidia: [$out]"
out=$("$bin" eval roundToInt --format f32 2.5 | grep '^result')
[[ "$out" == "result: 0x40000000 2 inexact" ]] && ok || bad "roundToInt exact: [$out]"
out=$("$bin" eval roundToInt --format f32 2.5 -notexact | grep '^result')
[[ "$out" == "result: 0x40000000 2 -" ]] && ok || bad "roundToInt -notexact: [$out]"
out=$("$bin" eval roundToInt --format f32 -rnear_maxMag --notexact 2.5 | grep '^result')
[[ "$out" == "result: 0x40400000 3 -" ]] && ok || bad "roundToInt rna: [$out]"
out=$("$bin" eval add --format bf16 -1 -inf | grep '^result')
[[ "$out" == "result: 0xff80 -inf -" ]] && ok || bad "negative operands: [$out]"
out=$("$bin" eval bf16_add 1 1 | grep '^testfloat')
[[ "$out" == "testfloat: 3F80 3F80 4000 00" ]] && ok || bad "eval FUNCTION operands: [$out]"
# custom e=3, m=2 (bias 3): 1.5 * 1.5 = 2.25 = 1.001b * 2, the tie between 2 (1.00b, even) and 2.5.
out=$("$bin" eval 'custom:e=3,m=2_mul' 1.5 1.5 | grep '^result')
[[ "$out" == "result: 0x10 2 inexact" ]] && ok || bad "custom format op: [$out]"
expect_out "one-off conversion" $'a: 0x43e80000 464\nresult: 0x7e 448 inexact\ntestfloat: 43E80000 7E 01' -- eval f32_to_e4m3 464

# ---- scalar operations: errors ----
expect_err "unknown op" "OP: unknown operation 'fma' (operations: add, sub" -- eval fma --format e4m3 1 2 3
expect_err "operand count" "OPERAND: e4m3_add takes 2 operands (a b), got 1" -- eval add --format e4m3 1
expect_err "operand count sqrt" "OPERAND: f16_sqrt takes 1 operand (a), got 2" -- eval sqrt --format f16 1 2
expect_err "operand count mulAdd" "OPERAND: e4m3_mulAdd takes 3 operands (a b c), got 0" -- eval mulAdd --format e4m3
expect_err "malformed operand" "operand b '1.2.3': malformed number" -- eval add --format e4m3 1 1.2.3
expect_err "raw operand too wide" "operand b '0x1ff': 0x1ff does not fit in 8-bit format e4m3" -- eval add --format e4m3 1 0x1ff
expect_err "unknown --format" "--format: unknown format 'zz'" -- eval add --format zz 1 1
expect_err "unknown --nan" "--nan: unknown NaN policy 'bogus'" -- eval add --format f32 --nan bogus 1 1
expect_err "op without --format" "--format: needed with operation 'add'" -- eval add 1 2
expect_err "--file with operands" "--file" -- eval add --format f32 --file /dev/null 1 2
expect_err "unknown op in function" "FUNCTION 'bf16_fma': unknown operation 'fma'" -- ver bf16_fma
expect_err "unknown format in function" "unknown format 'zz9'" -- gen zz9_add
expect_err "gen exhaustive f32 add" "--exhaustive" -- gen f32_add --exhaustive
expect_err "gen op profile" "--profile" -- gen bf16_add --profile nvidia
expect_ver_err "op profile" "--profile" '3F80 3F80\n' -- eval bf16_add --profile nvidia
expect_ver_err "op short line" "line 2: expected 4 fields (op1 op2 result flags), got 3" \
  '3F80 3F80 4000 00\n3F80 4000 00\n' -- ver bf16_add
expect_ver_err "op result width" "line 1: field 3 (result) '04000': expected 4 hex digits" \
  '3F80 3F80 04000 00\n' -- ver bf16_add
expect_ver_err "comparison result width" "line 1: field 3 (result) '01': expected 1 hex digit" \
  '3F800000 40000000 01 00\n' -- ver f32_lt_quiet
expect_ver_err "mulAdd short line" "line 1: expected 5 fields" '3C 40 44 01\n' -- ver e4m3_mulAdd
expect_ver_err "op operand too wide" "line 1: field 1 '13': does not fit in 4 bits" '13 03 04 01\n' -- ver e2m1_mul
expect_ver_err "op eval short line" "line 1: expected 2 or 4 fields" '3F80\n' -- eval bf16_add

# ---- scalar operations: ver, and gen | ver round trips ----
out=$(printf '3F80 3F80 4000 00\n3F80 3F80 4001 00\n' | "$bin" ver bf16_add)
rc=$?
if [[ $rc -eq 1 && "$out" == $'line 2: 3F80 3F80 4001 00 expected 4000 00\n1 passed, 1 failed' ]]; then ok; else bad "op ver mismatch: $rc [$out]"; fi
out=$(printf '3F800000 40000000 1 00\n7FC00000 3F800000 0 00\n' | "$bin" ver f32_lt)
rc=$?
if [[ $rc -eq 1 && "$out" == $'line 2: 7FC00000 3F800000 0 00 expected 0 10\n1 passed, 1 failed' ]]; then ok; else bad "comparison ver mismatch: $rc [$out]"; fi
out=$(printf '7E 60 7E 05\n' | "$bin" ver e4m3_add --sat finite)
if [[ $? -eq 0 && "$out" == "1 passed, 0 failed" ]]; then ok; else bad "ver e4m3 add sat finite [$out]"; fi
for args in "bf16_add" "e4m3_mulAdd" "f16_sqrt -rmin" "e2m1_mul" "f32_lt_quiet" "f64_div -rmax --ftz" \
  "bf16_mul --nan x86 -checkNaNs" "f32_roundToInt -notexact -rminMag" "e5m2_sub --sat finite" \
  "binary8p3se_minimumNumber --nan riscv" "custom:e=3,m=2_add -rodd" "f16_mulAdd --nan nvidia -checkNaNs"; do
  # shellcheck disable=SC2086
  # -checkNaNs is ver's option only (gen refuses it; ver refuses the empty input that leaves).
  out=$("$bin" gen ${args/ -checkNaNs/} -n 20000 2>/dev/null | "$bin" ver $args)
  if [[ $? -eq 0 && "$out" == *" passed, 0 failed" ]]; then ok; else bad "gen|ver $args: $out"; fi
done
out=$("$bin" gen bf16_add -level 2 -n 600000 2>/dev/null | "$bin" ver bf16_add)
if [[ $? -eq 0 && "$out" == "600000 passed, 0 failed" ]]; then ok; else bad "gen -level 2 bf16_add|ver: $out"; fi
out=$("$bin" gen e2m1_mul --exhaustive | "$bin" ver e2m1_mul)
if [[ $? -eq 0 && "$out" == "256 passed, 0 failed" ]]; then ok; else bad "gen --exhaustive e2m1_mul|ver: $out"; fi
# The options reach both sides: lines made under one policy fail under another.
out=$("$bin" gen bf16_add --nan nvidia -n 20000 2>/dev/null | "$bin" ver bf16_add -checkNaNs | tail -1)
[[ "$out" != *" 0 failed" ]] && ok || bad "--nan reaches gen: $out"
out=$("$bin" gen f32_roundToInt -notexact -n 20000 2>/dev/null | "$bin" ver f32_roundToInt | tail -1)
[[ "$out" != *" 0 failed" ]] && ok || bad "-notexact reaches gen: $out"
"$bin" gen e4m3_mulAdd -seed 5 -n 60000 2>/dev/null >"$tmp/m"
"$bin" eval e4m3_mulAdd <"$tmp/m" >"$tmp/me" && cmp -s "$tmp/m" "$tmp/me" && ok || bad "eval == gen (mulAdd)"
if [[ $(wc -l <"$tmp/m") -eq 60000 ]] && grep -qx "3C 40 01 44 01" "$tmp/m"; then ok; else bad "mulAdd gen lines"; fi

finish cli_test
