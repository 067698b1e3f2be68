#!/bin/sh
# run_peer.sh PYTHON LIBRARY COMPARE DIR: dump the library's casts, then compare them with the
# profile dump_peers.py names. Exit 77 (CTest SKIP) when the library is missing.
py="$1"; lib="$2"; cmp="$3"; dir="$4"
here=$(dirname "$0")
"$py" "$here/dump_peers.py" --library "$lib" --out "$dir"
rc=$?
if [ "$rc" -ne 0 ]; then exit "$rc"; fi
"$cmp" auto "$dir"
rc=$?
rm -rf "$dir"
exit "$rc"
