"""fpconform: bit-exact models of low-precision floating-point arithmetic.

Arrays in, arrays out. Values are numpy arrays (float32, float64, float16), ml_dtypes arrays
(bfloat16, float8_*, float6_*, float4_e2m1fn, float8_e8m0fnu: the format comes from the dtype),
CPU torch tensors, or raw codes (unsigned integers) with ``from_format=``. Results are numpy
arrays of codes (uint8/uint16/uint32/uint64 by the format's width); ``as_ml_dtypes`` views them
as ml_dtypes arrays where ml_dtypes has the format.

>>> import numpy as np, fpconform
>>> fpconform.convert(np.array([1.0, 0.1], dtype=np.float32), to="e4m3")
array([56, 29], dtype=uint8)
>>> fpconform.decode(np.array([56, 29], dtype=np.uint8), "e4m3")
array([1.       , 0.1015625])
"""

from __future__ import annotations

import numpy as _np

from ._arrays import (_c, _code_dtype, _codes_and_format, _as_array, as_ml_dtypes, format_info,
                      format_of_dtype, formats, models)

__version__ = _c.__version__

__all__ = ["formats", "format_info", "convert", "decode", "eval", "gemm", "models",
           "as_ml_dtypes", "format_of_dtype"]


def convert(x, to: str, rounding: str = "rne", saturation: str = "none", *, ftz: bool = False,
            daz: bool = False, profile: str | None = None, from_format: str | None = None,
            stochastic_bits: int = 0, seed: int = 0):
    """Codes of ``to`` for the values x, each rounded once (or as ``profile``'s library does).

    rounding: rne, rna, rtz, up, down, odd, sr-a, sr-b, sr-c, sr (stochastic: give
    stochastic_bits; element i draws splitmix64(seed + i)). saturation: none, finite,
    propagate, infinite. The result has x's shape and the narrowest unsigned dtype that holds
    the codes.
    """
    a, fmt = _as_array(x, "x")
    to_width = format_info(to, "to")["width"]
    if (profile is None and from_format is None and fmt is None and a.dtype == _np.float32):
        flat = _np.ascontiguousarray(a).reshape(-1)
        out = _c.convert_f32(flat, to, rounding, saturation, ftz, daz, stochastic_bits, seed)
        if out.dtype != _code_dtype(to_width):  # the fast path already gives uint8/uint16
            out = out.astype(_code_dtype(to_width))
        return out.reshape(a.shape)
    codes, src, shape = _codes_and_format(x, from_format, "x")
    if profile is not None:
        user = {} if rounding == "rne" and saturation == "none" else \
            {"mode": rounding, "sat": saturation}
        out = _c.convert_profile(codes, src, to, profile, user.get("mode"), user.get("sat"),
                                 ftz or None, daz or None)
    else:
        out = _c.convert_codes(codes, src, to, rounding, saturation, ftz, daz, stochastic_bits,
                               seed)
    return out.astype(_code_dtype(to_width)).reshape(shape)


def decode(codes, fmt: str | None = None):
    """The values of codes (or of an ml_dtypes array) as float64, exact for formats of up to
    53 bits of precision; NaN and infinities as numpy's."""
    flat, src, shape = _codes_and_format(codes, fmt, "codes")
    return _c.decode(flat, src).reshape(shape)


def eval(op: str, fmt: str, *operands, rounding: str = "rne", saturation: str = "none",
         ftz: bool = False, daz: bool = False, nan: str | None = None, flags: bool = False):
    """A scalar operation (TestFloat's names: add, sub, mul, div, sqrt, mulAdd, roundToInt,
    minimum, maximum, eq, le, lt, ...) elementwise over arrays of codes of fmt, one rounding
    each. Returns the codes, and with flags=True also the IEEE flags (TestFloat's bits)."""
    if not operands:
        raise TypeError("eval: give the operands")
    arrays = [_codes_and_format(o, fmt, f"operands[{i}]") for i, o in enumerate(operands)]
    shape = _np.broadcast_shapes(*(s for _, _, s in arrays))
    flat = [_np.ascontiguousarray(_np.broadcast_to(c.reshape(s), shape), dtype=_np.uint64)
            .reshape(-1) for c, _, s in arrays]
    out, fl = _c.eval_op(op, fmt, flat, rounding, saturation, ftz, daz, nan)
    out = out.astype(_code_dtype(format_info(fmt, "fmt")["width"])).reshape(shape)
    return (out, fl.reshape(shape)) if flags else out


