#!/usr/bin/env bash
# End-to-end tests of the fpconform binary: output formats, worked examples, error handling
# (exit 2, a message naming the argument or line, nothing on stdout) and gen|ver round trips.
# Usage: cli_test.sh path/to/fpconform
set -u
bin=${1:?usage: cli_test.sh path/to/fpconform}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0
fail=0

ok() { pass=$((pass + 1)); }
bad() {
  fail=$((fail + 1))
  echo "FAIL: $*"
}

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
expect_err "gen level" "--level: must be 1 or 2" -- gen f32_to_e4m3 -level 7
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

echo "$pass passed, $fail failed"
[[ $fail -eq 0 ]]
