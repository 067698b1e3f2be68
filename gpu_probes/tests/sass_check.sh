#!/usr/bin/env bash
# Checks the SASS of each GPU probe kernel object against sass_expectations.txt.
# usage: sass_check.sh CUOBJDUMP EXPECTATIONS "80,89,90a,..." OBJECT[;OBJECT...]...
# Exit 0 all met, 1 some not, 77 (skip) when no cuobjdump is available.
set -u
cuobjdump=$1 expectations=$2 archs=",$3,"
shift 3
objects=$(printf '%s;' "$@" | tr ';' '\n' | grep -v '^$')
if [[ -z "$cuobjdump" || "$cuobjdump" == *NOTFOUND* || ! -x "$cuobjdump" ]]; then
  echo "SKIP: no cuobjdump (tools/install-deps.sh installs it from PyPI into .deps/cuda-tools where the CUDA toolkit lacks it)"
  exit 77
fi
export PATH="$(dirname "$cuobjdump"):$PATH"  # cuobjdump -sass runs nvdisasm
failures=0 checked=0
declare -A dumps
while read -r arch object regex; do
  [[ -z "$arch" || "$arch" == \#* ]] && continue
  if [[ "$archs" != *",${arch#sm_},"* ]]; then
    echo "not built: $arch ($object $regex)"
    continue
  fi
  obj=$(grep -E "/${object}\.cu\.o$" <<<"$objects" | head -1)
  if [[ -z "$obj" ]]; then
    echo "FAIL: no object for kernels/$object.cu"; failures=$((failures + 1)); continue
  fi
  key="$arch:$obj"
  if [[ -z "${dumps[$key]+x}" ]]; then
    dumps[$key]=$("$cuobjdump" -sass -arch "$arch" "$obj" 2>&1) || { echo "FAIL: cuobjdump $arch $obj: ${dumps[$key]}"; failures=$((failures + 1)); continue; }
  fi
  checked=$((checked + 1))
  if [[ "$regex" == !* ]]; then
    if grep -qE "${regex#!}" <<<"${dumps[$key]}"; then
      echo "FAIL: $arch $object has ${regex#!}, which it must not"; failures=$((failures + 1))
    else
      echo "ok:   $arch $object has no ${regex#!}"
    fi
  elif grep -qE "$regex" <<<"${dumps[$key]}"; then
    echo "ok:   $arch $object $regex"
  else
    echo "FAIL: $arch $object lacks $regex"; failures=$((failures + 1))
  fi
done <"$expectations"
echo "$checked expectations checked, $failures failed"
[[ $checked -gt 0 && $failures -eq 0 ]]
