#!/usr/bin/env bash
# A failing check is a finding of the report, not a failed command: `fpconform report` exits 0
# once the report is written, its header naming each failing section and why, and the section
# saying it too; --strict exits 1 for the same report (still written). The failing section here
# is `devices`, given a recorded profile whose model disagrees on 3 of its cases (no test-only
# hook: a real finding); --sections keeps the run to that section, the others listed as not run.
# Also: --sections / --skip-section refuse unknown ids (exit 2), and the checkpoint of a run
# belongs to its selection of sections.
# Usage: report_findings_test.sh path/to/fpconform
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh" "$@"
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)
cd "$tmp" || exit 2

mkdir -p good bad
cp "$root/reports/devices/amd-epyc-cpu/cpu-fp32-fma.f32-f32.json" good/fma.json
cp good/fma.json bad/fma.json
# A profile that itself says no model reproduces its unit claims nothing to check: not a failure.
cp "$root/reports/devices/amd-epyc-cpu/numpy-matmul-f32.position-6x8.json" good/no-model.json
python3 - <<'PY'
import json
d = json.load(open("good/fma.json"))
d["validation"]["agreed"] = d["validation"]["cases"] - 3
json.dump(d, open("bad/wrong.json", "w"))
PY
cases=$(python3 -c 'import json; print(json.load(open("good/fma.json"))["validation"]["cases"])')
header() { python3 -c 'import json, sys; print("\n".join(json.load(open(sys.argv[1]))["header"]))' "$1" 2>/dev/null; }

# A failing section: exit 0, the finding named in the header, the section, stdout.
"$bin" report --sections devices --devices bad --out r1 >r1.out 2>r1.err
rc=$?
check "a report with a failing section exits 0 (got $rc: $(tail -3 r1.err))" '[[ $rc -eq 0 ]]'
check "the report is written" '[[ -s r1/index.html && -s r1/results.json && -s r1/report.md ]]'
reason="wrong.json: model chain() | out(rne, nan=x86) agrees on $((cases - 3)) of $cases recorded cases"
check "the header counts the failing section" 'header r1/results.json | grep -qx "1 section reports failures; not run: conversions, arithmetic, ecosystem, scale-rules, accumulation, tolerances, matrix-units"'
check "the header names the section and the reason" 'header r1/results.json | grep -qxF "FAILED devices (Device profiles): $reason"'
check "results.json: the section's failure" '[[ "$(python3 -c "import json; s = [s for s in json.load(open(\"r1/results.json\"))[\"sections\"] if s[\"id\"] == \"devices\"][0]; print(s[\"ok\"], s[\"failure\"])")" == "False $reason" ]]'
check "index.html: the header and the section say why" '[[ $(grep -cF "$reason" r1/index.html) -ge 2 ]] && grep -q "Device profiles (FAILED)" r1/index.html'
check "report.md: the section says why" 'grep -qF "**Failed:** $reason" r1/report.md'
check "stdout names the failure" 'grep -q "^Device profiles  *FAILED" r1.out && grep -qF "  $reason" r1.out && grep -q "1 section reports failures (a finding of the report; --strict exits 1)" r1.out'
check "the sections not run are listed as such" '[[ $(grep -c " not run$" r1.out) -eq 7 ]] && grep -q "Conversions: emu against the MPFR oracle (not run)" r1/report.md'

# --strict: the same report, exit 1.
"$bin" report --sections devices --devices bad --out r2 --strict >r2.out 2>r2.err
rc=$?
check "--strict exits 1 when a section fails (got $rc)" '[[ $rc -eq 1 ]]'
check "--strict still writes the report" '[[ -s r2/index.html ]] && header r2/results.json | grep -qxF "FAILED devices (Device profiles): $reason"'
check "--strict says why it exits 1" 'grep -q "(--strict: exit 1)" r2.out'

# Nothing failing: --strict exits 0, and the header does not claim checks that did not run.
"$bin" report --sections devices --devices good --out r3 --strict >r3.out 2>r3.err
rc=$?
check "--strict exits 0 when every section that ran passed (got $rc: $(tail -3 r3.err))" '[[ $rc -eq 0 ]]'
check "a unit with no model is tabulated as such" 'grep -qF "none (best: products(flush, flush_positive) \| chain()" r3/report.md'
check "the header says which sections did not run" 'header r3/results.json | grep -qx "every check that ran passed; not run: conversions, arithmetic, ecosystem, scale-rules, accumulation, tolerances, matrix-units"'

# --skip-section: the same selection as --sections devices here, said as such.
"$bin" report --skip-section conversions,arithmetic,ecosystem --skip-section scale-rules,accumulation,tolerances,matrix-units \
  --devices good --out r4 >r4.out 2>r4.err
rc=$?
check "--skip-section runs the others (got $rc)" '[[ $rc -eq 0 ]] && grep -q "^Device profiles  *ok" r4.out'
check "a skipped section says so" 'grep -q "Not run: skipped with --skip-section" r4/report.md'

expect "--help tells the exit status" 0 "1 with --strict when a section reports failures" -- report --help
expect "--sections refuses an unknown id" 2 "no section 'cpu' (the sections: conversions, arithmetic," -- report --sections cpu --out r5
expect "--skip-section refuses an unknown id" 2 "--skip-section" -- report --skip-section devices,nope --out r5
# A checkpoint belongs to its selection. A run whose index.html cannot be written (a directory
# there) fails after every section and keeps them all in its checkpoint.
mkdir -p r6/index.html
"$bin" report --sections devices --devices good --out r6 >/dev/null 2>r6.err
rc=$?
check "an unwritable index.html fails the run (exit $rc) and keeps the checkpoint" '[[ $rc -eq 2 && -s r6/.report.checkpoint ]]'
rmdir r6/index.html
expect "resuming with other sections is refused" 2 "r6/.report.checkpoint" -- report --sections devices,conversions --devices good --out r6 --resume
expect "resuming without the selection is refused" 2 "r6/.report.checkpoint" -- report --devices good --out r6 --resume
expect "resuming with the same selection keeps every section" 0 "resuming: 8 finished sections kept" -- report --sections devices --devices good --out r6 --resume

finish report_findings_test
