#!/usr/bin/env bash
# The runner knows every catalog kernel: --list works without a GPU and marks none "[not built]".
set -u
runner=$1
out=$("$runner" --list) || { echo "FAIL: --list exited $?"; exit 1; }
kernels=$(tail -n +2 <<<"$out" | wc -l)
missing=$(grep -c 'not built' <<<"$out")
echo "$kernels kernels listed, $missing not built"
grep 'not built' <<<"$out"
[[ $kernels -ge 100 && $missing -eq 0 ]]
