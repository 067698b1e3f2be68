"""MMA-Sim (pip install mmasim, needs torch) as a peer, instruction by instruction.

Agreement: every instruction both model, on finite in-range inputs (exponents over a few dozen
binades), bit for bit. Differences: one test per class where the two disagree, asserting each
side's value exactly; the docstring says which side the evidence supports. Expected values come
from MMA-Sim's output, from IEEE 754's rounding rules worked by hand, or from recorded hardware
(reports/devices/nvidia-h200), never from fpconform. reports/peers/mmasim.md has the counts.
Skipped where torch or mmasim does not import (mmasim builds a small C++ extension on import).
"""
import inspect
import math

import numpy as np
import pytest

import fpconform

torch = pytest.importorskip("torch", reason="torch is not installed (optional; mmasim needs it)")
try:
    import mmasim.amd as amd
    import mmasim.nv_ptx as nv
except Exception as e:  # noqa: BLE001 - absent, or its C++ extension did not build
    pytest.skip(f"mmasim is not usable (optional): {type(e).__name__}: {e}",
                allow_module_level=True)
mmasim = nv  # the name the first test used

INF, NINF, MAX, NMAX = 0x7F800000, 0xFF800000, 0x7F7FFFFF, 0xFF7FFFFF

_TORCH = {"f16": torch.float16, "bf16": torch.bfloat16, "e4m3": torch.float8_e4m3fn,
          "e5m2": torch.float8_e5m2, "e4m3fnuz": torch.float8_e4m3fnuz,
          "e5m2fnuz": torch.float8_e5m2fnuz}


# ---- helpers: codes <-> MMA-Sim's tensors, random codes, both sides on one GEMM ----

def _t(codes, fmt):
    """fpconform codes of fmt as the tensor MMA-Sim takes (fp6/fp4: one per uint8, fp4 in bits
    5:2; tf32: the f32 whose low 13 bits are zero)."""
    c = np.asarray(codes, np.uint64)
    if fmt in ("e2m1", "e2m3", "e3m2"):
        return torch.from_numpy((c << (2 if fmt == "e2m1" else 0)).astype(np.uint8))
    if fmt in ("f32", "tf32"):
        c = c << 13 if fmt == "tf32" else c
        return torch.from_numpy(c.astype(np.uint32).view(np.int32)).view(torch.float32)
    if fmt == "f64":
        return torch.from_numpy(c.view(np.int64).copy()).view(torch.float64)
    if _TORCH[fmt].itemsize == 1:
        return torch.from_numpy(c.astype(np.uint8)).view(_TORCH[fmt])
    return torch.from_numpy(c.astype(np.uint16).view(np.int16)).view(_TORCH[fmt])


def _codes(t):
    bits = {1: (torch.uint8, np.uint8), 2: (torch.int16, np.uint16),
            4: (torch.int32, np.uint32), 8: (torch.int64, np.uint64)}[t.dtype.itemsize]
    return t.contiguous().view(bits[0]).numpy().view(bits[1]).astype(np.uint64)


def _rand(rng, fmt, shape, lo=None, hi=None, p_zero=0.03):
    """Random finite codes: unbiased exponent in [lo, hi] (the format's range when None; its
    lowest field gives subnormals), uniform fraction and sign, a few zeros."""
    f = fpconform.format_info(fmt)
    e_bits, m_bits, bias = f["exp_bits"], f["man_bits"], f["bias"]
    top = (1 << e_bits) - (2 if f["has_inf"] else 1)
    field = rng.integers(0 if lo is None else max(0, lo + bias),
                         (top if hi is None else min(top, hi + bias)) + 1, shape)
    code = (rng.integers(0, 2, shape) << (e_bits + m_bits)) | (field << m_bits) \
        | rng.integers(0, 1 << m_bits, shape)
    if fmt == "e4m3":
        code = np.where(code & 0x7F == 0x7F, code - 1, code)  # not NaN
    if fmt.endswith("fnuz"):
        code = np.where(code == 0x80, 0, code)  # not NaN
    return np.where(rng.random(shape) < p_zero, 0, code).astype(np.uint64)


def _of(values, fmt):
    """Codes of exactly representable values (f64 in, RNE: exact here)."""
    v = np.asarray(values, np.float64)
    if fmt == "tf32":
        return fpconform.convert(v, to="f32").astype(np.uint64) >> 13
    return fpconform.convert(v, to=fmt).astype(np.uint64)


