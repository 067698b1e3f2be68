"""quantize from Python: against the OCP MX rule computed with numpy and ml_dtypes, and bit for
bit the CLI's quantize."""
import subprocess

import ml_dtypes
import numpy as np
import pytest

import fpconform

RNG = np.random.default_rng(11)


def values(shape):
    return (RNG.standard_normal(shape) * np.exp2(RNG.integers(-6, 6, shape))).astype(np.float32)


def test_mxfp8_is_the_ocp_rule():
    # OCP MX v1.0 section 6.3: X = 2^(floor(log2 amax) - emax_elem) per 32 values, emax_elem = 8
    # for e4m3; elements x / X rounded to nearest even and clamped to +-448.
    x = values((8, 128))
    q = fpconform.quantize(x, "mxfp8")
    codes, scales = q
    assert codes.shape == (8, 128) and scales.shape == (8, 4)
    blocks = x.astype(np.float64).reshape(8, 4, 32)
    exp = np.floor(np.log2(np.abs(blocks).max(axis=2))) - 8
    assert np.array_equal(scales.astype(np.int64), exp.astype(np.int64) + 127)
    assert np.array_equal(q.as_ml_dtypes()[1].astype(np.float64), np.exp2(exp))
    elems = np.clip(blocks / np.exp2(exp)[..., None], -448, 448).astype(ml_dtypes.float8_e4m3fn)
    assert np.array_equal(codes, elems.reshape(8, 128).view(np.uint8))
    # Dequantized: element times scale, exact in f32.
    expected = (elems.astype(np.float64) * np.exp2(exp)[..., None]).reshape(8, 128)
    assert np.array_equal(q.dequantize().astype(np.float64), expected)


def test_columns_turn_the_blocks():
    x = values((64, 4))
    rows = fpconform.quantize(np.ascontiguousarray(x.T), "mxfp4")
    cols = fpconform.quantize(x, "mxfp4", axis="cols")
    assert np.array_equal(cols.codes, rows.codes.T)
    assert np.array_equal(cols.scales, rows.scales.T)


@pytest.mark.parametrize("block,rule", [("mxfp8", None), ("nvfp4", None), ("mxfp6", "rceil"),
                                        ("tile:1x32", None)])
def test_quantize_equals_the_cli(tmp_path, cli, block, rule):
    x = values((4, 64))
    np.save(tmp_path / "x.npy", x)
    args = [cli, "quantize", "--block", block, "-i", str(tmp_path / "x.npy"),
            "-o", str(tmp_path / "q.npy"), "--scales", str(tmp_path / "s.npy")]
    if rule:
        args += ["--rule", rule]
    subprocess.run(args, check=True, capture_output=True)
    q = fpconform.quantize(x, block, rule)
    theirs_q, theirs_s = np.load(tmp_path / "q.npy"), np.load(tmp_path / "s.npy")
    as_codes = lambda a: a.view(np.uint32) if a.dtype == np.float32 else a  # noqa: E731
    assert np.array_equal(q.codes.astype(np.uint64), as_codes(theirs_q).astype(np.uint64))
    assert np.array_equal(q.scales.astype(np.uint64), as_codes(theirs_s).astype(np.uint64))


def test_nvfp4_has_a_tensor_scale():
    x = values((2, 32))
    q = fpconform.quantize(x, "nvfp4")
    assert q.tensor_scale_format == "f32" and q.tensor_scale is not None
    # Two-level: global amax / (448 * 6), rounded to f32.
    expected = np.float32(np.abs(x).max().astype(np.float64) / (448 * 6))
    assert np.uint32(q.tensor_scale) == expected.view(np.uint32)


@pytest.mark.parametrize("kwargs,arg", [
    ({"block": "mxfp9"}, "block"),
    ({"block": "mxfp8", "rule": "nope"}, "rule"),
    ({"block": "mxfp8", "axis": "diagonal"}, "axis"),
    ({"block": "tile:0x4"}, "block"),
    ({"block": "mxfp8", "x": np.ones((2, 33), np.float32)}, "block_cols"),
    ({"block": "mxfp8", "x": np.ones((2, 2, 32), np.float32)}, "x"),
])
def test_bad_arguments_name_themselves(kwargs, arg):
    kwargs = {"x": np.ones((2, 64), np.float32), **kwargs}
    with pytest.raises((ValueError, TypeError), match=arg):
        fpconform.quantize(**kwargs)
