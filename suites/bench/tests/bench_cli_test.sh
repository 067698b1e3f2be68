#!/usr/bin/env bash
# fpconform bench --smoke: the output's form (the line grammar), never its speed. Every stdout
# line but the last is a comparison line, the last is 'N ok, M short' with the counts of the
# lines above, each verdict agrees with its printed ratio and target, and every target group
# (suites/bench/README.md) has at least one line.
set -u
fpc="$1"
out=$(mktemp) err=$(mktemp)
trap 'rm -f "$out" "$err"' EXIT
fail() { echo "FAIL: $*"; echo "--- stdout"; cat "$out"; echo "--- stderr"; cat "$err"; exit 1; }

"$fpc" bench --smoke >"$out" 2>"$err" || fail "exit status $?"
[ -s "$out" ] || fail "no output"

re='^[^ ]+ ours=[^ ]+ [^ ]+ baseline=[^ ]+ [^ ]+ [^ ]+ ratio=[^ ]+ target=[^ ]+ (ok|SHORT)$'
n=$(wc -l <"$out")
ok=0 short=0
i=0
while IFS= read -r line; do
  i=$((i + 1))
  [ "$i" -eq "$n" ] && break
  [[ "$line" =~ $re ]] || fail "line $i does not match the grammar: $line"
  # ours and baseline in one unit; the verdict follows ratio >= target.
  read -r name ours u1 base bv u2 ratio target verdict <<<"$line"
  [ "$u1" = "$u2" ] || fail "line $i: units differ"
  r=${ratio#ratio=} t=${target#target=}
  want=$(awk -v r="$r" -v t="$t" 'BEGIN { print (r + 0 >= t + 0) ? "ok" : "SHORT" }')
  [ "$verdict" = "$want" ] || fail "line $i: verdict $verdict, ratio $r target $t"
  [ "$verdict" = ok ] && ok=$((ok + 1)) || short=$((short + 1))
done <"$out"
last=$(tail -n 1 "$out")
[ "$last" = "$ok ok, $short short" ] || fail "last line '$last', counted $ok ok, $short short"

# Every target is present (ml_dtypes lines only where ml_dtypes imports; else a
# note must say why they were skipped).
for want in '^f32_to_bf16_rne ' '^f32_to_f16_rne ' '^f32_to_e4m3_satfinite ' '^f32_to_e4m3_none ' \
            '^f32_to_e5m2_satfinite ' '^f32_to_e5m2_none ' '^f32_to_e2m1 ' '^stream_' \
            '^f16_add_sweep_2\^32' '^mma_hopper_e4m3_per_core ' '^mma_ampere_f16_per_core ' \
            '^exact_dot_'; do
  grep -q "$want" "$out" || fail "no line for $want"
done
if grep -q 'baseline=ml_dtypes' "$out"; then :; else
  grep -q 'ml_dtypes baselines skipped' "$err" || fail "no ml_dtypes lines and no note saying why"
fi
grep -q 'peak RSS' "$err" || fail "no peak RSS note"
grep -q 'extrapolated' "$out" || fail "the smoke sweep is a slice: its line must say extrapolated"
echo "bench output: $((n - 1)) lines, $last"
