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

try:  # installed: the module is inside the package
    from . import _fpconform as _c
except ImportError:  # the build tree: the module beside the sources (PYTHONPATH)
    import _fpconform as _c  # type: ignore[no-redef]

__all__ = ["formats", "format_info", "convert", "decode", "eval", "gemm", "models",
           "as_ml_dtypes", "format_of_dtype"]

# numpy / ml_dtypes dtype names and the formats they hold (ml_dtypes stores float4/float6 in a
# byte each, low bits; fpconform codes are the same bits).
_DTYPE_FORMATS = {
    "float64": "f64",
    "float32": "f32",
    "float16": "f16",
    "bfloat16": "bf16",
    "float8_e4m3fn": "e4m3",
    "float8_e5m2": "e5m2",
    "float8_e4m3fnuz": "e4m3fnuz",
    "float8_e5m2fnuz": "e5m2fnuz",
    "float8_e4m3b11fnuz": "e4m3b11fnuz",
    "float8_e4m3": "e4m3ieee",
    "float8_e3m4": "e3m4",
    "float8_e8m0fnu": "ue8m0",
    "float6_e2m3fn": "e2m3",
    "float6_e3m2fn": "e3m2",
    "float4_e2m1fn": "e2m1",
}


def formats() -> list[dict]:
    """The built-in formats: name, width, exp_bits, man_bits, bias, limits and layout."""
    return _c.formats()


def format_info(fmt: str, _what: str = "fmt") -> dict:
    """One format (a name, an alias or a ``custom:`` spec) as a dict; ValueError if unknown."""
    if not isinstance(fmt, str):
        raise TypeError(f"{_what}: a format name, got {type(fmt).__name__}")
    return _c.format_info(fmt, _what)


def models() -> list[dict]:
    """The matrix-unit models (presets) with the input formats they cover and their sources."""
    return _c.models()


def format_of_dtype(dtype) -> str | None:
    """The format an array of this dtype holds, or None (integers: raw codes)."""
    return _DTYPE_FORMATS.get(_np.dtype(dtype).name)


def _code_dtype(width: int):
    return _np.uint8 if width <= 8 else _np.uint16 if width <= 16 else \
        _np.uint32 if width <= 32 else _np.uint64


def _as_array(x, name: str):
    """numpy array of x: numpy and ml_dtypes arrays as they are, torch tensors via numpy."""
    if hasattr(x, "detach") and hasattr(x, "dtype") and hasattr(x, "cpu"):  # torch.Tensor
        import torch  # only when given a tensor
        t = x.detach()
        if t.device.type != "cpu":
            raise ValueError(f"{name}: a tensor on {t.device}; move it to the CPU first")
        torch_formats = {torch.bfloat16: ("bf16", torch.int16),
                         torch.float16: ("f16", torch.int16)}
        for attr, fmt in (("float8_e4m3fn", "e4m3"), ("float8_e5m2", "e5m2"),
                          ("float8_e8m0fnu", "ue8m0")):
            if hasattr(torch, attr):
                torch_formats[getattr(torch, attr)] = (fmt, torch.uint8)
        if t.dtype in torch_formats:
            fmt, view = torch_formats[t.dtype]
            codes = t.contiguous().view(view).numpy()
            return codes.view(_np.uint16 if codes.itemsize == 2 else _np.uint8), fmt
        return t.contiguous().numpy(), None
    try:
        a = _np.asarray(x)
    except Exception as e:  # noqa: BLE001 - report which argument
        raise TypeError(f"{name}: not an array ({type(x).__name__}): {e}") from None
    return a, None


def _codes_and_format(x, from_format: str | None, name: str):
    """(flat uint64 codes, format name, shape) of x."""
    a, fmt = _as_array(x, name)
    if fmt is None:
        fmt = format_of_dtype(a.dtype)
    if from_format is not None:
        if a.dtype.kind not in "ui":
            raise TypeError(f"{name}: from_format={from_format!r} reads raw codes, "
                            f"but the array holds {a.dtype}")
        fmt = from_format
    elif a.dtype.kind in "ui" and fmt is None:
        raise TypeError(f"{name}: an integer array holds raw codes: say their format with "
                        f"from_format=")
    if fmt is None:
        raise TypeError(f"{name}: no format for dtype {a.dtype}")
    if a.dtype.kind not in "ui":
        a = a.view(_code_dtype(a.dtype.itemsize * 8)) if fmt != "f64" else a.view(_np.uint64)
    if a.dtype.kind == "i":
        width = format_info(fmt)["width"]
        a = a.astype(_np.int64) & ((1 << width) - 1) if width < 64 else a.view(_np.uint64)
    return _np.ascontiguousarray(a, dtype=_np.uint64).reshape(-1), fmt, a.shape


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
        return out.astype(_code_dtype(to_width)).reshape(a.shape)
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


