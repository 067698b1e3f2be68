# Shared by the CLI test scripts. Source it first, with the script's arguments:
#   source "$(dirname "${BASH_SOURCE[0]}")/lib.sh" "$@"
# It sets bin (the fpconform binary, the first argument, as an absolute path) and tmp (a
# scratch directory, removed on exit), and defines
#   ok / bad MESSAGE             count a passed / failed check (bad prints FAIL: MESSAGE)
#   check NAME CONDITION         ok when `eval CONDITION` succeeds, else bad NAME
#   expect NAME RC SUBSTRING -- ARGS...
#                                runs "$bin" ARGS (stdin from $input, default /dev/null) and
#                                wants exit status RC and SUBSTRING in stdout + stderr
#   finish NAME                  prints "NAME: P passed, F failed" and exits 0 only if F = 0
set -u
bin=$(realpath "${1:?usage: $(basename "$0") path/to/fpconform [...]}")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0
fail=0
input=/dev/null
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }
check() { if eval "$2"; then ok; else bad "$1"; fi; }
expect() {
  local name=$1 rc_want=$2 want=$3
  shift 4
  local got rc
  got=$("$bin" "$@" <"$input" 2>&1)
  rc=$?
  if [[ $rc -ne $rc_want ]]; then bad "$name: exit $rc, want $rc_want ($got)"
  elif [[ "$got" != *"$want"* ]]; then bad "$name: output lacks [$want]: $got"
  else ok; fi
}
finish() {
  echo "$1: $pass passed, $fail failed"
  exit $((fail == 0 ? 0 : 1))
}
