#!/usr/bin/env bash
# Resumable reports end to end: `fpconform report` keeps each finished section in
# OUT/.report.checkpoint; killed midway (kill -9, SIGTERM) and run again with --resume, it builds
# only the missing sections and writes the report an uninterrupted run writes (up to the time
# taken); a finished run removes the checkpoint; a damaged checkpoint, or one from other
# arguments, is refused with exit 2 naming the file; a plain rerun starts again, saying so.
# The CPU characterization (section matrix-units, up to a minute) runs twice: in the
# uninterrupted reference and in the resumed cut_KILL run compared with it; the other runs pass
# --skip-section matrix-units (the section kept as "not run", so the checkpoint still holds
# every section in order) and are compared with a reference that skips it too.
# Usage: report_resume_test.sh path/to/fpconform
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh" "$@"
cd "$tmp" || exit 2

# results.json without what says how long things took (the header's "took", "seconds" keys
# and table columns), which differs between any two runs.
untimed() { python3 -c '
import json, sys
def scrub(x):
    if isinstance(x, dict):
        return {k: scrub(v) for k, v in x.items() if k != "seconds"}
    if isinstance(x, list):
        return [scrub(v) for v in x]
    return x
d = json.load(open(sys.argv[1]))
d["header"] = [h for h in d["header"] if not h.startswith("took ")]
for s in d["sections"]:
    for t in s["tables"]:
        cols = [i for i, c in enumerate(t["columns"]) if c == "seconds"]
        t["rows"] = [[c for i, c in enumerate(r) if i not in cols] for r in t["rows"]]
print(json.dumps(scrub(d), sort_keys=True))' "$1"; }
sections_kept() { grep -c '^section ' "$1" 2>/dev/null || true; }

skip=(--skip-section matrix-units)
"$bin" report --out ref >ref.out 2>ref.err
rc=$?
check "uninterrupted report exits 0 (got $rc: $(tail -3 ref.err))" '[[ $rc -eq 0 ]]'
check "uninterrupted report wrote index.html and results.json" '[[ -s ref/index.html && -s ref/results.json ]]'
check "a finished report leaves no checkpoint" '[[ ! -e ref/.report.checkpoint ]]'
check "the reference characterized this machine's units" 'python3 -c "
import json, sys
s = [s for s in json.load(open(\"ref/results.json\"))[\"sections\"] if s[\"id\"] == \"matrix-units\"][0]
sys.exit(0 if not s[\"skipped\"] and len(s[\"results\"]) == 4 else 1)"'
"$bin" report --out ref_skip "${skip[@]}" >ref_skip.out 2>ref_skip.err
rc=$?
check "uninterrupted report without matrix-units exits 0 (got $rc: $(tail -3 ref_skip.err))" '[[ $rc -eq 0 ]]'
check "the section skipped is kept as not run" 'grep -q "not run: matrix-units" ref_skip/results.json && grep -q "^This machine.s units, characterized  *not run" ref_skip.out'

# Starts a report into NAME (with the further arguments), waits until its checkpoint keeps at
# least 2 sections, sends SIGNAL.
interrupt() {  # NAME SIGNAL [ARGS...]
  local name=$1 sig=$2 pid n=0
  shift 2
  "$bin" report --out "$name" "$@" >"$name.out" 2>"$name.err" &
  pid=$!
  for _ in $(seq 1 3000); do
    n=$(sections_kept "$name/.report.checkpoint")
    [[ ${n:-0} -ge 2 ]] && break
    sleep 0.02
  done
  kill -s "$sig" "$pid" 2>/dev/null || bad "$name: the report finished before it could be interrupted"
  wait "$pid" 2>/dev/null
  rc=$?
}

# (TERM, not INT: a non-interactive shell starts background jobs with SIGINT ignored.)
# cut_KILL resumes through matrix-units and is compared with ref; cut_TERM skips it (ref_skip).
for sig in KILL TERM; do
  name=cut_$sig
  if [[ $sig == KILL ]]; then args=() ref=ref; else args=("${skip[@]}") ref=ref_skip; fi
  interrupt "$name" "$sig" ${args[@]+"${args[@]}"}
  check "$name: the run was stopped (exit $rc)" '[[ $rc -ne 0 ]]'
  check "$name: no index.html after the interruption" '[[ ! -e $name/index.html ]]'
  kept=$(sections_kept "$name/.report.checkpoint")
  check "$name: the checkpoint keeps finished sections ($kept)" '[[ ${kept:-0} -ge 2 ]]'
  "$bin" report --out "$name" --resume ${args[@]+"${args[@]}"} >"$name.out2" 2>"$name.err2"
  rc=$?
  check "$name: the resumed run exits 0 (got $rc: $(tail -3 "$name.err2"))" '[[ $rc -eq 0 ]]'
  check "$name: the resumed run says what it kept" 'grep -q "resuming: $kept finished sections kept" "$name.err2"'
  check "$name: the header says the run was resumed" 'grep -q "resumed: $kept of 8 sections kept" "$name/results.json"'
  check "$name: results.json equals the uninterrupted one ($ref)" '[[ "$(untimed "$name/results.json")" == "$(untimed $ref/results.json)" ]]'
  check "$name: the same table files" '[[ "$(ls "$name/tables")" == "$(ls $ref/tables)" ]]'
  check "$name: checkpoint removed once written" '[[ ! -e $name/.report.checkpoint ]]'
  check "$name: the same summary on stdout" 'cmp -s <(sed "s|$name|OUT|" "$name.out2") <(sed "s|$ref|OUT|" $ref.out)'
done

# A plain rerun over an interrupted run starts again and says so.
interrupt again KILL "${skip[@]}"
"$bin" report --out again "${skip[@]}" >again.out2 2>again.err2
rc=$?
check "rerun without --resume exits 0" '[[ $rc -eq 0 ]]'
check "rerun without --resume says it starts again" 'grep -q "starting again" again.err2'
check "rerun without --resume rebuilt every section" '! grep -q "resumed:" again/results.json'

# --resume with nothing to resume: a whole run.
"$bin" report --out fresh --resume "${skip[@]}" >/dev/null 2>fresh.err
rc=$?
check "--resume without a checkpoint runs from the beginning" '[[ $rc -eq 0 ]] && grep -q "starting from the beginning" fresh.err'

# Refused checkpoints: exit 2, the file named, nothing written (another selection of sections:
# report_findings_test).
interrupt bad KILL "${skip[@]}"
cp bad/.report.checkpoint saved.checkpoint
expect "other arguments are refused" 2 "bad/.report.checkpoint" -- report --out bad --resume --seed 2 "${skip[@]}"
check "refused: no report written" '[[ ! -e bad/index.html ]]'
sed -i '3s/$/x/' bad/.report.checkpoint
expect "a damaged checkpoint is refused" 2 "bad/.report.checkpoint" -- report --out bad --resume "${skip[@]}"
# A well-formed checkpoint whose section is not a section (checksum recomputed by hand).
python3 - <<'PY'
import re
lines = open("saved.checkpoint").read().split("\n")
body = [l for l in lines if l and not l.startswith("checksum ")]
body = [l if not l.startswith("section ") else "section {\\x22id\\x22:3}" for l in body]
text = "\n".join(body) + "\n"
h = 0xcbf29ce484222325
for b in text.encode():
    h = ((h ^ b) * 0x100000001b3) & 0xffffffffffffffff
open("bad/.report.checkpoint", "w").write(text + "checksum %016x\n" % h)
PY
expect "a malformed section is refused by place" 2 "bad/.report.checkpoint:4" -- report --out bad --resume "${skip[@]}"

finish report_resume_test