def _fp(model, a, b, c, fin, fout, **kw):
    return fpconform.gemm(a, b, c, model=model, in_format=fin, out_format=fout,
                          acc_format=fout, **kw).astype(np.uint64)


def _ms(op, a, b, c, fin, fout, *scales):
    return _codes(op(_t(a, fin), _t(b, fin), _t(c, fout), *scales))


def _both(op, model, a, b, c, fin, fout):
    return _fp(model, a, b, c, fin, fout), _ms(op, a, b, c, fin, fout)


def _rz_f32(x):
    """x (a float64 value) rounded toward zero into f32: IEEE 754, worked here."""
    f = np.float32(x)
    if abs(float(f)) > abs(x):
        f = np.nextafter(f, np.float32(0))
    return int(np.array(f).view(np.uint32))


def _row(va, vb, fin, k):
    """A (1 x k) and B (k x 1) holding the values va, vb first, zeros after."""
    a = np.zeros((1, k), np.uint64)
    b = np.zeros((k, 1), np.uint64)
    a[0, :len(va)], b[:len(vb), 0] = _of(va, fin), _of(vb, fin)
    return a, b


# ---- the instructions both model: (id, MMA-Sim op, preset, in, out, k, window, C window) ----

F16 = (-8, 5)   # f16 results stay finite: products below 2^12
W = (-30, 30)   # bf16 / tf32 / f32 / f64: products within 2^+-60
FP8C = (-12, 12)
ARCH = {"volta": "Volta", "turing": "Turing", "ampere": "Ampere", "ada": "Ada Lovelace",
        "hopper-mma": "Hopper", "blackwell-mma": "Blackwell", "rtx-blackwell": "RTX Blackwell"}
_MMA = [  # mma.sync: (preset, shape and types, in, out, k, window)
    ("volta", "m8n8k4.f32.f16.f16.f32", "f16", "f32", 4, None),
    ("volta", "m8n8k4.f16.f16.f16.f16", "f16", "f16", 4, F16),
    ("turing", "m16n8k8.f32.f16.f16.f32", "f16", "f32", 8, None),
    ("turing", "m16n8k8.f16.f16.f16.f16", "f16", "f16", 8, F16),
    ("ampere", "m8n8k4.f64.f64.f64.f64", "f64", "f64", 4, W),
    ("ada", "m16n8k32.f32.e4m3.e4m3.f32", "e4m3", "f32", 32, None),
    ("ada", "m16n8k32.f32.e5m2.e5m2.f32", "e5m2", "f32", 32, None),
    ("ada", "m16n8k32.f16.e4m3.e4m3.f16", "e4m3", "f16", 32, (-9, 4)),
    ("ada", "m16n8k32.f16.e5m2.e5m2.f16", "e5m2", "f16", 32, (-9, 4)),
    ("ada", "m16n8k16.f16.e4m3.e4m3.f16", "e4m3", "f16", 16, (-9, 4)),
    ("hopper-mma", "m16n8k16.f64.f64.f64.f64", "f64", "f64", 16, W),
    ("rtx-blackwell", "m16n8k32.kind::f8f6f4.f32.e4m3.e4m3.f32", "e4m3", "f32", 32, None),
    ("rtx-blackwell", "m16n8k32.kind::f8f6f4.f32.e5m2.e5m2.f32", "e5m2", "f32", 32, None),
    ("rtx-blackwell", "m16n8k32.kind::f8f6f4.f16.e4m3.e4m3.f16", "e4m3", "f16", 32, (-9, 4)),
] + [(p, s, i, o, k, w) for p in ("ampere", "ada", "hopper-mma", "blackwell-mma", "rtx-blackwell")
     for s, i, o, k, w in [("m16n8k16.f32.f16.f16.f32", "f16", "f32", 16, None),
                           ("m16n8k16.f16.f16.f16.f16", "f16", "f16", 16, F16),
                           ("m16n8k16.f32.bf16.bf16.f32", "bf16", "f32", 16, W),
                           ("m16n8k8.f32.tf32.tf32.f32", "tf32", "f32", 8, W)]
     if not (p == "ada" and o == "f16")]
CASES = [(f"mma {ARCH[p]} {s}", lambda s=s, p=p: nv.MMA(ARCH[p], s), p, i, o, k, w)
         for p, s, i, o, k, w in _MMA]
