#!/usr/bin/env bash
# Installs what fpconform needs and is missing; quiet and quick when everything is there.
# Debian packages (apt-get) and Python peers (PyPI). Safe to run any number of times.
set -euo pipefail

need_apt=()
have_header() { [[ -e "/usr/include/$1" || -e "/usr/local/include/$1" ]]; }
have_header mpfr.h || need_apt+=(libmpfr-dev)
have_header gmp.h || have_header x86_64-linux-gnu/gmp.h || need_apt+=(libgmp-dev)
have_header boost/multiprecision/mpfr.hpp || need_apt+=(libboost-dev)
have_header libfccp/csv.h || need_apt+=(libfccp-dev)
have_header nlohmann/json.hpp || need_apt+=(nlohmann-json3-dev)
have_header CLI/CLI.hpp || need_apt+=(libcli11-dev)
have_header gtest/gtest.h || need_apt+=(libgtest-dev)
have_header benchmark/benchmark.h || need_apt+=(libbenchmark-dev)
# SIMDe: emulates the AVX-512 intrinsics, so the AVX-512 conversion tier is tested on any x86.
have_header simde/x86/avx512.h || need_apt+=(libsimde-dev)
command -v cmake >/dev/null || need_apt+=(cmake)
# clang and its compiler-rt (libFuzzer, ASan, UBSan) for `tools/run.sh fuzz`.
command -v clang++ >/dev/null || need_apt+=(clang)
compgen -G "/usr/lib/llvm-*/lib/clang/*/lib/linux/libclang_rt.fuzzer-*.a" >/dev/null ||
  need_apt+=(libclang-rt-dev)
command -v python3 >/dev/null || need_apt+=(python3 python3-pip)
# Chromium renders the HTML report in a test (report_render_test; skipped without it).
command -v chromium >/dev/null || need_apt+=(chromium)

if ((${#need_apt[@]})); then
  echo "fpconform: installing Debian packages: ${need_apt[*]}"
  export DEBIAN_FRONTEND=noninteractive
  SUDO=""; [[ $(id -u) -ne 0 ]] && SUDO="sudo"
  $SUDO apt-get update -qq >/dev/null
  $SUDO apt-get install -y -qq "${need_apt[@]}" >/dev/null
fi

# Python peers for cross-checks, pinned: peers_python_ml_dtypes checks the profile that models
# the installed ml_dtypes release bit for bit (emu/src/profile.cpp: `ml_dtypes` is 0.7.0,
# `ml_dtypes-0.6` is 0.6.0), and a new release can change what casts give (0.7 changed float64
# and e8m0 rounding); numpy does some of the casts itself (float16). Whatever PyPI serves next
# would make the test fail, or skip, until someone observes it and adds a profile. Change the
# pins together with the profile (and run the peer tests). Installed also when the version
# differs. A failure here is not fatal: the peer tests then skip with the reason printed.
ML_DTYPES_PIN=0.7.0
NUMPY_PIN=2.4.6
have_py=$(python3 -c "import numpy, ml_dtypes; print(numpy.__version__, ml_dtypes.__version__)" \
  2>/dev/null || true)
if [[ "$have_py" != "$NUMPY_PIN $ML_DTYPES_PIN" ]]; then
  echo "fpconform: installing Python peers numpy==$NUMPY_PIN ml_dtypes==$ML_DTYPES_PIN from PyPI" \
    "(found: ${have_py:-none})"
  python3 -m pip install -q --disable-pip-version-check "numpy==$NUMPY_PIN" \
    "ml_dtypes==$ML_DTYPES_PIN" >/dev/null 2>&1 ||
    echo "fpconform: warning: could not install numpy/ml_dtypes; their peer tests will skip"
fi

# The Python package's build and tests (tools/python): nanobind for the extension module, pytest
# to run its tests. Pinned so that a new release cannot change the build under a test. Without
# them the package is left out of the build and python_tests with it (CMake says so).
NANOBIND_PIN=2.9.2
PYTEST_PIN=9.2.0
have_pkg=$(python3 -c "import nanobind, pytest; print(nanobind.__version__, pytest.__version__)" \
  2>/dev/null || true)
if [[ "$have_pkg" != "$NANOBIND_PIN $PYTEST_PIN" ]]; then
  echo "fpconform: installing nanobind==$NANOBIND_PIN pytest==$PYTEST_PIN from PyPI (found: ${have_pkg:-none})"
  python3 -m pip install -q --disable-pip-version-check "nanobind==$NANOBIND_PIN" \
    "pytest==$PYTEST_PIN" >/dev/null 2>&1 ||
    echo "fpconform: warning: could not install nanobind/pytest; the Python package is left out"
fi

# cuobjdump and nvdisasm, for the test that reads the GPU probes' SASS (gpu_sass_expectations):
# where nvcc exists but its toolkit image lacks them, NVIDIA's PyPI wheels into .deps/cuda-tools
# (gpu_probes/cuda.cmake looks there). Not fatal: the test then skips with the reason.
CUDA_TOOLS_PIN=13.5.37  # one release of both tools, so the SASS the test reads does not drift
nvcc_bin=$(command -v nvcc || ls /usr/local/cuda/bin/nvcc 2>/dev/null || true)
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
if [[ -n "$nvcc_bin" && ! -x "$(dirname "$nvcc_bin")/cuobjdump" ]] && ! command -v cuobjdump >/dev/null &&
   [[ ! -x "$root/.deps/cuda-tools/nvidia/cu13/bin/cuobjdump" ]]; then
  echo "fpconform: installing cuobjdump/nvdisasm (PyPI wheels) into .deps/cuda-tools"
  python3 -m pip install -q --disable-pip-version-check --no-deps "nvidia-cuda-cuobjdump==$CUDA_TOOLS_PIN" \
    "nvidia-cuda-nvdisasm==$CUDA_TOOLS_PIN" --target "$root/.deps/cuda-tools" >/dev/null 2>&1 ||
    echo "fpconform: warning: could not install cuobjdump; the SASS test will skip"
fi
