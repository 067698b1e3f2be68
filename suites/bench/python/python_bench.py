#!/usr/bin/env python3
"""The Python package against its baselines, in the line format of `fpconform bench`:

  <name> ours=<v> <unit> baseline=<name> <v> <unit> ratio=<ours/baseline speed> target=<t> ok|SHORT

convert and gemm from Python against the same C++ calls timed in C++ in this run (best of
--repeats each, back to back); emulated dot products per second against MMA-Sim where it imports
(skipped with a note on stderr where it does not). --smoke: tiny sizes, for the test of the form.
"""
from __future__ import annotations

import argparse
import sys
import time

import numpy as np

import fpconform
from fpconform._arrays import _c


def best(repeats, f):
    t = float("inf")
    for _ in range(repeats):
        t0 = time.perf_counter()
        f()
        t = min(t, time.perf_counter() - t0)
    return t


LINES = []


def line(name, ours, baseline_name, baseline, unit, target):
    ratio = ours / baseline if baseline > 0 else 0.0
    ok = float(f"{ratio:.4g}") >= float(f"{target:.4g}")
    LINES.append(ok)
    print(f"{name} ours={ours:.4g} {unit} baseline={baseline_name} {baseline:.4g} {unit} "
          f"ratio={ratio:.4g} target={target:.4g} {'ok' if ok else 'SHORT'}", flush=True)


def bench_convert(n, repeats):
    x = np.random.default_rng(1).standard_normal(n).astype(np.float32)
    for to in ("e4m3", "bf16"):
        # Interleaved rounds: the best of each finds the same quiet moments.
        py = cpp = float("inf")
        for _ in range(repeats):
            py = min(py, best(1, lambda: fpconform.convert(x, to=to)))
            cpp = min(cpp, _c.bench_convert_f32_seconds(x, to, 1))
        line(f"python_convert_{n}_f32_to_{to}", n / py, "cpp_F32Converter", n / cpp, "values/s",
             1 / 1.5)


def bench_gemm(m, k, n, repeats):
    import ml_dtypes
    rng = np.random.default_rng(2)
    a = rng.standard_normal((m, k)).astype(ml_dtypes.bfloat16)
    b = rng.standard_normal((k, n)).astype(ml_dtypes.bfloat16)
    ac = np.ascontiguousarray(a.view(np.uint16), dtype=np.uint64)
    bc = np.ascontiguousarray(b.view(np.uint16), dtype=np.uint64)
    py = cpp = float("inf")
    for _ in range(repeats):
        py = min(py, best(1, lambda: fpconform.gemm(a, b, model="hopper")))
        cpp = min(cpp, _c.bench_gemm_seconds(ac, bc, "hopper", "bf16", 1))
    macs = m * k * n
    line(f"python_gemm_hopper_bf16_{m}x{k}x{n}", macs / py, "cpp_gemm", macs / cpp, "MAC/s", 1 / 1.2)


def bench_mmasim(repeats, tiles):
    try:
        import torch
        from mmasim.nv_ptx import MMA
    except Exception as e:  # noqa: BLE001 - any reason it cannot run is the note
        print(f"note: mmasim_hopper_bf16 skipped: mmasim does not import here ({e})", file=sys.stderr)
        return
    import ml_dtypes
    mma = MMA("Hopper", "m16n8k16.f32.bf16.bf16.f32")
    A = torch.randn(16, 16, dtype=torch.bfloat16)
    B = torch.randn(16, 8, dtype=torch.bfloat16)
    C = torch.randn(16, 8, dtype=torch.float32)
    theirs = best(repeats, lambda: [mma(A, B, C) for _ in range(tiles)])
    theirs_rate = tiles * 16 * 8 / theirs
    rng = np.random.default_rng(3)
    m, n = 16 * tiles, 8 * 64
    a = rng.standard_normal((m, 16)).astype(ml_dtypes.bfloat16)
    b = rng.standard_normal((16, n)).astype(ml_dtypes.bfloat16)
    ours = best(repeats, lambda: fpconform.gemm(a, b, model="hopper"))
    line("python_dot16_hopper_bf16_vs_mmasim", m * n / ours, "mmasim_MMA_m16n8k16", theirs_rate,
         "dots/s", 10)


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--smoke", action="store_true", help="tiny sizes (the form, not the speed)")
    p.add_argument("--repeats", type=int, default=7)
    o = p.parse_args()
    if o.repeats < 1:
        p.error("--repeats: at least 1")
    if o.smoke:
        bench_convert(1000, 1)
        bench_gemm(8, 16, 8, 1)
        bench_mmasim(1, 2)
    else:
        bench_convert(10_000_000, o.repeats)
        bench_gemm(256, 1024, 256, o.repeats)
        bench_mmasim(o.repeats, 200)
    print(f"{sum(LINES)} ok, {len(LINES) - sum(LINES)} short")


if __name__ == "__main__":
    main()
