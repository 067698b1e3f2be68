"""Arrays in and out: dtypes and the formats they hold, codes, the extension module."""

from __future__ import annotations

import numpy as _np

try:  # installed: the module is inside the package
    from . import _fpconform as _c
except ImportError:  # the build tree: the module beside the sources (PYTHONPATH)
    import _fpconform as _c  # type: ignore[no-redef]

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
