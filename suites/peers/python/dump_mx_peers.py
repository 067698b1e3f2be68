#!/usr/bin/env python3
"""Dump what a Python library's own MX quantizer produces, for suites/peers/python/compare_mx_peers.

    dump_mx_peers.py --library torchao|microxcaling --out DIR [--random-blocks N]

Writes DIR/inputs.f32 (the fp32 blocks of 32 values, little-endian) and per case a line of
DIR/manifest.txt:
    <library-mode> <fpconform rule> <element format> <block> <blocks> <scales file> <codes file>
with one ue8m0 byte per block and one element code per byte (fp4 unpacked, low nibble first as
torchao packs them). Inputs, identical for every case:
  * crafted blocks, for every element format's grid: for each scale exponent k in [-127, 127]
    (and a few beyond, which the scale rules clamp), blocks whose first value fixes the block's
    amax at maxf * 2^k (or at 2^(emax + k), the OCP boundary) and whose other values run through
    every element value, every midpoint between neighbours and both of their fp32 neighbours
    (ties and near-ties), times 2^k, with both signs; amax at, just below and just above every
    power of two and every maxf * 2^k; all-zero blocks (+0, -0, mixed); blocks with NaN, +inf,
    -inf; blocks of fp32 subnormals;
  * N random blocks (default 10^6): normal, log-normal and log-uniform data over the whole fp32
    range, and blocks of random bit patterns.
Everything is deterministic (fixed seed). Exits 77 with the reason when the library is missing.
"""
import argparse
import os
import sys
import warnings

warnings.filterwarnings("ignore")

SKIP = 77
BLOCK = 32

try:
    import numpy as np
except ImportError as e:  # pragma: no cover
    print(f"SKIPPED: numpy is not installed ({e})")
    sys.exit(SKIP)

# fpconform element name -> (emax, maxf, every non-negative finite value, ascending)
def element_grid(ebits, mbits, bias, maxf):
    vals = set()
    for e in range(1 << ebits):
        for m in range(1 << mbits):
            if e == 0:
                v = m / (1 << mbits) * 2.0 ** (1 - bias)
            else:
                v = (1 + m / (1 << mbits)) * 2.0 ** (e - bias)
            if v <= maxf:
                vals.add(v)
    return sorted(vals)


ELEMENTS = {
    # name: (ebits, mbits, bias, maxf, emax)
    "e4m3": (4, 3, 7, 448.0, 8),
    "e5m2": (5, 2, 15, 57344.0, 15),
    "e2m3": (2, 3, 1, 7.5, 2),
    "e3m2": (3, 2, 3, 28.0, 4),
    "e2m1": (2, 1, 1, 6.0, 2),
}


def f32(x):
    return np.asarray(x, dtype=np.float32)


def nudge(v, d):
    """v (float32 array) moved by d fp32 ulps toward +inf (d > 0) or -inf, on the bit pattern
    of |v| (so d < 0 shrinks the magnitude)."""
    b = v.view(np.uint32).astype(np.int64)
    mag = b & 0x7FFFFFFF
    sign = b & 0x80000000
    mag = np.clip(mag + d, 0, 0x7F7FFFFF)
    return (sign | mag).astype(np.uint32).view(np.float32)


