#!/usr/bin/env bash
# Resumable characterizations end to end: `fpconform probe --checkpoint J` killed midway
# (kill -9, SIGINT, SIGTERM) and continued with --resume prints what an uninterrupted run prints
# (the elapsed time aside); a torn last record is dropped; a damaged journal, or one of another
# command or other arguments, is refused (exit 2, naming the file). Sized by --cases (about a
# second on emu:hopper) so that "midway" is reached by polling the journal, with no throttle.
# Usage: probe_resume_test.sh path/to/fpconform
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh" "$@"
cd "$tmp" || exit 2

probe=(probe --target emu:hopper --in e4m3 --out f32 --cases 20000 --seed 4)
untimed() { sed -E 's/^([0-9]+ queries), [0-9.]+ s$/\1, <time> s/' "$1"; }
answers() { grep -c '^answer ' "$1" 2>/dev/null || true; }

"$bin" "${probe[@]}" >ref.raw 2>/dev/null
rc=$?
check "uninterrupted probe exits 0 (got $rc)" '[[ $rc -eq 0 ]]'
untimed ref.raw >ref.txt
check "uninterrupted output ends with the model line" 'tail -1 ref.txt | grep -q "^model [a-z]*(.*) agrees on 20000/20000 cases$"'
"$bin" "${probe[@]}" --checkpoint same.j >same.raw 2>/dev/null
untimed same.raw >same.txt
check "journaling changes nothing" 'cmp -s same.txt ref.txt'
check "a finished run removes its journal" '[[ ! -e same.j ]]'

interrupt() {  # NAME SIGNAL: start, wait for a few journaled answers, send SIGNAL; sets rc
  local name=$1 sig=$2 pid
  "$bin" "${probe[@]}" --checkpoint "$name.j" >"$name.out" 2>"$name.err" &
  pid=$!
  for _ in $(seq 1 1000); do
    [[ $(answers "$name.j") -ge 5 ]] && break
    sleep 0.01
  done
  kill -s "$sig" "$pid" 2>/dev/null || bad "$name: the probe finished before it could be interrupted"
  wait "$pid" 2>/dev/null
  rc=$?
}
resume() {  # NAME
  local name=$1 n rc2
  check "$name: nothing on stdout after the interruption ($(head -2 "$name.out"))" '[[ ! -s $name.out ]]'
  n=$(answers "$name.j")
  cp "$name.j" "$name.saved"
  "$bin" "${probe[@]}" --checkpoint "$name.j" --resume >"$name.raw" 2>"$name.err2"
  rc2=$?
  untimed "$name.raw" >"$name.txt"
  check "$name: resume exits 0 (got $rc2: $(tail -2 "$name.err2"))" '[[ $rc2 -eq 0 ]]'
  check "$name: resumed from a partial journal ($n answers)" 'grep -q "resuming: $n answers journaled" $name.err2 && [[ $n -gt 0 ]]'
  check "$name: resumed output equals the uninterrupted one" 'cmp -s "$name.txt" ref.txt'
  check "$name: journal removed once done" '[[ ! -e $name.j ]]'
}

interrupt kill9 KILL
check "kill -9: killed (status $rc)" '[[ $rc -eq 137 ]]'
resume kill9
interrupt sigint INT
check "SIGINT: exit 130 (got $rc)" '[[ $rc -eq 130 ]]'
check "SIGINT: says so" 'grep -q "interrupted by SIGINT after [0-9]* batches of queries; progress saved to sigint.j" sigint.err'
resume sigint
interrupt sigterm TERM
check "SIGTERM: exit 143 (got $rc)" '[[ $rc -eq 143 ]]'
resume sigterm

# A torn last record (a kill -9 during the append) is dropped, and the run still matches.
{ cat sigint.saved; printf 'answer 0123456789abcdef 3 1 2'; } >torn.j
"$bin" "${probe[@]}" --checkpoint torn.j --resume >torn.raw 2>torn.err
untimed torn.raw >torn.txt
check "torn last record: resumed output equals the uninterrupted one" 'cmp -s torn.txt ref.txt'

refuse() {  # NAME WANT FILE [EXTRA ARGS]
  local name=$1 want=$2 file=$3 out rc3
  shift 3
  cp "$file" bad.j
  out=$("$bin" "${probe[@]}" --checkpoint bad.j --resume "$@" 2>bad.err)
  rc3=$?
  check "$name: exit 2 (got $rc3: $(tail -1 bad.err))" '[[ $rc3 -eq 2 ]]'
  check "$name: message [$want] (got: $(tail -1 bad.err))" 'grep -qF -- "$want" bad.err'
  check "$name: nothing on stdout" '[[ -z "$out" ]]'
}
printf 'garbage\n' >garbage
refuse "not a checkpoint" "bad.j:1: not an fpconform checkpoint" garbage
sed '5s/^answer \(.\)/answer X/' sigint.saved >damaged
refuse "damaged record" "bad.j:5: damaged checkpoint" damaged
refuse "other arguments" "bad.j:3: a checkpoint of a run with other arguments" sigint.saved --max-k 96
printf 'fpconform-checkpoint 1\ncommand sweep\nargs x\n' >sweepish
refuse "checkpoint of another command" "bad.j:2: a checkpoint of 'fpconform sweep', not of 'fpconform probe'" sweepish
cp sigint.saved keep.j
out=$("$bin" "${probe[@]}" --checkpoint keep.j 2>keep.err)
rc=$?
check "existing journal without --resume: exit 2, kept" '[[ $rc -eq 2 && -z "$out" ]] && cmp -s keep.j sigint.saved && grep -q "keep.j.* exists" keep.err'

finish "probe resume"