def _operands(a, b, c, in_format, acc_format, b_format=None, c_format=None):
    """(A codes, B codes, C codes or None, their formats as _c.OperandFormats) of a GEMM's
    operands, shapes checked. Raw codes of B are in b_format (default in_format), of C in
    c_format (default the accumulator's)."""
    ca, fa, sa = _codes_and_format(a, in_format, "a")
    cb, fb, sb = _codes_and_format(b, b_format if b_format is not None else in_format, "b")
    for name, shape in (("a", sa), ("b", sb)):
        if len(shape) != 2:
            raise ValueError(f"{name}: give a two-dimensional array, not {len(shape)}-dimensional")
    if sa[1] != sb[0]:
        raise ValueError(f"b: A is {sa[0]}x{sa[1]} but B is {sb[0]}x{sb[1]}")
    cc = None
    formats = _c.OperandFormats()
    formats.a, formats.b = fa, fb
    if c is not None:
        acc = c_format or acc_format or "f32"
        raw = _np.asarray(c).dtype.kind in "ui"
        ccodes, cfmt, sc = _codes_and_format(c, acc if raw else None, "c")
        if format_info(cfmt, "c")["name"] != format_info(acc, "acc_format")["name"]:
            raise ValueError(f"c: holds {cfmt}, but " +
                             (f"c_format is {c_format}" if c_format else
                              f"the accumulator is {acc} (c_format= says C's own format)"))
        formats.c = c_format or ""
        if tuple(sc) != (sa[0], sb[1]):
            raise ValueError(f"c: is {'x'.join(map(str, sc))}, but A.B is {sa[0]}x{sb[1]}")
        cc = ccodes.reshape(sc)
    return ca.reshape(sa), cb.reshape(sb), cc, formats


def _f32_matrix(x, name: str, rows: int):
    """x as a C-contiguous float32 matrix with `rows` rows (the per-group scales)."""
    a = _np.asarray(x)
    if a.dtype.kind not in "fiu":
        raise TypeError(f"{name}: scales are numbers, got {a.dtype}")
    a = _np.ascontiguousarray(a, dtype=_np.float32)
    if a.ndim != 2 or a.shape[0] != rows:
        raise ValueError(f"{name}: give a matrix with {rows} rows, got shape {a.shape}")
    return a


# The options of gemm that describe the model (validate takes them too), with gemm's defaults.
_GEMM_OPTIONS = {"split_k": 1, "reverse_k": False, "promote_every": 0, "c_in_epilogue": False,
                 "reduction": "sequential", "scale_a": None, "scale_b": None,
                 "scale_b_block_cols": 1, "block_scale_a": None, "block_scale_b": None,
                 "block_scale_format": "ue8m0"}