CASES += [(f"wgmma {s}", lambda s=s: nv.WGMMA("Hopper", s), "hopper-wgmma", i, o, k, w)
          for s, i, o, k, w in [("m64n8k16.f32.f16.f16", "f16", "f32", 16, None),
                                ("m64n8k16.f16.f16.f16", "f16", "f16", 16, F16),
                                ("m64n8k16.f32.bf16.bf16", "bf16", "f32", 16, W),
                                ("m64n8k8.f32.tf32.tf32", "tf32", "f32", 8, W),
                                ("m64n8k32.f32.e4m3.e4m3", "e4m3", "f32", 32, None),
                                ("m64n8k32.f32.e5m2.e5m2", "e5m2", "f32", 32, None),
                                ("m64n8k32.f16.e4m3.e4m3", "e4m3", "f16", 32, (-9, 4)),
                                ("m64n8k32.f16.e5m2.e5m2", "e5m2", "f16", 32, (-9, 4))]]
CASES += [(f"tcgen05 {s}", lambda s=s: nv.TCGen05MMA("Blackwell", s), "blackwell", i, o, k, w)
          for s, i, o, k, w in [("m128n8k16.kind::f16.f32.f16.f16", "f16", "f32", 16, None),
                                ("m128n8k16.kind::f16.f16.f16.f16", "f16", "f16", 16, F16),
                                ("m128n8k16.kind::f16.f32.bf16.bf16", "bf16", "f32", 16, W),
                                ("m128n8k8.kind::tf32.f32.tf32.tf32", "tf32", "f32", 8, W)]
          + [(f"m128n8k32.kind::f8f6f4.f32.{t}.{t}", t, "f32", 32, None)
             for t in ("e4m3", "e5m2", "e2m3", "e3m2", "e2m1")]
          + [(f"m128n8k32.kind::f8f6f4.f16.{t}.{t}", t, "f16", 32, (-9, 4))
             for t in ("e4m3", "e5m2")]]
CASES += [(f"mfma {arch} {s}", lambda arch=arch, s=s: amd.MFMA(arch, s), p, i, "f32" if i != "f64"
           else "f64", k, w) for arch, s, p, i, k, w in [
    ("CDNA1", "f32_16x16x4f32", "cdna1", "f32", 4, W),
    ("CDNA1", "f32_16x16x16f16", "cdna1-km", "f16", 16, None),
    ("CDNA1", "f32_16x16x8bf16", "cdna1-km", "bf16", 8, W),
    ("CDNA2", "f32_16x16x16f16", "cdna2", "f16", 16, None),
    ("CDNA2", "f32_16x16x8bf16", "cdna2", "bf16", 8, W),
    ("CDNA2", "f32_16x16x16bf16_1k", "cdna2-1k", "bf16", 16, W),
    ("CDNA2", "f32_16x16x4f32", "cdna2", "f32", 4, W),
    ("CDNA2", "f64_16x16x4f64", "cdna2", "f64", 4, W),
    ("CDNA3", "f32_16x16x16_f16", "cdna3", "f16", 16, None),
    ("CDNA3", "f32_16x16x16_bf16", "cdna3", "bf16", 16, W),
    ("CDNA3", "f32_16x16x8_xf32", "cdna3", "tf32", 8, W),
    ("CDNA3", "f32_16x16x32_fp8_fp8", "cdna3", "e4m3fnuz", 32, None),
    ("CDNA3", "f32_16x16x32_bf8_bf8", "cdna3", "e5m2fnuz", 32, None),
    ("CDNA3", "f32_16x16x4_f32", "cdna3", "f32", 4, W),
    ("CDNA3", "f64_16x16x4_f64", "cdna3", "f64", 4, W)]]


@pytest.mark.parametrize("name,op,model,fin,fout,k,win", CASES, ids=[c[0] for c in CASES])
def test_agrees_with_mmasim_on_finite_in_range_inputs(name, op, model, fin, fout, k, win):
    rng = np.random.default_rng(sum(map(ord, name)))
    lo, hi = win or (None, None)
    a, b = _rand(rng, fin, (64, k), lo, hi), _rand(rng, fin, (k, 16), lo, hi)
    clo, chi = (lo, hi) if win else ((-14, 15) if fout != "f16" else F16)
    c = _rand(rng, fout, (64, 16), *(FP8C if fin[0] == "e" and fout == "f32" else (clo, chi)))
    ours, theirs = _both(op(), model, a, b, c, fin, fout)
    assert np.array_equal(ours, theirs)


