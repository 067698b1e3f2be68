#!/bin/sh
# run_mx_peer.sh PYTHON LIBRARY COMPARE DIR [RANDOM_BLOCKS]: dump the library's MX quantization
# of crafted and random blocks (dump_mx_peers.py), then compare it with fpconform's rules
# (compare_mx_peers). Exit 77 (CTest SKIP) with the reason printed when the library is missing.
py="$1"; lib="$2"; cmp="$3"; dir="$4"; nrandom="${5:-1000000}"
here=$(dirname "$0")
mkdir -p "$(dirname "$dir")"
"$py" "$here/dump_mx_peers.py" --library "$lib" --out "$dir" --random-blocks "$nrandom" \
  > "$dir.log" 2>&1
rc=$?
grep -v "is an Enum subclass" "$dir.log"  # torch's deprecation chatter
rm -f "$dir.log"
if [ "$rc" -ne 0 ]; then rm -rf "$dir"; exit "$rc"; fi
"$cmp" "$dir"
rc=$?
rm -rf "$dir"
exit "$rc"