def gemm(a, b, c=None, *, model: str, in_format: str | None = None, out_format: str = "f32",
         acc_format: str | None = None, split_k: int = 1, reverse_k: bool = False,
         promote_every: int = 0, c_in_epilogue: bool = False, reduction: str = "sequential"):
    """D = A.B + C as the matrix unit ``model`` computes it, bit for bit (codes of out_format).

    a (M x K) and b (K x N): values of one format (ml_dtypes arrays, float16/float32) or codes
    with in_format=. c (M x N): codes of the accumulator (acc_format, default f32, as the CLI's)
    or values of it. model: a preset (``models()``) or a ``custom:key=value,...`` unit.
    """
    ca, fa, sa = _codes_and_format(a, in_format, "a")
    cb, fb, sb = _codes_and_format(b, in_format, "b")
    if fa != fb:
        raise ValueError(f"b: holds {fb}, but a holds {fa}")
    if len(sa) != 2 or len(sb) != 2:
        raise ValueError("a, b: give two-dimensional arrays")
    if sa[1] != sb[0]:
        raise ValueError(f"b: A is {sa[0]}x{sa[1]} but B is {sb[0]}x{sb[1]}")
    cc = None
    if c is not None:
        acc = acc_format or "f32"
        ccodes, cfmt, sc = _codes_and_format(c, acc if _np.asarray(c).dtype.kind in "ui" else None, "c")
        if format_info(cfmt, "c")["name"] != format_info(acc, "acc_format")["name"]:
            raise ValueError(f"c: holds {cfmt}, but the accumulator is {acc}")
        if tuple(sc) != (sa[0], sb[1]):
            raise ValueError(f"c: is {'x'.join(map(str, sc))}, but D is {sa[0]}x{sb[1]}")
        cc = ccodes.reshape(sc)
    d = _c.gemm(ca.reshape(sa), cb.reshape(sb), cc, model, fa, out_format, acc_format,
                split_k, reverse_k, promote_every, c_in_epilogue, reduction)
    return d.astype(_code_dtype(format_info(out_format, "out_format")["width"]))


def as_ml_dtypes(codes, fmt: str):
    """codes viewed as the ml_dtypes (or numpy) dtype that holds fmt; ValueError where there is
    none."""
    name = format_info(fmt)["name"]
    for dtype_name, f in _DTYPE_FORMATS.items():
        if f == name:
            if hasattr(_np, dtype_name):
                dt = _np.dtype(dtype_name)
            else:
                import ml_dtypes
                if not hasattr(ml_dtypes, dtype_name):
                    continue
                dt = _np.dtype(getattr(ml_dtypes, dtype_name))
            a = _np.asarray(codes)
            return a.astype(_code_dtype(dt.itemsize * 8)).view(dt)
    raise ValueError(f"fmt: no numpy or ml_dtypes dtype holds {fmt}")


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
             acc_format: str | None = None, max_ulp: float | None = None,
             max_rel: float | None = None, tolerance: str | None = None,
             rounding: str = "rne", worst: int = 10, threads: int = 0) -> ValidateResult:
    """Is a kernel's D = A.B + C right, and if not, where and why?

    d is compared with the model's result bit for bit (model=, a preset or custom: unit) and
    with the correctly rounded exact result (reference="exact"; None: skip it). The verdict
    is on the first expectation: bit-exact, or within max_ulp / max_rel, or with
    tolerance="model" within the error bound the model implies per element.
    """
    import json
    import re

    ca, fa, sa = _codes_and_format(a, in_format, "a")
    cb, fb, sb = _codes_and_format(b, in_format, "b")
    if fa != fb:
        raise ValueError(f"b: holds {fb}, but a holds {fa}")
    cd, fd, sd = _codes_and_format(d, out_format, "d")
    for name, shape in (("a", sa), ("b", sb), ("d", sd)):
        if len(shape) != 2:
            raise ValueError(f"{name}: give a two-dimensional array")
    if sa[1] != sb[0]:
        raise ValueError(f"b: A is {sa[0]}x{sa[1]} but B is {sb[0]}x{sb[1]}")
    if tuple(sd) != (sa[0], sb[1]):
        raise ValueError(f"d: is {sd[0]}x{sd[1]}, but A.B is {sa[0]}x{sb[1]}")
    cc = None
    if c is not None:
        acc = acc_format or "f32"
        raw = _np.asarray(c).dtype.kind in "ui"
        ccodes, cfmt, sc = _codes_and_format(c, acc if raw else None, "c")
        if format_info(cfmt, "c")["name"] != format_info(acc, "acc_format")["name"]:
            raise ValueError(f"c: holds {cfmt}, but the accumulator is {acc}")
        if tuple(sc) != tuple(sd):
            raise ValueError(f"c: is {'x'.join(map(str, sc))}, but D is {sd[0]}x{sd[1]}")
        cc = ccodes.reshape(sc)
    if reference not in ("exact", None):
        raise ValueError(f"reference: {reference!r} is not 'exact' or None")
    if model is None and reference is None:
        raise ValueError("model: give model= and/or reference='exact'")
    if tolerance not in (None, "model"):
        raise ValueError(f"tolerance: {tolerance!r} is not 'model' or None")
    check = _c.Check()
    check.in_format, check.out_format = fa, fd
    if model is not None:
        check.model = model
    if acc_format is not None:
        check.acc_format = acc_format
    check.exact = reference == "exact"
    check.rounding = rounding
    check.max_ulp = -1.0 if max_ulp is None else float(max_ulp)
    check.max_rel = -1.0 if max_rel is None else float(max_rel)
    check.model_bound = tolerance == "model"
    check.worst, check.threads = int(worst), int(threads)
    inputs = (cd.reshape(sd), ca.reshape(sa), cb.reshape(sb), cc, check)
    text, summary_text, passed = _c.validate(*inputs[:4], check, "@")
    # The summary's pointer to one element, in Python's terms.
    summary_text = re.sub(r"see one: @ --element (\d+),(\d+)", r"see one: result.explain(\1, \2)",
                          summary_text)
    return ValidateResult(json.loads(text), summary_text, passed, inputs)


__all__ += ["validate", "ValidateResult", "testing"]

from . import testing  # noqa: E402  (needs validate)