def test_hopper_bf16_mma_agrees_with_mmasim():
    mma = mmasim.MMA("Hopper", "m16n8k16.f32.bf16.bf16.f32")
    gen = torch.Generator().manual_seed(4)
    for _ in range(100):
        scale = torch.exp2(torch.randint(-10, 10, (16, 16), generator=gen)).to(torch.bfloat16)
        a = torch.randn(16, 16, generator=gen).to(torch.bfloat16) * scale
        b = torch.randn(16, 8, generator=gen).to(torch.bfloat16)
        c = torch.randn(16, 8, generator=gen)
        theirs = mma(a, b, c).numpy().view(np.uint32)
        ours = fpconform.gemm(_codes(a).astype(np.uint16), _codes(b).astype(np.uint16),
                              c.numpy(), model="hopper", in_format="bf16")
        assert np.array_equal(ours, theirs)


# ---- block-scaled kinds (Blackwell tcgen05 and sm_120 mma.sync with block scale) ----

def _scaled_op(kind, t, blk, sfmt, rtx=False):
    k = 64 if kind != "mxf8f6f4" else 32
    if rtx:
        return nv.MMABlockScale("RTX Blackwell",
                                f"m16n8k{k}.kind::{kind}.block{blk}.f32.{t}.{t}.f32.{sfmt}")
    return nv.TCGen05MMABlockScale("Blackwell", f"m128n8k{k}.kind::{kind}.block{blk}.f32.{t}.{t}."
                                   f"{sfmt}")


def _scaled(kind, t, blk, sfmt, a, b, c, sa, sb, rtx=False):
    """(fpconform, MMA-Sim) of one block-scaled GEMM; sa (M x K/blk), sb (K/blk x N) codes."""
    model = {"mxf8f6f4": "blackwell", "mxf4": "blackwell-mxf4"}.get(
        kind, "blackwell-nvf4" if blk == 16 else "blackwell-mxf4")
    ours = _fp(model, a, b, c, t, "f32", block_scale_a=sa, block_scale_b=sb,
               block_scale_format="e4m3" if sfmt == "ue4m3" else "ue8m0")
    dt = torch.float8_e8m0fnu if sfmt == "ue8m0" else torch.float8_e4m3fn
    alpha, beta = (torch.from_numpy(s.astype(np.uint8)).view(dt) for s in (sa, sb))
    if kind == "mxf8f6f4":
        ta, tb = _t(a, t), _t(b, t)
    else:  # values: MMA-Sim reads uint8 here as packed pairs
        ta, tb = (torch.from_numpy(fpconform.decode(x, "e2m1")).to(torch.float16) for x in (a, b))
    theirs = _codes(_scaled_op(kind, t, blk, sfmt, rtx)(ta, tb, _t(c, "f32"), alpha, beta))
    return ours, theirs


def _scales(rng, sfmt, shape):
    if sfmt == "ue8m0":
        return rng.integers(127 - 12, 127 + 12, shape).astype(np.uint64)
    return rng.integers(0x08, 0x7F, shape).astype(np.uint64)  # normal ue4m3 (e4m3, sign 0)


SCALED = [("mxf8f6f4", t, 32, "ue8m0", False) for t in ("e4m3", "e5m2", "e2m3", "e3m2", "e2m1")]
SCALED += [("mxf4", "e2m1", 32, "ue8m0", False), ("mxf4nvf4", "e2m1", 32, "ue8m0", False),
           ("mxf4nvf4", "e2m1", 16, "ue4m3", False), ("mxf4nvf4", "e2m1", 16, "ue8m0", False),
           ("mxf8f6f4", "e4m3", 32, "ue8m0", True), ("mxf4nvf4", "e2m1", 16, "ue4m3", True)]


@pytest.mark.parametrize("kind,t,blk,sfmt,rtx", SCALED,
                         ids=[f"{'sm120' if s[4] else 'tcgen05'} {s[0]} {s[1]} block{s[2]} {s[3]}"
                              for s in SCALED])
