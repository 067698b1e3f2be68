#!/usr/bin/env bash
# Resumable sweeps end to end: `fpconform sweep` killed midway (kill -9, SIGINT, SIGTERM) and
# continued with --resume writes byte for byte what an uninterrupted run writes; an interrupted
# run leaves no output file (and prints nothing on stdout); a checkpoint that is damaged, not a
# checkpoint, from another command or from other arguments is refused (exit 2, naming the file).
# The sweep is sized (f16 -> e4m3, every code, 36 configurations: about a second) so that
# "midway" is reached by polling the checkpoint, with no throttle.
# Usage: sweep_resume_test.sh path/to/fpconform
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh" "$@"
cd "$tmp" || exit 2

sweep=(sweep --from f16 --to e4m3 --modes deterministic --sat all --subnormal ftz)
total=65536
ref=ref.txt

# The expected output: an uninterrupted run (also what a resumed run must reproduce).
"$bin" "${sweep[@]}" --threads 2 -o ref.txt 2>ref.err
rc=$?
check "uninterrupted run exits 0 (got $rc: $(cat ref.err))" '[[ $rc -eq 0 ]]'
check "uninterrupted run wrote its output" '[[ -s ref.txt ]] && grep -q "^cases: 2359296$" ref.txt'
check "a finished run removes its checkpoint" '[[ ! -e ref.txt.checkpoint ]]'
"$bin" "${sweep[@]}" --threads 1 >stdout.txt 2>/dev/null
check "stdout equals the -o file" 'cmp -s stdout.txt ref.txt'

# done D from a checkpoint file (empty when there is none).
done_of() { sed -n 's/^done \([0-9]*\)$/\1/p' "$1" 2>/dev/null; }

# Starts the sweep writing NAME.txt in the background, waits until its checkpoint shows
# progress, and sends SIGNAL. Sets rc to the exit status.
interrupt() {  # NAME SIGNAL THREADS
  local name=$1 sig=$2 threads=$3 pid d=""
  "$bin" "${sweep[@]}" --threads "$threads" -o "$name.txt" --checkpoint-every 0 \
    >"$name.out" 2>"$name.err" &
  pid=$!
  for _ in $(seq 1 600); do
    d=$(done_of "$name.txt.checkpoint")
    [[ -n "$d" && "$d" -gt 0 ]] && break
    sleep 0.01
  done
  if ! kill -s "$sig" "$pid" 2>/dev/null; then
    bad "$name: the sweep finished before it could be interrupted (make it larger)"
  fi
  wait "$pid" 2>/dev/null  # (bash reports a killed job on stderr)
  rc=$?
}

# Resumes NAME with THREADS and compares with the uninterrupted output.
resume() {  # NAME THREADS
  local name=$1 threads=$2 at rc2
  check "$name: no output file after the interruption" '[[ ! -e $name.txt ]]'
  check "$name: nothing on stdout after the interruption" '[[ ! -s $name.out ]]'
  check "$name: checkpoint left" '[[ -s $name.txt.checkpoint ]]'
  cp "$name.txt.checkpoint" "$name.saved"
  "$bin" "${sweep[@]}" --threads "$threads" -o "$name.txt" --resume 2>"$name.err2"
  rc2=$?
  at=$(sed -n 's/.*resuming at input \([0-9]*\) of.*/\1/p' "$name.err2")
  check "$name: resume exits 0 (got $rc2: $(cat "$name.err2"))" '[[ $rc2 -eq 0 ]]'
  check "$name: resumed midway (at [$at] of $total)" '[[ -n "$at" && $at -gt 0 && $at -lt $total ]]'
  check "$name: resumed output equals the uninterrupted one" 'cmp -s "$name.txt" "$ref"'
  check "$name: checkpoint removed once done" '[[ ! -e $name.txt.checkpoint ]]'
}

interrupt kill9 KILL 2
check "kill -9: killed (status $rc)" '[[ $rc -eq 137 ]]'
resume kill9 3

interrupt sigint INT 2
check "SIGINT: exit 130 (got $rc)" '[[ $rc -eq 130 ]]'
check "SIGINT: says so" 'grep -q "interrupted by SIGINT after [0-9]* of $total inputs; progress saved to sigint.txt.checkpoint" sigint.err'
resume sigint 1

interrupt sigterm TERM 1
check "SIGTERM: exit 143 (got $rc)" '[[ $rc -eq 143 ]]'
check "SIGTERM: says so" 'grep -q "interrupted by SIGTERM" sigterm.err'
resume sigterm 7

# An operation sweep (apply_op against the MPFR oracle over operand pairs) on the same engine:
# kill -9 and SIGTERM midway, resumed with another thread count.
sweep_conv=("${sweep[@]}")
sweep=(sweep --op mul --format bf16 --inputs 3000000 --modes rne,rtz --subnormal plain)
total=3000000
ref=op_ref.txt
"$bin" "${sweep[@]}" --threads 2 -o op_ref.txt 2>op_ref.err
rc=$?
check "operation sweep: uninterrupted run exits 0 (got $rc: $(cat op_ref.err))" '[[ $rc -eq 0 ]]'
check "operation sweep: its output" 'grep -q "^sweep mul bf16 against the MPFR oracle$" op_ref.txt && grep -q "^cases: 18000000$" op_ref.txt && grep -q "^mismatches: 0$" op_ref.txt'
interrupt op_kill9 KILL 2
check "operation sweep, kill -9: killed (status $rc)" '[[ $rc -eq 137 ]]'
resume op_kill9 1
interrupt op_sigterm TERM 1
check "operation sweep, SIGTERM: exit 143 (got $rc)" '[[ $rc -eq 143 ]]'
resume op_sigterm 3
sweep=("${sweep_conv[@]}")
total=65536
ref=ref.txt

