#!/usr/bin/env bash
# Runs every row of README.md's "## Hostile inputs" table:
#   | what | `command` | exit | `stderr contains` |
# each command with `bash -c` in a fresh scratch directory, with fpconform first on PATH and
# $DATA the fixtures folder (tools/fpconform/tests/data), and checks its exit status and that
# its stderr contains the text (an empty cell: no check). A `|` inside a cell is written `\|`.
# Fails naming each row whose expectation fails, and when the table is missing or empty.
# Usage: hostile_inputs_readme_test.sh path/to/fpconform path/to/README.md path/to/data
set -u
bin=$(realpath "${1:?usage: hostile_inputs_readme_test.sh fpconform README.md data-dir}")
readme=${2:?usage: hostile_inputs_readme_test.sh fpconform README.md data-dir}
DATA=$(realpath "${3:?usage: hostile_inputs_readme_test.sh fpconform README.md data-dir}")
export DATA
export PATH="$(dirname "$bin"):$PATH"
root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT

# The cell without its surrounding spaces and backticks, \| back to |.
cell() {
  local s=$1
  s=${s#"${s%%[![:space:]]*}"}
  s=${s%"${s##*[![:space:]]}"}
  if [[ $s == \`*\` && ${#s} -ge 2 ]]; then s=${s:1:${#s}-2}; fi
  printf '%s' "${s//$'\x01'/|}"
}

pass=0 fail=0 rows=0 in_section=0 line_no=0
while IFS= read -r line || [[ -n $line ]]; do
  line_no=$((line_no + 1))
  if [[ $line == "## "* ]]; then
    [[ $line == "## Hostile inputs" ]] && in_section=1 || in_section=0
    continue
  fi
  ((in_section)) || continue
  [[ $line == "|"* ]] || continue
  row=${line//\\|/$'\x01'}             # escaped bars are not cell boundaries
  IFS='|' read -r -a cells <<<"${row#|}"
  [[ ${#cells[@]} -ge 4 ]] || { echo "FAIL: $(basename "$readme"):$line_no: a row of fewer than 4 cells: $line"; fail=$((fail + 1)); continue; }
  what=$(cell "${cells[0]}") cmd=$(cell "${cells[1]}") want_rc=$(cell "${cells[2]}") want_err=$(cell "${cells[3]}")
  [[ $what == "what" || $what =~ ^-+$ || $what =~ ^:?-+:?$ ]] && continue   # header, separator
  rows=$((rows + 1))
  dir="$root/row$rows"
  mkdir -p "$dir"
  (cd "$dir" && bash -c "$cmd" >"$root/out$rows" 2>"$root/err$rows" </dev/null)
  rc=$?
  err=$(cat "$root/err$rows")
  if [[ ! $want_rc =~ ^[0-9]+$ ]]; then
    echo "FAIL: $(basename "$readme"):$line_no ($what): the exit cell '$want_rc' is not a number"; fail=$((fail + 1))
  elif [[ $rc -ne $want_rc ]]; then
    echo "FAIL: $(basename "$readme"):$line_no ($what): exit $rc, want $want_rc"
    echo "  command: $cmd"; echo "  stderr: $err"; fail=$((fail + 1))
  elif [[ -n $want_err && $err != *"$want_err"* ]]; then
    echo "FAIL: $(basename "$readme"):$line_no ($what): stderr lacks [$want_err]"
    echo "  command: $cmd"; echo "  stderr: $err"; fail=$((fail + 1))
  else
    pass=$((pass + 1))
  fi
  # No row may take the machine's device nodes with it.
  if [[ ! -c /dev/null || ! -c /dev/full ]]; then
    echo "FAIL: $(basename "$readme"):$line_no ($what): /dev/null or /dev/full is no longer a character device"
    exit 1
  fi
done <"$readme"
if ((rows == 0)); then echo "FAIL: no rows in the '## Hostile inputs' table of $readme"; exit 1; fi
echo "hostile inputs (README.md): $pass passed, $fail failed, of $rows rows"
((fail == 0))
