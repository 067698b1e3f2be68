#!/usr/bin/env python3
"""Dump what a Python library's casts really produce, for suites/peers/python/compare_peers.

    dump_peers.py --library ml_dtypes|torch --out DIR [--f32-count N]

Writes DIR/manifest.txt, one line per case:
    <source> <target> <count> <input file> <output file>
with <source>/<target> as fpconform format names (f32, bf16, e4m3, ue8m0, ...; a custom: spec
for a type fpconform has no name for), and raw little-endian code arrays (1, 2, 4 or 8 bytes
per element, by the format's width); and DIR/version.txt, the library's version (run_peer.sh
passes it to compare_peers, which picks the profile that models that release). Inputs:
  * f32: N values (default 10^7): every sign and exponent field with tie patterns at every drop
    position and random mantissas, plus every target's rounding boundaries (values, midpoints,
    max finite + half an ulp, each +-1, +-2 f32 ulps), NaNs with several payloads, infs, zeros;
  * f64: about 10^6 values around every target's boundaries (nudged by 1..3 f64 ulps and by half
    an f32 ulp, where rounding through float32 first goes wrong) and random ones;
  * every f16 and bf16 code, every code of each 8/6/4-bit format.
Everything is deterministic (fixed seed). Exits 77 with the reason when the library is missing.
"""
import argparse
import os
import sys
import warnings

warnings.filterwarnings("ignore")  # NaN/overflow casts are the point here

SKIP = 77

try:
    import numpy as np
except ImportError as e:  # pragma: no cover
    print(f"SKIPPED: numpy is not installed ({e})")
    sys.exit(SKIP)

# fpconform format name -> (width in bits, numpy storage dtype)
WIDTH = {"f64": 64, "f32": 32, "f16": 16, "bf16": 16, "e4m3": 8, "e5m2": 8, "e4m3fnuz": 8,
         "e5m2fnuz": 8, "e4m3b11fnuz": 8, "e3m4": 8, "e4m3ieee": 8, "ue8m0": 8, "e2m3": 6,
         "e3m2": 6, "e2m1": 4, "e5m3fnu": 8}
# Types fpconform has no built-in name for: the format spec compare_peers parses.
SPEC = {"e5m3fnu": "custom:e=5,m=3,bias=15,inf=none,nan=max,signed=0"}
STORAGE = {64: np.uint64, 32: np.uint32, 16: np.uint16, 8: np.uint8, 6: np.uint8, 4: np.uint8}


def library_types(library):
    """fpconform name -> the library's dtype, for every type the library can cast to and from."""
    if library == "ml_dtypes":
        try:
            import ml_dtypes as md
        except ImportError as e:
            print(f"SKIPPED: ml_dtypes is not installed ({e}); pip install ml_dtypes")
            sys.exit(SKIP)
        t = {"f64": np.float64, "f32": np.float32, "f16": np.float16}
        for name, attr in [("bf16", "bfloat16"), ("e4m3", "float8_e4m3fn"),
                           ("e5m2", "float8_e5m2"), ("e4m3fnuz", "float8_e4m3fnuz"),
                           ("e5m2fnuz", "float8_e5m2fnuz"),
                           ("e4m3b11fnuz", "float8_e4m3b11fnuz"), ("e3m4", "float8_e3m4"),
                           ("e4m3ieee", "float8_e4m3"), ("ue8m0", "float8_e8m0fnu"),
                           ("e2m3", "float6_e2m3fn"), ("e3m2", "float6_e3m2fn"),
                           ("e2m1", "float4_e2m1fn"), ("e5m3fnu", "float8_e5m3fnu")]:
            if hasattr(md, attr):  # older ml_dtypes lack some types
                t[name] = getattr(md, attr)
        return t, f"ml_dtypes {md.__version__}, numpy {np.__version__}", md.__version__
    try:
        import torch
    except ImportError as e:
        print("SKIPPED: torch CPU wheel not available from PyPI here (PyPI's Linux torch "
              "wheel pulls the CUDA libraries, several GB), and this Python has no torch "
              f"[{e}]; point -DFPCONFORM_TORCH_PYTHON at a Python that has it")
        sys.exit(SKIP)
    t = {"f64": torch.float64, "f32": torch.float32, "f16": torch.float16,
         "bf16": torch.bfloat16}
    for name, attr in [("e4m3", "float8_e4m3fn"), ("e5m2", "float8_e5m2"),
                       ("e4m3fnuz", "float8_e4m3fnuz"), ("e5m2fnuz", "float8_e5m2fnuz"),
                       ("ue8m0", "float8_e8m0fnu")]:
        if hasattr(torch, attr):
            t[name] = getattr(torch, attr)
    return t, f"torch {torch.__version__}", torch.__version__