# Checkpoints that must be refused: exit 2, the file named, nothing on stdout, no output file.
refuse() {  # NAME WANT_SUBSTRING CHECKPOINT_FILE [EXTRA ARGS...]
  local name=$1 want=$2 file=$3 out rc3
  shift 3
  cp "$file" bad.checkpoint
  out=$("$bin" "${sweep[@]}" -o bad.txt --checkpoint bad.checkpoint --resume "$@" 2>bad.err)
  rc3=$?
  check "$name: exit 2 (got $rc3: $(cat bad.err))" '[[ $rc3 -eq 2 ]]'
  check "$name: message [$want] (got: $(cat bad.err))" 'grep -qF -- "$want" bad.err'
  check "$name: nothing on stdout" '[[ -z "$out" ]]'
  check "$name: no output file" '[[ ! -e bad.txt ]]'
}
printf 'garbage\n' >garbage
refuse "not a checkpoint" "bad.checkpoint:1: not an fpconform checkpoint" garbage
head -c 200 sigint.saved >truncated
refuse "truncated checkpoint" "bad.checkpoint: damaged checkpoint" truncated
sed 's/^done \([0-9]*\)$/done 1\1/' sigint.saved >edited
refuse "edited checkpoint" "bad.checkpoint: damaged checkpoint" edited
# The same state with a valid checksum but another command, or another run's arguments.
python3 - sigint.saved <<'PY'
import sys
body = open(sys.argv[1]).read()
body = body[: body.rindex("checksum ")]
def fnv(s):
    h = 0xcbf29ce484222325
    for b in s.encode():
        h = ((h ^ b) * 0x100000001b3) % 2**64
    return h
def save(name, text):
    open(name, "w").write(text + "checksum %016x\n" % fnv(text))
save("other-command", body.replace("\ncommand sweep\n", "\ncommand probe\n"))
save("other-args", body.replace(" to=e4m3 ", " to=e5m2 "))
PY
refuse "checkpoint of another command" "bad.checkpoint:2: a checkpoint of 'fpconform probe', not of 'fpconform sweep'" other-command
refuse "checkpoint of other arguments" "bad.checkpoint:3: a checkpoint of a run with other arguments" other-args
refuse "same file, other arguments" "bad.checkpoint:3: a checkpoint of a run with other arguments" sigint.saved --inputs 1000
# An existing checkpoint is never overwritten by a run without --resume.
cp sigint.saved keep.checkpoint
out=$("$bin" "${sweep[@]}" --checkpoint keep.checkpoint 2>keep.err)
rc=$?
check "existing checkpoint without --resume: exit 2" '[[ $rc -eq 2 && -z "$out" ]]'
check "existing checkpoint without --resume: message" 'grep -q "keep.checkpoint.* exists" keep.err'
check "existing checkpoint without --resume: kept" 'cmp -s keep.checkpoint sigint.saved'
"$bin" "${sweep[@]}" --resume >/dev/null 2>noarg.err
rc=$?
check "--resume without a checkpoint path: exit 2" '[[ $rc -eq 2 ]] && grep -q -- "--resume: needs --checkpoint" noarg.err'

# Bad arguments: exit 2, the argument named, nothing on stdout.
bad_arg() {  # WANT_SUBSTRING ARGS...
  local want=$1 out rc4
  shift
  out=$("$bin" sweep "$@" 2>arg.err)
  rc4=$?
  check "sweep $* : exit 2 naming [$want] (got $rc4: $(cat arg.err))" \
    '[[ $rc4 -eq 2 && -z "$out" ]] && grep -qF -- "$want" arg.err'
}
bad_arg "--modes: " --from f16 --to e4m3 --modes rne,bogus
bad_arg "--sat: " --from f16 --to e4m3 --sat clamp
bad_arg "--subnormal: 'x' is not one of" --from f16 --to e4m3 --subnormal x
bad_arg "--inputs: 'ten' is neither" --from f16 --to e4m3 --inputs ten
bad_arg "--inputs: 0 inputs" --from f16 --to e4m3 --inputs 0
bad_arg "--from: f64 has 64-bit codes" --from f64 --to e4m3
bad_arg "--to: " --from f16 --to nosuch
bad_arg "--op: 'fma' is not an operation (add, sub, mul" --op fma --format f16
bad_arg "--format: add on f32 takes 2 operands of 32 bits" --op add --format f32
bad_arg "--format: missing" --op add
bad_arg "--to: missing" --from f16
bad_arg "not both" --op add --format f16 --from f16 --to e4m3
bad_arg "give --from and --to (a conversion) or --op and --format" --inputs 10
mkdir -p dir.d
bad_arg "--checkpoint: 'dir.d' is not a regular file (a directory)" --from e2m1 --to e4m3 --checkpoint dir.d --resume

finish "sweep resume"
