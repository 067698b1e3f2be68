#!/bin/sh
# run_peer.sh PYTHON LIBRARY COMPARE DIR: dump the library's casts, then compare them with the
# profile that models the installed release (compare_peers LIBRARY@VERSION picks it; exit 77,
# CTest SKIP, with the reason when no profile models it). Exit 77 when the library is missing.
py="$1"; lib="$2"; cmp="$3"; dir="$4"
here=$(dirname "$0")
"$py" "$here/dump_peers.py" --library "$lib" --out "$dir"
rc=$?
if [ "$rc" -ne 0 ]; then exit "$rc"; fi
version=$(cat "$dir/version.txt") || exit 2
"$cmp" "$lib@$version" "$dir"
rc=$?
rm -rf "$dir"
exit "$rc"