def test_block_scaled_kinds_agree_with_mmasim(kind, t, blk, sfmt, rtx):
    """Finite inputs, rows whose 16-product sub-sums cancel exactly included."""
    rng = np.random.default_rng(blk * 7 + len(kind) + rtx)
    k = 64 if kind != "mxf8f6f4" else 32
    a, b = _rand(rng, t, (64, k)), _rand(rng, t, (k, 16))
    c = _rand(rng, "f32", (64, 16), -12, 12)
    sa, sb = _scales(rng, sfmt, (64, k // blk)), _scales(rng, sfmt, (k // blk, 16))
    ours, theirs = _scaled(kind, t, blk, sfmt, a, b, c, sa, sb, rtx)
    assert np.array_equal(ours, theirs)


@pytest.mark.skipif("b_format" not in inspect.signature(fpconform.gemm).parameters,
                    reason="this fpconform's gemm takes one input format")
@pytest.mark.parametrize("op,model,fa,fb", [
    (lambda: nv.WGMMA("Hopper", "m64n8k32.f32.e4m3.e5m2"), "hopper-wgmma", "e4m3", "e5m2"),
    (lambda: nv.MMA("Ada Lovelace", "m16n8k32.f32.e5m2.e4m3.f32"), "ada", "e5m2", "e4m3"),
    (lambda: nv.TCGen05MMA("Blackwell", "m128n8k32.kind::f8f6f4.f32.e2m3.e2m1"), "blackwell",
     "e2m3", "e2m1"),
    (lambda: amd.MFMA("CDNA3", "f32_16x16x32_fp8_bf8"), "cdna3", "e4m3fnuz", "e5m2fnuz")],
    ids=["wgmma e4m3 x e5m2", "Ada e5m2 x e4m3", "tcgen05 e2m3 x e2m1", "CDNA3 fp8 x bf8"])
def test_mixed_input_formats_agree_with_mmasim(op, model, fa, fb):
    rng = np.random.default_rng(11)
    a, b = _rand(rng, fa, (64, 32)), _rand(rng, fb, (32, 16))
    c = _rand(rng, "f32", (64, 16), -12, 12)
    ours = fpconform.gemm(a, b, c, model=model, in_format=fa, b_format=fb).astype(np.uint64)
    assert np.array_equal(ours, _codes(op()(_t(a, fa), _t(b, fb), _t(c, "f32"))))


# ---- difference classes ----

def _huge_rows(rng, fin, k, m=32):
    """Rows whose exact sum is far beyond f32's range (products near 2^150), random C."""
    a = _of(np.where(rng.random((m, k)) < .5, -1, 1) * (1 + rng.random((m, k)))
            * 2.0 ** rng.integers(70, 100, (m, k)), fin)
    b = _of((1 + rng.random((k, 1))) * 2.0 ** rng.integers(40, 60, (k, 1)), fin)
    c = _of(rng.standard_normal((m, 1)), "f32")
    return a, b, c


RZ_UNITS = [("ampere", "Ampere", "bf16"), ("ampere", "Ampere", "tf32"), ("ada", "Ada Lovelace",
            "bf16"), ("blackwell-mma", "Blackwell", "bf16"), ("rtx-blackwell", "RTX Blackwell",
            "tf32"), ("blackwell", None, "bf16")]


@pytest.mark.parametrize("model,arch,fin", RZ_UNITS, ids=[f"{u[0]} {u[2]}" for u in RZ_UNITS])
def test_rz_overflow_into_f32_is_max_here_and_inf_in_mmasim(model, arch, fin):
    """Exact sums past f32's range on the non-Hopper NVIDIA presets: fpconform rounds toward
    zero to +-max (0x7f7fffff, what IEEE 754 RZ gives); MMA-Sim gives +-inf (its RZ truncates the
    significand, then converts to f32 with round-to-nearest, which overflows). Evidence: none
    recorded for Ampere/Ada/Blackwell (no A100 dump row overflows; PTX calls the rounding
    "unspecified"); the one measured unit, the H200, gives +-inf
    (test_rz_overflow_hopper_is_inf_on_both_sides). Leaning MMA-Sim (the same RZ datapath
    overflowing the same way is the likelier design), but not measured."""
    k = 8 if fin == "tf32" else 16
    op = nv.TCGen05MMA("Blackwell", "m128n8k16.kind::f16.f32.bf16.bf16") if arch is None else \
        nv.MMA(arch, f"m16n8k{k}.f32.{fin}.{fin}.f32")
    a, b, c = _huge_rows(np.random.default_rng(3), fin, k)
    a[:, :k // 2] = 0  # huge products in the last block only (Ampere and Ada chain two)
    ours, theirs = _both(op, model, a, b, c, fin, "f32")
    over = np.array([abs(math.fsum(fpconform.decode(a[i], fin) * fpconform.decode(b[:, 0], fin)))
                     for i in range(len(a))]) > 3.4e38
    assert over.sum() > 20
    sign = (theirs[over] >> 31).astype(bool)
    assert np.isin(theirs[over], [INF, NINF]).all()
    assert np.array_equal(ours[over], np.where(sign, NMAX, MAX))


@pytest.mark.parametrize("model,op", [
    ("hopper-mma", lambda: nv.MMA("Hopper", "m16n8k16.f32.bf16.bf16.f32")),
    ("hopper-wgmma", lambda: nv.WGMMA("Hopper", "m64n8k16.f32.bf16.bf16"))], ids=["mma", "wgmma"])
def test_rz_overflow_hopper_is_inf_on_both_sides(model, op):
    """Hopper: both give +-inf. Evidence: the H200's bf16 and tf32 rows (mma.sync and wgmma)
    whose exact sum passes f32's range all came back +-inf (116,037 bf16 + 86,609 tf32 rows,
    reports/devices/nvidia-h200/README.md). Both sides right."""
    a, b, c = _huge_rows(np.random.default_rng(3), "bf16", 16)
    ours, theirs = _both(op(), model, a, b, c, "bf16", "f32")
    assert np.isin(theirs, [INF, NINF]).sum() > 20 and np.array_equal(ours, theirs)


ZERO_UNITS = [("ampere", lambda: nv.MMA("Ampere", "m16n8k16.f32.bf16.bf16.f32"), "bf16", "f32"),
              ("hopper-mma", lambda: nv.MMA("Hopper", "m16n8k16.f16.f16.f16.f16"), "f16", "f16"),
              ("blackwell", lambda: nv.TCGen05MMA("Blackwell", "m128n8k16.kind::f16.f16.f16.f16"),
               "f16", "f16"),
              ("rtx-blackwell", lambda: nv.MMA("RTX Blackwell", "m16n8k16.f32.bf16.bf16.f32"),
               "bf16", "f32"),
              ("cdna1-km", lambda: amd.MFMA("CDNA1", "f32_16x16x16f16"), "f16", "f32"),
              ("cdna3", lambda: amd.MFMA("CDNA3", "f32_16x16x16_bf16"), "bf16", "f32")]
ZERO_IDS = [u[0] for u in ZERO_UNITS]


@pytest.mark.parametrize("model,op,fin,fout", ZERO_UNITS, ids=ZERO_IDS)
def test_exact_cancellation_gives_plus_zero_on_both_sides(model, op, fin, fout):
    """x - x + 0: both give +0, as IEEE 754 says for round-to-nearest and toward zero.
    Evidence: every H200 probe row whose exact sum is zero came back +0 (2 to 28 rows per
    kernel, reports/devices/nvidia-h200/probe/profiles.tar.xz). Both sides right."""
    x = 1.5 * 2.0 ** np.arange(-4, 4)
    a = np.zeros((8, 16), np.uint64)
    a[:, 0], a[:, 1] = _of(x, fin), _of(x, fin)
    b = np.zeros((16, 1), np.uint64)
    b[0, 0], b[1, 0] = _of([1.0], fin)[0], _of([-1.0], fin)[0]
    ours, theirs = _both(op(), model, a, b[:16], np.zeros((8, 1), np.uint64), fin, fout)
    assert (ours == 0).all() and (theirs == 0).all()


@pytest.mark.parametrize("model,op,fin,fout", ZERO_UNITS, ids=ZERO_IDS)
def test_all_minus_zero_terms_give_minus_zero_here_and_plus_zero_in_mmasim(model, op, fin, fout):
    """Every product -0 and C = -0: fpconform gives -0 (IEEE 754: a sum of -0s is -0);
    MMA-Sim gives +0 (NVIDIA: it adds +0.0 to every result; CDNA1/3: its torch sums start from
    +0). Evidence: none; no recorded row (dumps, H200) has all terms -0 and PTX leaves it
    unspecified. Not measured."""
    a = np.full((4, 16), _of([-0.0], fin)[0], np.uint64)
    b = _rand(np.random.default_rng(1), fin, (16, 2), -3, 3, 0.0) & np.uint64(0x7FFF)  # > 0
    c = np.full((4, 2), _of([-0.0], fout)[0], np.uint64)
    ours, theirs = _both(op(), model, a, b, c, fin, fout)
    sign = np.uint64(0x80000000 if fout == "f32" else 0x8000)
    assert (ours == sign).all() and (theirs == 0).all()


@pytest.mark.parametrize("model,op,fin,fout", ZERO_UNITS[:4], ids=ZERO_IDS[:4])
def test_underflow_to_zero_sign(model, op, fin, fout):
    """A negative sum below the output's smallest subnormal: MMA-Sim gives +0 everywhere;
    fpconform gives +0 on Hopper (underflow_zero_positive) and -0 elsewhere (the sign of the
    exact result). Evidence: the H200 returns +0 for every such row (52 rows per f16 -> f16
    kernel, 5 bf16 and 7 tf32 rows into f32), so on Hopper both sides are right; for Ampere and
    Blackwell no row is recorded (the A100 dumps have no zero result). Not measured there;
    the H200 result makes MMA-Sim's +0 the likelier."""
    tiny = 2.0 ** (-76 if fout == "f32" else -20)  # product: 1.875 tiny**2, below half a
    # subnormal but within the alignment of zero terms at 2^-132 (Ampere), so not cut to zero
    a, b = _row([-1.25 * tiny], [1.5 * tiny], fin, 16)
    a = np.roll(a, 15, axis=1)  # in the last block: Ampere chains two blocks of 8
    b = np.roll(b, 15, axis=0)
    ours, theirs = _both(op(), model, a, b, np.zeros((1, 1), np.uint64), fin, fout)
    sign = 0x80000000 if fout == "f32" else 0x8000
    assert theirs[0, 0] == 0 and ours[0, 0] == (0 if model == "hopper-mma" else sign)


F16_OUT = [("volta", "Volta", "m8n8k4.f16.f16.f16.f16"),
           ("turing", "Turing", "m16n8k8.f16.f16.f16.f16")] + [
    (p, arch, "m16n8k16.f16.f16.f16.f16") for p, arch in [
        ("ampere", "Ampere"), ("hopper-mma", "Hopper"), ("blackwell-mma", "Blackwell"),
        ("rtx-blackwell", "RTX Blackwell")]]


@pytest.mark.parametrize("model,arch,shape", F16_OUT, ids=[u[0] for u in F16_OUT])
def test_zero_term_exponent_with_f16_output(model, arch, shape):
    """2^-25 + 2^-48 with zero products and C = 0, into f16: zero terms count as 2^-19 / -20 /
    -21 when the output is f16 (Volta / Turing-Ada / Hopper-Blackwell), so 2^-48 falls below
    the alignment, the sum is the tie 2^-25 and RNE gives 0x0000 on both sides (the correctly
    rounded result is 0x0001). The presets take these values from MMA-Sim 2.1.1; no recorded
    row tells them apart (every zero_exp from -60 to -11 reproduces all 630 H200 f16 -> f16
    probe rows and the V100/A100/H100 fp16-output dumps). Not measured here."""
    op = nv.MMA(arch, shape)
    a, b = _row([2.0 ** -12, 2.0 ** -24], [2.0 ** -13, 2.0 ** -24], "f16", op.k)
    ours, theirs = _both(op, model, a, b, np.zeros((1, 1), np.uint64), "f16", "f16")
    assert (ours[0, 0], theirs[0, 0]) == (0x0000, 0x0000)


@pytest.mark.parametrize("model,op,fin,k", [
    ("ampere", lambda: nv.MMA("Ampere", "m16n8k16.f32.bf16.bf16.f32"), "bf16", 16),
    ("hopper-mma", lambda: nv.MMA("Hopper", "m16n8k16.f32.bf16.bf16.f32"), "bf16", 16),
    ("blackwell", lambda: nv.TCGen05MMA("Blackwell", "m128n8k16.kind::f16.f32.bf16.bf16"), "bf16",
     16),
    ("blackwell-mma", lambda: nv.MMA("Blackwell", "m16n8k16.f32.bf16.bf16.f32"), "bf16", 16),
    ("rtx-blackwell", lambda: nv.MMA("RTX Blackwell", "m16n8k8.f32.tf32.tf32.f32"), "tf32", 8)],
    ids=["ampere", "hopper-mma", "blackwell", "blackwell-mma", "rtx-blackwell"])
def test_zero_term_exponent_with_f32_output(model, op, fin, k):
    """2^-140 - 2^-160 with zero terms, into f32 (RZ). Zero terms count as 2^-132 / -133, so
    -2^-160 falls below the alignment unit 2^-158 and the result is 2^-140 (0x200) on both
    sides (with no exponent for zero terms it would be 0x1ff). For Blackwell and RTX Blackwell
    mma.sync the -133 is MMA-Sim 2.1.1's (the value [KM] measured for B200 tcgen05); no
    recorded sm_100/sm_120 mma.sync rows."""
    a, b = _row([2.0 ** -70, -2.0 ** -80], [2.0 ** -70, 2.0 ** -80], fin, k)
    ours, theirs = _both(op(), model, a, b, np.zeros((1, 1), np.uint64), fin, "f32")
    assert theirs[0, 0] == ours[0, 0] == 0x200


@pytest.mark.parametrize("suffix,fin,k", [("f32_16x16x16_bf16", "bf16", 16),
                                          ("f32_16x16x16_f16", "f16", 16),
                                          ("f32_16x16x8_xf32", "tf32", 8)])
def test_cdna3_late_c_carry(suffix, fin, k):
    """CDNA3's late C when the sum carries: C = 2 - 2^-7 + 2^-23 and products 2^-7 + 2^-31,
    exact sum 2 + 2^-23 + 2^-31. fpconform cuts the sum to 31 fraction bits of 2^max(E, e_c)
    (2^-31 kept) and rounds to nearest: 0x40000001, the correctly rounded result. MMA-Sim
    renormalizes after the add and floors again to 31 bits of the new exponent (2^-30), drops
    2^-31, and the tie goes to even: 0x40000000. Without a carry both agree (C at every
    distance, C = 0, fp8 with C dropped: test_agrees_with_mmasim and reports/peers/mmasim.md).
    fpconform's cut follows the sources cited in emu/src/matrix_presets.cpp (MMA-Sim's older
    functions.py, [KM] CDNA3.m). Evidence: no MI300 rows recorded here. Not measured."""
    a, b = _row([2.0 ** -4, 2.0 ** -16], [2.0 ** -3, 2.0 ** -15], fin, k)
    c = _of([[2 - 2 ** -7 + 2 ** -23]], "f32")
    ours, theirs = _both(amd.MFMA("CDNA3", suffix), "cdna3", a, b, c, fin, "f32")
    exact = 2 + 2 ** -23 + 2 ** -31
    assert ours[0, 0] == np.array(np.float32(exact)).view(np.uint32) == 0x40000001
    assert theirs[0, 0] == 0x40000000


@pytest.mark.parametrize("kind,blk,sfmt,big,e_big,rtx", [
    ("mxf4", 32, "ue8m0", 127 + 20, 20, False), ("mxf4nvf4", 16, "ue4m3", 0x7E, 16, False),
    ("mxf4nvf4", 16, "ue8m0", 127 + 20, 20, False), ("mxf4nvf4", 16, "ue4m3", 0x7E, 16, True)],
    ids=["mxf4", "nvf4 ue4m3", "mxf4nvf4 block16 ue8m0", "sm120 nvf4"])
def test_fp4_cancelled_subsum(kind, blk, sfmt, big, e_big, rtx):
    """A 16-product sub-sum that cancels exactly (6 - 6) under the largest scale, other terms
    3.0 under unit scales, C = 1.1f. The cancelled sub-sum keeps its scales' exponent (MMA-Sim:
    "zeros resulted from summation do not apply e_zero"; an all-zero sub-sum does take it), so
    every term is cut to 2^(e_big - 35) first, on both sides (as a zero term it would leave
    3 + 1.1f rounded toward zero). The rule is MMA-Sim 2.1.1's; no B200 / RTX 5090 rows here."""
    a = np.zeros((1, 64), np.uint64)
    b = np.zeros((64, 1), np.uint64)
    a[0, [0, 1, 32, 48]], b[[0, 1, 32, 48], 0] = [0x7, 0xF, 0x3, 0x1], [0x2, 0x2, 0x3, 0x3]
    one = 127 if sfmt == "ue8m0" else 0x38
    sa, sb = np.full((1, 64 // blk), one, np.uint64), np.full((64 // blk, 1), one, np.uint64)
    sa[0, 0] = big
    sb[0, 0] = big if sfmt == "ue4m3" else one
    c = _of([[np.float32(1.1)]], "f32")
    ours, theirs = _scaled(kind, "e2m1", blk, sfmt, a, b, c, sa, sb, rtx)
    c_val = float(np.float32(1.1))
    unit = 2.0 ** (e_big - 35)  # F = 35 below the cancelled sub-sum's scale exponent
    assert ours[0, 0] == theirs[0, 0] == _rz_f32(3 + math.floor(c_val / unit) * unit)
