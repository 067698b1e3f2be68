#!/usr/bin/env bash
# `fpconform tolerance`: the bound for Hopper's fp8 unit against values derived by hand from its
# spec, the exact and fp32-chain columns, JSON, and bad arguments (exit 2 naming the argument).
# Usage: tolerance_cli_test.sh path/to/fpconform
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh" "$@"

# Hopper e4m3 -> f32 (wgmma, reports/devices/nvidia-h200): one block of L = 32 products and C,
# aligned to the largest exponent E with F = 13 fraction bits, truncated; then the e8m13 cut
# (RZ to 13 fraction bits), which is D itself for f32 output. At K = 32:
#   - 33 terms (32 products + C) each lose < 2^(E-13), 2^E <= max |term| <= S. The largest
#     term is not exempt: C (f32, 23 fraction bits) may be it and does not fit 13 bits.
#     alpha = 33 * 2^-13 = 0.0040283203125
#   - the cut loses < 2^(e(D) - 13): "1 ulp_13(D)"
#   - 2^E may exceed every term: zero terms count with exponent -133, and a subnormal C
#     with f32's emin -126, so each of the 33 terms may lose up to (2^-133 + 2^-126) 2^-13 more:
#     beta = 33 * (2^-146 + 2^-139) = 4.77226205e-41
expect "hopper e4m3 alpha" 0 "alpha = 0.00402832031" -- tolerance --model hopper --in e4m3 --out f32 --k 32
expect "hopper e4m3 ulp term" 0 "1 ulp_13(D) + beta" -- tolerance --model hopper --in e4m3 --out f32 --k 32
expect "hopper e4m3 beta" 0 "beta  = 4.77226205e-41" -- tolerance --model hopper --in e4m3 --out f32 --k 32
expect "hopper e4m3 derivation" 0 "33 of 33 terms" -- tolerance --model hopper --in e4m3 --out f32 --k 32
# The correctly rounded result: half an ulp of f32; the fp32 fma chain over 32 products: 31
# intermediate roundings, (1 + 2^-24)^31 - 1 = 1.84774564e-06, and gamma_32 = 32u/(1-32u).
expect "exact column" 0 "exact (RNE)                          0  0.5 ulp_23(D)" -- tolerance --model hopper --in e4m3 --out f32 --k 32
expect "fp32 chain column" 0 "1.84774564e-06  0.5 ulp_23(D)" -- tolerance --model hopper --in e4m3 --out f32 --k 32
expect "--model exact" 0 "alpha = 0" -- tolerance --model exact --in e4m3 --out f32 --k 32

# K = 64: two chained blocks. Block 1: a1 = 33 * 2^-13; its result is cut to 13 bits and becomes
# the next C: a2 = a1 + 2^-13 (1 + a1); block 2 aligns again: alpha = a2 + 33 * 2^-13 (1 + a2).
"$bin" tolerance --model hopper --in e4m3 --out f32 --k 64 --json >"$tmp/k64.json"
if python3 - "$tmp/k64.json" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
lam, u = 33 * 2.0**-13, 2.0**-13
a1 = lam
a2 = a1 + u * (1 + a1)
want = a2 + lam * (1 + a2)
got = j["model"]["alpha"]
assert abs(got - want) <= 1e-12 * want, (got, want)
assert j["model"]["ulp_factor"] == 1 and j["model"]["ulp_frac_bits"] == 13, j["model"]
assert j["exact"]["alpha"] == 0 and j["exact"]["ulp_factor"] == 0.5
g = j["fp32_chain"]["gamma_k"]
assert abs(g - 64 * 2.0**-24 / (1 - 64 * 2.0**-24)) < 1e-18, g
PY
then ok; else bad "hopper e4m3 K = 64 JSON"; fi

# Volta f16 -> f32: L = 4, F = 23, RZ. Products of two f16 (20 fraction bits) and C (23) fit
# 23 bits at exponent E, so one of the 5 terms is exact: alpha = 4 * 2^-23 at K = 4.
expect "volta alpha" 0 "alpha = 4.76837158e-07" -- tolerance --model volta --in f16 --out f32 --k 4

# ---- validate --tolerance model ----
# Hopper e4m3: 1*1 + 2^-6 * 2^-8 = 1 + 2^-14 exactly; the model cuts it to 1 (13 fraction bits).
# Its bound at K = 2 is 3 * 2^-13 * S + ulp_13(D) + beta, about 4 * 2^-13 = 4.9e-4 at D = 1.
printf '1,0.015625\n' >"$tmp/a.csv"
printf '1\n0.00390625\n' >"$tmp/b.csv"
printf '1\n' >"$tmp/d_model.csv"
printf '1.00006103515625\n' >"$tmp/d_exact.csv"
printf '1.0078125\n' >"$tmp/d_bad.csv"
v=(validate --model hopper --in e4m3 --out f32 --a "$tmp/a.csv" --b "$tmp/b.csv" --tolerance model)
expect "validate: the model's D" 0 "bit-exact to the model" -- "${v[@]}" --d "$tmp/d_model.csv"
expect "validate: the exact D" 0 "within the model's bound" -- "${v[@]}" --d "$tmp/d_exact.csv"
expect "validate: 1 + 2^-7" 1 "outside the model's bound" -- "${v[@]}" --d "$tmp/d_bad.csv"
expect "validate: calc_diff" 0 "calc_diff" -- "${v[@]}" --d "$tmp/d_exact.csv"
expect "validate: bad tolerance" 2 "--tolerance" -- "${v[@]}" --d "$tmp/d_exact.csv" --tolerance loose

# ---- bad arguments ----
expect "k zero" 2 "--k" -- tolerance --model hopper --in e4m3 --out f32 --k 0
expect "unknown preset" 2 "--model: unknown matrix-unit preset 'hoper'" -- tolerance --model hoper --in e4m3 --out f32 --k 32
expect "unknown format" 2 "--in" -- tolerance --model hopper --in bogus --out f32 --k 32
expect "bad reduction" 2 "--reduction" -- tolerance --model hopper --in e4m3 --out f32 --k 32 --split-k 2 --reduction tree
expect "split-k too large" 2 "--split-k" -- tolerance --model hopper --in e4m3 --out f32 --k 4 --split-k 8
expect "promotion with split-k" 2 "--split-k" -- tolerance --model hopper --in e4m3 --out f32 --k 256 --promote 128 --split-k 2
finish tolerance_cli_test
