"""Conversions of arrays against ml_dtypes (an independent implementation) and numpy's own casts.

ml_dtypes' casts are checked against fpconform's `ml_dtypes` profile (its documented rounding:
RNE through f32, overflow to NaN or inf as the type has them), and plain RNE where the two agree
by the IEEE rules (f16, bf16, e5m2).
"""
import ml_dtypes
import numpy as np
import pytest

import fpconform

RNG = np.random.default_rng(20261202)


def f32_values():
    """Random f32 values across the whole range, every special, and values near the narrow
    formats' limits and rounding boundaries."""
    bits = RNG.integers(0, 2**32, size=200_000, dtype=np.uint64).astype(np.uint32)
    near = np.concatenate([np.linspace(-500, 500, 20001), np.geomspace(1e-12, 1e6, 20001)])
    special = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 448, 464, 480, 57344, 61440, 6, 7,
                        2**-9, 2**-10, 2**-7, 3 * 2**-10, 65504, 65520, 3.4e38], dtype=np.float32)
    return np.concatenate([bits.view(np.float32), near.astype(np.float32), special, -special])


ML_DTYPES = {
    "bf16": ml_dtypes.bfloat16,
    "e4m3": ml_dtypes.float8_e4m3fn,
    "e5m2": ml_dtypes.float8_e5m2,
    "e4m3fnuz": ml_dtypes.float8_e4m3fnuz,
    "e5m2fnuz": ml_dtypes.float8_e5m2fnuz,
    "e2m3": ml_dtypes.float6_e2m3fn,
    "e3m2": ml_dtypes.float6_e3m2fn,
    "e2m1": ml_dtypes.float4_e2m1fn,
    "ue8m0": ml_dtypes.float8_e8m0fnu,
}


def ml_codes(x, dtype):
    with np.errstate(invalid="ignore", over="ignore"):  # NaN and overflow are the point
        y = np.asarray(x).astype(dtype)
    return y.view(np.uint16 if y.itemsize == 2 else np.uint8)


def same_codes(ours, theirs, fmt):
    """Equal codes, NaN codes compared as NaN (ml_dtypes may keep a NaN's sign or payload)."""
    ours = np.asarray(ours, dtype=np.uint64)
    theirs = np.asarray(theirs, dtype=np.uint64)
    nan = np.isnan(fpconform.decode(ours, fmt)) & np.isnan(fpconform.decode(theirs, fmt))
    bad = np.flatnonzero((ours != theirs) & ~nan)
    return bad


@pytest.mark.parametrize("fmt", sorted(ML_DTYPES))
def test_f32_matches_ml_dtypes_profile(fmt):
    x = f32_values()
    ours = fpconform.convert(x, to=fmt, profile="ml_dtypes")
    theirs = ml_codes(x, ML_DTYPES[fmt])
    bad = same_codes(ours, theirs, fmt)
    assert bad.size == 0, (f"{bad.size} of {x.size} differ, first: x={x[bad[:5]]!r} "
                           f"ours={ours[bad[:5]]} ml_dtypes={theirs[bad[:5]]}")


@pytest.mark.parametrize("fmt", ["bf16", "e5m2"])
def test_f32_rne_matches_ml_dtypes_where_ieee_rules_apply(fmt):
    x = f32_values()
    x = x[np.isfinite(x) & (np.abs(x) < 1e4)]  # no overflow: there the libraries differ by design
    bad = same_codes(fpconform.convert(x, to=fmt), ml_codes(x, ML_DTYPES[fmt]), fmt)
    assert bad.size == 0, x[bad[:5]]


def test_f32_to_f16_matches_numpy_on_every_rounding_boundary():
    x = f32_values()
    ours = fpconform.convert(x, to="f16")
    with np.errstate(over="ignore"):
        theirs = x.astype(np.float16).view(np.uint16)
    bad = same_codes(ours, theirs, "f16")
    assert bad.size == 0, x[bad[:5]]


@pytest.mark.parametrize("src", ["bf16", "f16"])
@pytest.mark.parametrize("fmt", ["e4m3", "e5m2", "e2m1", "e2m3", "e3m2"])
def test_every_16_bit_code_matches_ml_dtypes(src, fmt):
    codes = np.arange(2**16, dtype=np.uint16)
    values = codes.view(ml_dtypes.bfloat16 if src == "bf16" else np.float16)
    ours = fpconform.convert(values, to=fmt, profile="ml_dtypes")
    theirs = ml_codes(values, ML_DTYPES[fmt])
    bad = same_codes(ours, theirs, fmt)
    assert bad.size == 0, codes[bad[:5]]
    # The same codes given raw, with their format named, convert the same.
    raw = fpconform.convert(codes, to=fmt, profile="ml_dtypes", from_format=src)
    assert np.array_equal(raw, ours)


def test_shapes_dtypes_and_the_two_paths_agree():
    x = f32_values()[:4096].reshape(64, 64)
    fast = fpconform.convert(x, to="e4m3", saturation="finite")
    assert fast.shape == (64, 64) and fast.dtype == np.uint8
    # The vectorized f32 path and the per-element path on the same bits.
    slow = fpconform.convert(x.view(np.uint32), to="e4m3", saturation="finite", from_format="f32")
    assert np.array_equal(fast, slow)
    assert fpconform.convert(x, to="f32").dtype == np.uint32
    with np.errstate(invalid="ignore"):
        wide = x.astype(np.float64)
    assert fpconform.convert(wide, to="f64").dtype == np.uint64


def test_decode_is_exact_against_ml_dtypes():
    for fmt, dtype in ML_DTYPES.items():
        width = fpconform.format_info(fmt)["width"]
        codes = np.arange(2 ** min(width, 16), dtype=np.uint16 if width > 8 else np.uint8)
        ours = fpconform.decode(codes, fmt)
        with np.errstate(invalid="ignore"):
            theirs = codes.view(dtype).astype(np.float64)
        both_nan = np.isnan(ours) & np.isnan(theirs)
        assert np.array_equal(ours[~both_nan], theirs[~both_nan]), fmt
        assert np.array_equal(np.isnan(ours), np.isnan(theirs)), fmt


def test_ml_dtypes_arrays_read_by_their_dtype_and_back():
    x = f32_values()[:1000]
    y = x.astype(ml_dtypes.float8_e4m3fn)
    codes = fpconform.convert(y, to="f32")  # exact: every e4m3 value is an f32
    assert np.array_equal(codes.view(np.float32), y.astype(np.float32), equal_nan=True)
    back = fpconform.as_ml_dtypes(fpconform.convert(x, to="e4m3", profile="ml_dtypes"), "e4m3")
    assert back.dtype == ml_dtypes.float8_e4m3fn
    assert np.array_equal(back.astype(np.float32), y.astype(np.float32), equal_nan=True)


def test_stochastic_rounding_is_seeded_and_unbiased():
    x = np.full(200_000, 1 + 2**-9, dtype=np.float32)  # a quarter of a bf16 ulp above 1
    a = fpconform.convert(x, to="bf16", rounding="sr", stochastic_bits=16, seed=7)
    b = fpconform.convert(x, to="bf16", rounding="sr", stochastic_bits=16, seed=7)
    assert np.array_equal(a, b)
    up = np.mean(a == 0x3F81)
    assert set(np.unique(a)) <= {0x3F80, 0x3F81}
    assert abs(up - 0.25) < 0.01