def crafted_blocks():
    """A list of float32 arrays of length BLOCK."""
    out = []
    rng = np.random.default_rng(20260601)
    for name, (ebits, mbits, bias, maxf, emax) in ELEMENTS.items():
        grid = np.array(element_grid(ebits, mbits, bias, maxf))
        mids = (grid[1:] + grid[:-1]) / 2
        base = f32(np.concatenate([grid, mids]))
        body = np.concatenate([base, nudge(base, 1), nudge(base, -1)])
        body = body[body > 0]
        for k in list(range(-127, 128, 1)) + [-140, -135, 130]:
            scale = 2.0 ** k
            if not (2.0 ** -149 <= maxf * scale < 2.0 ** 128):
                continue
            for lead in (maxf * scale, 2.0 ** (emax + k)):
                if not (2.0 ** -126 <= lead < 2.0 ** 128):
                    continue
                vals = f32(body * scale)
                vals = vals[np.isfinite(vals)]
                signs = np.where(rng.random(vals.size) < 0.5, -1.0, 1.0).astype(np.float32)
                vals = vals * signs
                for i in range(0, vals.size, BLOCK - 1):
                    chunk = vals[i:i + BLOCK - 1]
                    blk = np.zeros(BLOCK, dtype=np.float32)
                    blk[0] = lead
                    blk[1:1 + chunk.size] = chunk
                    out.append(blk)
    # amax at, just below, just above every power of two and every maxf * 2^k.
    for e in range(-126, 128):
        for lead in [2.0 ** e] + [m * 2.0 ** (e - x) for m, x in
                                 ((448.0, 8), (57344.0, 15), (7.5, 2), (28.0, 4), (6.0, 2))]:
            if not (2.0 ** -126 <= lead < 2.0 ** 128):
                continue
            for d in (-2, -1, 0, 1, 2):
                blk = f32(rng.standard_normal(BLOCK) * lead / 4)
                blk[rng.integers(BLOCK)] = nudge(f32([lead]), d)[0]
                out.append(np.clip(blk, -3.4e38, 3.4e38).astype(np.float32))
    # Zeros, specials, subnormals.
    out.append(np.zeros(BLOCK, dtype=np.float32))
    out.append(-np.zeros(BLOCK, dtype=np.float32))
    out.append(f32([0.0, -0.0] * (BLOCK // 2)))
    for special in (np.nan, np.inf, -np.inf):
        for lead in (1.0, 448.0, 2.0 ** -120, 2.0 ** 100):
            blk = f32(rng.standard_normal(BLOCK) * lead)
            blk[rng.integers(BLOCK)] = special
            out.append(blk)
    for _ in range(64):
        bits = rng.integers(1, 0x800000, BLOCK).astype(np.uint32)
        bits |= (rng.integers(0, 2, BLOCK).astype(np.uint32) << 31)
        out.append(bits.view(np.float32))
    return out


def random_blocks(n):
    rng = np.random.default_rng(7)
    styles = rng.integers(0, 4, n)
    scales = np.exp2(rng.uniform(-135, 120, n)).astype(np.float64)[:, None]
    x = np.empty((n, BLOCK), dtype=np.float64)
    s0 = styles == 0
    x[s0] = rng.standard_normal((s0.sum(), BLOCK)) * scales[s0]
    s1 = styles == 1
    x[s1] = rng.lognormal(0.0, 3.0, (s1.sum(), BLOCK)) * scales[s1]
    s2 = styles == 2
    x[s2] = np.exp2(rng.uniform(-40, 0, (s2.sum(), BLOCK))) * scales[s2]
    with np.errstate(over="ignore"):
        xf = x.astype(np.float32)
    xf = np.where(np.isfinite(xf), xf, np.float32(3.0e38))
    xf = xf * np.where(rng.random((n, BLOCK)) < 0.5, -1, 1).astype(np.float32)
    s3 = styles == 3
    xf[s3] = rng.integers(0, 2 ** 32, (s3.sum(), BLOCK), dtype=np.uint64).astype(np.uint32).view(np.float32)
    return xf.astype(np.float32)


def torchao_cases():
    try:
        import torch
    except Exception as e:  # ImportError, or OSError from a broken CUDA wheel
        print(f"SKIPPED: torch is not importable here ({type(e).__name__}: {e}); torchao's MX "
              "quantizer needs it (pip install torch torchao)")
        sys.exit(SKIP)
    try:
        import torchao
        from torchao.prototype.mx_formats import mx_tensor
        from torchao.prototype.mx_formats.config import ScaleCalculationMode
    except Exception as e:
        print(f"SKIPPED: torchao's MX quantizer is not importable ({type(e).__name__}: {e}); "
              "pip install torchao")
        sys.exit(SKIP)
    from torchao.prototype.mx_formats.constants import DTYPE_FP6_E2M3, DTYPE_FP6_E3M2
    dtypes = {"e4m3": torch.float8_e4m3fn, "e5m2": torch.float8_e5m2, "e2m3": DTYPE_FP6_E2M3,
              "e3m2": DTYPE_FP6_E3M2, "e2m1": torch.float4_e2m1fn_x2}
    modes = {"ocp": ScaleCalculationMode.FLOOR, "rceil": ScaleCalculationMode.RCEIL}
    version = f"torchao {torchao.__version__}, torch {torch.__version__}"

    def run(x, elem, rule):
        t = torch.from_numpy(x.reshape(-1, BLOCK).copy())
        scale, data = mx_tensor.to_mx(t, dtypes[elem], BLOCK, scaling_mode=modes[rule])
        scale = scale.view(torch.uint8).reshape(-1).numpy()
        if elem == "e2m1":
            packed = data.view(torch.uint8).reshape(-1).numpy()
            codes = np.empty(packed.size * 2, dtype=np.uint8)
            codes[0::2] = packed & 0xF
            codes[1::2] = packed >> 4
        else:
            codes = data.view(torch.uint8).reshape(-1).numpy()
        return scale, codes

    return version, run, [(f"torchao-{str(modes[r]).split('.')[-1]}", r, e)
                          for r in modes for e in dtypes]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--library", required=True, choices=["torchao", "microxcaling"])
    ap.add_argument("--out", required=True)
    ap.add_argument("--random-blocks", type=int, default=1_000_000)
    a = ap.parse_args()
    if a.library == "microxcaling":
        try:
            import mx  # noqa: F401  (microsoft/microxcaling's package name)
        except Exception as e:
            print("SKIPPED: microxcaling is not installed and is not on PyPI (pip has no "
                  f"distribution 'microxcaling'; {type(e).__name__}: {e})")
            sys.exit(SKIP)
        print("SKIPPED: a microxcaling install was found but this dump does not drive it yet")
        sys.exit(SKIP)
    version, run, cases = torchao_cases()
    os.makedirs(a.out, exist_ok=True)
    crafted = crafted_blocks()
    x = np.concatenate([np.stack(crafted).reshape(-1), random_blocks(a.random_blocks).reshape(-1)])
    x.astype("<f4").tofile(os.path.join(a.out, "inputs.f32"))
    nblocks = x.size // BLOCK
    lines = []
    for label, rule, elem in cases:
        scale, codes = run(x, elem, rule)
        assert scale.size == nblocks and codes.size == x.size, (label, elem)
        sf, cf = f"{label}-{elem}.scales", f"{label}-{elem}.codes"
        scale.astype(np.uint8).tofile(os.path.join(a.out, sf))
        codes.astype(np.uint8).tofile(os.path.join(a.out, cf))
        lines.append(f"{label} {rule} {elem} {BLOCK} {nblocks} {sf} {cf}\n")
    with open(os.path.join(a.out, "manifest.txt"), "w") as f:
        f.write(f"# {version}; {len(crafted)} crafted + {a.random_blocks} random blocks\n")
        f.writelines(lines)
    print(f"dump_mx_peers: {version}: {len(cases)} cases, {len(crafted)} crafted + "
          f"{a.random_blocks} random blocks of {BLOCK}")


if __name__ == "__main__":
    main()