def decode_all(library, types, name):
    """Every code of a narrow format and its value as float64 (NaN for NaN codes)."""
    w = WIDTH[name]
    codes = np.arange(1 << w, dtype=STORAGE[w])
    return codes, cast(library, types, codes, name, "f64").view(np.float64)


def cast(library, types, codes, src, dst):
    """Cast an array of source codes to the target; returns the target codes."""
    if library == "ml_dtypes":
        x = codes.view(types[src])  # fp6/fp4 codes sit in the low bits of one byte
        y = x.astype(types[dst])
        return y.view(STORAGE[WIDTH[dst]])
    import torch
    sw = WIDTH[src]
    raw = torch.from_numpy(codes.view({64: np.int64, 32: np.int32, 16: np.int16,
                                       8: np.uint8}[sw]).copy())
    x = raw.view(types[src])
    y = x.to(types[dst])
    dw = WIDTH[dst]
    out = y.view({64: torch.int64, 32: torch.int32, 16: torch.int16, 8: torch.uint8}[dw])
    return out.numpy().view(STORAGE[dw])


def boundaries(library, types, targets):
    """Rounding boundaries of the targets: positive finite values and midpoints, as float64."""
    pts = []
    for t in targets:
        if WIDTH[t] > 16 or t not in types:
            continue
        _, vals = decode_all(library, types, t)
        v = np.unique(np.abs(vals[np.isfinite(vals)]))
        mids = (v[:-1] + v[1:]) / 2
        top = v[-1] + (v[-1] - v[-2]) / 2
        pts.append(np.concatenate([v, mids, [top, v[-1] + (v[-1] - v[-2])]]))
    return pts


def f32_inputs(count, bpts, rng):
    parts = []
    signs = np.array([0, 0x80000000], dtype=np.uint64)
    exps = np.arange(256, dtype=np.uint64) << np.uint64(23)
    base = (signs[:, None] | exps[None, :]).reshape(-1)  # 512 bases
    fixed = np.array([0, 1, 2, 3, 0x7FFFFF, 0x7FFFFE, 0x400000, 0x3FFFFF, 0x400001, 0x200000,
                      0x600000, 0x100000], dtype=np.uint64)
    parts.append((base[:, None] | fixed[None, :]).reshape(-1))
    for s in range(1, 24):
        hi = (rng.integers(0, 1 << 23, size=(base.size, 8), dtype=np.uint64) << np.uint64(s)) \
            & np.uint64(0x7FFFFF)
        half = np.uint64(1 << (s - 1))
        t = hi | half
        for m in (hi, t, t - np.uint64(1), (t + np.uint64(1)) & np.uint64(0x7FFFFF)):
            parts.append((base[:, None] | m).reshape(-1))
    # boundaries, +-2 ulps, both signs
    b = np.concatenate(bpts).astype(np.float32)
    b = b[np.isfinite(b)].view(np.uint32).astype(np.int64)
    near = (b[:, None] + np.arange(-2, 3)[None, :]).reshape(-1)
    near = near[(near >= 0) & (near <= 0x7F800000)].astype(np.uint64)
    parts.append(near)
    parts.append(near | np.uint64(0x80000000))
    nans = np.array([0x7F800001, 0x7FC00000, 0x7FFFFFFF, 0x7FA00000, 0x7FC00001, 0x7FE00000,
                     0x7FD00000, 0x7F802000, 0x7F800000, 0], dtype=np.uint64)
    parts.append(nans)
    parts.append(nans | np.uint64(0x80000000))
    have = sum(p.size for p in parts)
    if count > have:
        parts.append(rng.integers(0, 1 << 32, size=count - have, dtype=np.uint64))
    v = np.concatenate(parts).astype(np.uint32)
    # A multiple of 64 elements, so a library's vectorised kernels see full vectors.
    pad = (-v.size) % 64
    return np.concatenate([v, v[:pad]])