def _gemm_setup(model, acc_format, m: int, n: int, split_k, reverse_k, promote_every,
                c_in_epilogue, reduction, scale_a, scale_b, scale_b_block_cols, block_scale_a,
                block_scale_b, block_scale_format):
    """The GEMM's options as the library takes them; scales checked against D's m x n."""
    for name, v in (("split_k", split_k), ("promote_every", promote_every),
                    ("scale_b_block_cols", scale_b_block_cols)):
        if isinstance(v, bool) or not isinstance(v, (int, _np.integer)):
            raise TypeError(f"{name}: an integer, got {type(v).__name__}")
    s = _c.GemmSetup()
    s.model = model
    s.acc_format = acc_format or "f32"
    s.split_k, s.promote_every = int(split_k), int(promote_every)
    s.scale_b_block_cols = int(scale_b_block_cols)
    s.reverse_k, s.c_in_epilogue, s.reduction = bool(reverse_k), bool(c_in_epilogue), reduction
    s.block_scale_format = block_scale_format
    if (scale_a is None) != (scale_b is None):
        raise ValueError(f"{'scale_b' if scale_b is None else 'scale_a'}: give scale_a and "
                         f"scale_b, or neither")
    if scale_a is not None:
        sa = _f32_matrix(scale_a, "scale_a", m)
        sb = _np.ascontiguousarray(_np.asarray(scale_b), dtype=_np.float32)
        if sb.ndim != 2 or sb.shape[0] != sa.shape[1]:
            raise ValueError(f"scale_b: give a matrix with {sa.shape[1]} rows (one per group, as "
                             f"scale_a's columns), got shape {sb.shape}")
        s.set_scales(sa, sb)
    if (block_scale_a is None) != (block_scale_b is None):
        raise ValueError(f"{'block_scale_b' if block_scale_b is None else 'block_scale_a'}: "
                         f"give block_scale_a and block_scale_b, or neither")
    if block_scale_a is not None:
        raw = _np.asarray(block_scale_a).dtype.kind in "ui"
        ba, fba, sba = _codes_and_format(block_scale_a, block_scale_format if raw else None,
                                         "block_scale_a")
        raw = _np.asarray(block_scale_b).dtype.kind in "ui"
        bb, fbb, sbb = _codes_and_format(block_scale_b, block_scale_format if raw else None,
                                         "block_scale_b")
        for name, f in (("block_scale_a", fba), ("block_scale_b", fbb)):
            if format_info(f, name)["name"] != format_info(block_scale_format,
                                                           "block_scale_format")["name"]:
                raise ValueError(f"{name}: holds {f}, but block_scale_format is "
                                 f"{block_scale_format}")
        if len(sba) != 2 or sba[0] != m:
            raise ValueError(f"block_scale_a: give a matrix with {m} rows, got shape {sba}")
        if len(sbb) != 2 or sbb[1] != n:
            raise ValueError(f"block_scale_b: give a matrix with {n} columns, got shape {sbb}")
        s.set_block_scales(ba.reshape(sba), bb.reshape(sbb))
    return s


def gemm(a, b, c=None, *, model: str, in_format: str | None = None, out_format: str = "f32",
         acc_format: str | None = None, b_format: str | None = None,
         c_format: str | None = None, split_k: int = 1, reverse_k: bool = False,
         promote_every: int = 0, c_in_epilogue: bool = False, reduction: str = "sequential",
         scale_a=None, scale_b=None, scale_b_block_cols: int = 1, block_scale_a=None,
         block_scale_b=None, block_scale_format: str = "ue8m0"):
    """D = A.B + C as the matrix unit ``model`` computes it, bit for bit (codes of out_format).

    a (M x K) and b (K x N): values (ml_dtypes arrays, float16/float32) or codes with
    in_format= (b_format= when b's differ: e4m3 x e5m2, fp6 x fp4). c (M x N): codes of the
    accumulator (acc_format, default f32, as the CLI's), or of c_format= (an f16 C into an f32
    unit), or values. model: a preset (``models()``), a staged unit
    (``"chain() | out(rne)"``, what ``probe`` returns) or a ``custom:key=value,...`` unit.
    Operands of two formats take the preset's unit for both (refused where it models them
    differently).

    The options are the CLI gemm's: split_k slices reduced sequentially or pairwise;
    promote_every N products into an fp32 accumulator, with per-group fp32 scales scale_a
    (M x K/N) and scale_b (K/N x N, or K/N x N/scale_b_block_cols); block_scale_a
    (M x K/block) and block_scale_b (K/block x N) for MX / NVFP4 units, as codes of
    block_scale_format or an ml_dtypes array (float8_e8m0fnu, float8_e4m3fn).
    """
    ca, cb, cc, formats = _operands(a, b, c, in_format, acc_format, b_format, c_format)
    setup = _gemm_setup(model, acc_format, ca.shape[0], cb.shape[1], split_k, reverse_k,
                        promote_every, c_in_epilogue, reduction, scale_a, scale_b,
                        scale_b_block_cols, block_scale_a, block_scale_b, block_scale_format)
    d = _c.gemm(ca, cb, cc, setup, formats, out_format)
    return d.astype(_code_dtype(format_info(out_format, "out_format")["width"]))


