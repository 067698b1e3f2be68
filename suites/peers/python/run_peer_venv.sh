#!/bin/sh
# run_peer_venv.sh PYTHON VENV ML_DTYPES_VERSION COMPARE DIR: check a release of ml_dtypes other
# than the pinned one against the profile that models it, in a private venv (created with
# PYTHON -m venv, ml_dtypes==ML_DTYPES_VERSION and the numpy that tools/install-deps.sh pins).
# The venv is kept and reused while it holds those versions. Exit 77 (CTest SKIP) with the
# reason when the venv cannot be made (no venv module, no network or PyPI).
py="$1"; venv="$2"; ml_version="$3"; cmp="$4"; dir="$5"
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
numpy_version=$(sed -n 's/^NUMPY_PIN=//p' "$root/tools/install-deps.sh")
if [ -z "$numpy_version" ]; then
  echo "run_peer_venv.sh: no NUMPY_PIN= line in $root/tools/install-deps.sh" >&2
  exit 2
fi
want="$numpy_version $ml_version"
have=$("$venv/bin/python" -c "import numpy, ml_dtypes; print(numpy.__version__, ml_dtypes.__version__)" 2>/dev/null)
if [ "$have" != "$want" ]; then
  rm -rf "$venv"
  if ! log=$("$py" -m venv "$venv" 2>&1); then
    echo "SKIPPED: cannot create a venv with $py -m venv: $(echo "$log" | tail -1)"
    rm -rf "$venv"
    exit 77
  fi
  if ! log=$("$venv/bin/python" -m pip install -q --disable-pip-version-check \
               "numpy==$numpy_version" "ml_dtypes==$ml_version" 2>&1); then
    echo "SKIPPED: cannot pip install numpy==$numpy_version ml_dtypes==$ml_version into" \
         "$venv: $(echo "$log" | tail -1)"
    rm -rf "$venv"
    exit 77
  fi
fi
echo "venv $venv: numpy $numpy_version, ml_dtypes $ml_version"
exec sh "$here/run_peer.sh" "$venv/bin/python" ml_dtypes "$cmp" "$dir"