def f64_inputs(bpts, rng):
    parts = []
    # 16-bit targets have 10^5 boundaries: every 8th of them is plenty from f64.
    b = np.concatenate([p if p.size <= 4096 else p[::8] for p in bpts])
    b = b.astype(np.float64).view(np.uint64).astype(np.int64)
    nudges = np.array([0, 1, -1, 2, -2, 3, -3, 1 << 28, -(1 << 28), (1 << 28) + 1,
                       -(1 << 28) - 1, (1 << 28) - 1, -(1 << 28) + 1, 1 << 29, -(1 << 29)])
    near = (b[:, None] + nudges[None, :]).reshape(-1)
    near = near[(near >= 0) & (near < 0x7FF0000000000000)].astype(np.uint64)
    parts += [near, near | np.uint64(1 << 63)]
    for sign in (0, 1 << 63):
        for e in range(2048):
            n = 300 if -160 <= e - 1023 <= 140 else 4
            m = rng.integers(0, 1 << 52, size=n, dtype=np.uint64)
            parts.append(np.uint64(sign) | (np.uint64(e) << np.uint64(52)) | m)
    v = np.concatenate(parts)
    pad = (-v.size) % 64
    return np.concatenate([v, v[:pad]])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--library", required=True, choices=["ml_dtypes", "torch"])
    ap.add_argument("--out", required=True)
    ap.add_argument("--f32-count", type=int, default=10_000_000)
    args = ap.parse_args()
    types, version, lib_version = library_types(args.library)
    os.makedirs(args.out, exist_ok=True)
    rng = np.random.default_rng(0x5EED)
    narrow = [n for n in types if WIDTH[n] <= 16]
    bpts = boundaries(args.library, types, narrow)
    inputs = {"f32": f32_inputs(args.f32_count, bpts, rng), "f64": f64_inputs(bpts, rng)}
    for n in narrow:
        w = WIDTH[n]
        inputs[n] = np.arange(1 << w, dtype=STORAGE[w])
    lines = []
    skipped = []
    for src, codes in inputs.items():
        if src not in types:
            continue
        in_file = f"in_{src}.bin"
        codes.tofile(os.path.join(args.out, in_file))
        for dst in types:
            if dst == src:
                continue
            try:
                out = cast(args.library, types, codes, src, dst)
            except Exception as e:  # a cast the library does not offer
                skipped.append(f"{src}->{dst} ({type(e).__name__})")
                continue
            out_file = f"out_{src}_{dst}.bin"
            out.tofile(os.path.join(args.out, out_file))
            lines.append(f"{SPEC.get(src, src)} {SPEC.get(dst, dst)} {codes.size} {in_file} "
                         f"{out_file}")
    with open(os.path.join(args.out, "version.txt"), "w") as f:
        f.write(lib_version + "\n")
    with open(os.path.join(args.out, "manifest.txt"), "w") as f:
        f.write(f"# {version}\n")
        f.write("\n".join(lines) + "\n")
    print(f"{version}: {len(lines)} casts dumped to {args.out}"
          + (f"; casts the library refuses: {', '.join(skipped)}" if skipped else ""))


if __name__ == "__main__":
    main()