class ValidateResult:
    """What ``validate`` found: ``passed``, the tolerance applied, one comparison per
    expectation (the model first, then the exact result), and the summary the CLI prints.
    ``explain(row, col)`` shows one element three ways: kernel, model, exact."""

    def __init__(self, summary: dict, text: str, passed: bool, inputs):
        self.passed = passed
        self.tolerance = summary["tolerance"]
        self.comparisons = summary["comparisons"]
        self.model_bound = summary.get("model_bound")
        self.summary = summary
        self.text = text
        self._inputs = inputs

    def __bool__(self):
        return self.passed

    def __str__(self):
        return self.text

    def __repr__(self):
        first = self.comparisons[0] if self.comparisons else {}
        return (f"<ValidateResult {'PASS' if self.passed else 'FAIL'}: "
                f"{first.get('bit_exact', 0)}/{first.get('total', 0)} bit-exact against "
                f"{first.get('against', '?')}>")

    def worst(self):
        """The worst elements of the first comparison: dicts with row, col, got, expected,
        ulp and rel."""
        return self.comparisons[0]["worst"] if self.comparisons else []

    def explain(self, row: int, col: int) -> str:
        d, a, b, c, check = self._inputs
        return _c.explain(d, a, b, c, check, int(row), int(col))


def validate(d, a, b, c=None, *, model: str | None = None, reference: str | None = "exact",
             in_format: str | None = None, out_format: str | None = None,
             acc_format: str | None = None, b_format: str | None = None,
             c_format: str | None = None, max_ulp: float | None = None,
             max_rel: float | None = None, tolerance: str | None = None,
             rounding: str = "rne", worst: int = 10, threads: int = 0, **gemm_options
             ) -> ValidateResult:
    """Is a kernel's D = A.B + C right, and if not, where and why?

    d is compared with the model's result bit for bit (model=, a preset, staged or custom: unit, with
    any of ``gemm``'s options: split_k, promote_every, scale_a, block_scale_a, ...) and with
    the correctly rounded exact result (reference="exact"; None: skip it). The verdict is on
    the first expectation: bit-exact, or within max_ulp / max_rel, or with tolerance="model"
    within the error bound the model implies per element.
    """
    import json
    import re

    ca, cb, cc, formats = _operands(a, b, c, in_format, acc_format, b_format, c_format)
    cd, fd, sd = _codes_and_format(d, out_format, "d")
    if len(sd) != 2:
        raise ValueError(f"d: give a two-dimensional array, not {len(sd)}-dimensional")
    if tuple(sd) != (ca.shape[0], cb.shape[1]):
        raise ValueError(f"d: is {sd[0]}x{sd[1]}, but A.B is {ca.shape[0]}x{cb.shape[1]}")
    if reference not in ("exact", None):
        raise ValueError(f"reference: {reference!r} is not 'exact' or None")
    if model is None and reference is None:
        raise ValueError("model: give model= and/or reference='exact'")
    if tolerance not in (None, "model"):
        raise ValueError(f"tolerance: {tolerance!r} is not 'model' or None")
    for name in gemm_options:
        if name not in _GEMM_OPTIONS:
            raise TypeError(f"validate() got an unexpected keyword argument '{name}'")
    if gemm_options and model is None:
        raise ValueError(f"{next(iter(gemm_options))}: describes the model: give model=")
    check = _c.Check()
    check.in_format, check.out_format = formats.a, fd
    check.b_format, check.c_format = formats.b, formats.c
    if model is not None:
        check.model = _gemm_setup(model, acc_format, sd[0], sd[1],
                                  **{**_GEMM_OPTIONS, **gemm_options})
    if acc_format is not None:
        check.acc_format = acc_format
    check.exact = reference == "exact"
    check.rounding = rounding
    check.max_ulp = -1.0 if max_ulp is None else float(max_ulp)
    check.max_rel = -1.0 if max_rel is None else float(max_rel)
    check.model_bound = tolerance == "model"
    check.worst, check.threads = int(worst), int(threads)
    inputs = (cd.reshape(sd), ca, cb, cc, check)
    text, summary_text, passed = _c.validate(*inputs[:4], check, "@")
    # The summary's pointer to one element, in Python's terms.
    summary_text = re.sub(r"see one: @ --element (\d+),(\d+)", r"see one: result.explain(\1, \2)",
                          summary_text)
    return ValidateResult(json.loads(text), summary_text, passed, inputs)


from ._quantize import Quantized, quantize  # noqa: E402
from ._probe import Characterization, probe  # noqa: E402

__all__ += ["validate", "ValidateResult", "testing", "quantize", "Quantized", "probe",
            "Characterization"]

from . import testing  # noqa: E402  (needs validate)
