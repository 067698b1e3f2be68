"""fpconform.quantize: block-scaled quantization (MX, NVFP4, fp32 tiles) of arrays of values."""

from __future__ import annotations

import numpy as _np

from ._arrays import _c, _code_dtype, _codes_and_format, as_ml_dtypes, format_info


class Quantized:
    """A block-scaled matrix: element codes (x's shape) and one scale per block.

    Unpacks as ``codes, scales = quantize(...)``. ``tensor_scale`` is the second-level scale
    (a code of ``tensor_scale_format``) of two-level rules (nvfp4), else None. ``flags`` are the
    IEEE flags of the roundings; ``dequantize()`` gives the values the blocks stand for."""

    def __init__(self, codes, scales, tensor_scale, element_format, scale_format, rule, flags,
                 tensor_scale_format, shape):
        self.codes = codes.astype(_code_dtype(format_info(element_format)["width"])).reshape(shape)
        self.scales = scales.astype(_code_dtype(format_info(scale_format)["width"]))
        self.tensor_scale = tensor_scale
        self.element_format, self.scale_format, self.rule = element_format, scale_format, rule
        self.tensor_scale_format = tensor_scale_format or None
        self.flags = flags

    def __iter__(self):
        return iter((self.codes, self.scales))

    def __repr__(self):
        return (f"<Quantized {self.element_format} {'x'.join(map(str, self.codes.shape))} in "
                f"{self.scales.shape[0]}x{self.scales.shape[1]} blocks, rule {self.rule}>")

    def as_ml_dtypes(self):
        """(codes, scales) as ml_dtypes arrays (float8_e4m3fn / float4_e2m1fn, float8_e8m0fnu)."""
        return as_ml_dtypes(self.codes, self.element_format), as_ml_dtypes(self.scales,
                                                                           self.scale_format)

    def dequantize(self):
        """The values (float32): element times its block's scale (times the tensor scale),
        exact in f32 for every rule here."""
        codes = _np.ascontiguousarray(self.codes.reshape(-1, self.codes.shape[-1]), dtype=_np.uint64)
        values = _c.dequantize(codes, _np.ascontiguousarray(self.scales, dtype=_np.uint64),
                               self.tensor_scale, self.element_format, self.rule)
        return values.astype(_np.uint32).view(_np.float32).reshape(self.codes.shape)


def quantize(x, block: str = "mxfp8", rule: str | None = None, *, axis: str = "rows",
             from_format: str | None = None) -> Quantized:
    """x (a matrix of values: float32, float64, bfloat16, ...; a vector is one row) cut into
    blocks and scaled: block mxfp8 (e4m3), mxfp8-e5m2, mxfp6 (e2m3), mxfp6-e3m2, mxfp4 (e2m1),
    all 1 x 32 with the OCP rule; nvfp4 (e2m1, 1 x 16, e4m3 scales and a per-tensor f32 scale);
    tile:RxC (e4m3 with an f32 scale per R x C tile). rule: any of ``fpconform scale-rules``
    (ocp, rceil, nvfp4, tile, ...) instead of the block's own. axis="cols" turns 1 x 32 blocks
    down the columns. Block sizes must divide x's shape (nothing is padded)."""
    codes, fmt, shape = _codes_and_format(x, from_format, "x")
    if len(shape) not in (1, 2):
        raise ValueError(f"x: give a vector or a matrix, not {len(shape)}-dimensional")
    if not isinstance(block, str):
        raise TypeError(f"block: a block name, got {type(block).__name__}")
    rows, cols = (1, shape[0]) if len(shape) == 1 else shape
    out = _c.quantize(codes.reshape(rows, cols), fmt, block, rule, axis)
    return Quantized(*out, shape=shape)
