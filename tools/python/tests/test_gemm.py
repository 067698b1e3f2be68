"""gemm from Python: bit for bit the CLI's, and exact where the arithmetic is exact."""
import subprocess

import ml_dtypes
import numpy as np
import pytest

import fpconform

RNG = np.random.default_rng(5)


@pytest.mark.parametrize("model,in_fmt,dtype,out_fmt", [
    ("hopper", "bf16", ml_dtypes.bfloat16, "f32"),
    ("ampere", "f16", np.float16, "f16"),
    ("hopper", "e4m3", ml_dtypes.float8_e4m3fn, "f32"),
    ("x86-amx-bf16", "bf16", ml_dtypes.bfloat16, "f32"),
])
def test_gemm_equals_the_cli(tmp_path, cli, model, in_fmt, dtype, out_fmt):
    a = RNG.standard_normal((16, 64)).astype(dtype)
    b = RNG.standard_normal((64, 8)).astype(dtype)
    c = RNG.standard_normal((16, 8)).astype(np.float32)
    code = np.uint16 if a.itemsize == 2 else np.uint8
    np.save(tmp_path / "a.npy", a.view(code))
    np.save(tmp_path / "b.npy", b.view(code))
    np.save(tmp_path / "c.npy", c)
    for split_k in (1, 2):
        out = tmp_path / f"d{split_k}.npy"
        subprocess.run([cli, "gemm", "--model", model, "--in", in_fmt, "--out", out_fmt,
                        "--a", str(tmp_path / "a.npy"), "--b", str(tmp_path / "b.npy"),
                        "--c", str(tmp_path / "c.npy"), "--split-k", str(split_k), "-o", str(out)],
                       check=True, capture_output=True)
        theirs = np.load(out)
        if theirs.dtype.kind == "f":
            theirs = theirs.view(np.uint16 if theirs.itemsize == 2 else np.uint32)
        ours = fpconform.gemm(a, b, c, model=model, out_format=out_fmt, split_k=split_k)
        assert ours.shape == (16, 8)
        assert np.array_equal(ours.astype(np.uint64), theirs.astype(np.uint64)), split_k


def test_an_fma_chain_of_small_integers_is_exact():
    # Products and sums of small integers are exact in f32 whatever the order: numpy's matmul
    # and the model must agree to the bit.
    a = RNG.integers(-8, 8, (32, 24)).astype(np.float32)
    b = RNG.integers(-8, 8, (24, 16)).astype(np.float32)
    d = fpconform.gemm(a, b, model="fp32-sequential", out_format="f32")
    assert np.array_equal(d.view(np.float32), a @ b)


def test_raw_codes_with_their_format():
    a = RNG.standard_normal((4, 32)).astype(ml_dtypes.bfloat16)
    b = RNG.standard_normal((32, 4)).astype(ml_dtypes.bfloat16)
    by_dtype = fpconform.gemm(a, b, model="hopper")
    by_codes = fpconform.gemm(a.view(np.uint16), b.view(np.uint16), model="hopper", in_format="bf16")
    assert np.array_equal(by_dtype, by_codes)
    assert by_dtype.dtype == np.uint32


def _save_f32(path, a):
    np.save(path, np.ascontiguousarray(a, dtype=np.float32))


def test_promotion_with_scales_equals_the_cli(tmp_path, cli):
    # DeepSeek-V3-style: e4m3 products promoted to fp32 every 32, scaled per group.
    a = RNG.standard_normal((8, 128)).astype(ml_dtypes.float8_e4m3fn)
    b = RNG.standard_normal((128, 256)).astype(ml_dtypes.float8_e4m3fn)
    sa = np.exp2(RNG.integers(-4, 4, (8, 4))).astype(np.float32) * 1.5
    sb = np.exp2(RNG.integers(-4, 4, (4, 2))).astype(np.float32)
    np.save(tmp_path / "a.npy", a.view(np.uint8))
    np.save(tmp_path / "b.npy", b.view(np.uint8))
    _save_f32(tmp_path / "sa.npy", sa)
    _save_f32(tmp_path / "sb.npy", sb)
    subprocess.run([cli, "gemm", "--model", "hopper", "--in", "e4m3", "--out", "f32",
                    "--a", str(tmp_path / "a.npy"), "--b", str(tmp_path / "b.npy"),
                    "--promote", "32", "--scale-a", str(tmp_path / "sa.npy"),
                    "--scale-b", str(tmp_path / "sb.npy"), "--scale-b-block-cols", "128",
                    "-o", str(tmp_path / "d.npy")], check=True, capture_output=True)
    theirs = np.load(tmp_path / "d.npy").view(np.uint32)
    ours = fpconform.gemm(a, b, model="hopper", promote_every=32, scale_a=sa, scale_b=sb,
                          scale_b_block_cols=128)
    assert np.array_equal(ours, theirs)
    unscaled = fpconform.gemm(a, b, model="hopper", promote_every=32)
    assert not np.array_equal(ours, unscaled)  # the scales were applied


def test_block_scales_equal_the_cli(tmp_path, cli):
    a = RNG.standard_normal((4, 64)).astype(ml_dtypes.float8_e4m3fn)
    b = RNG.standard_normal((64, 4)).astype(ml_dtypes.float8_e4m3fn)
    bsa = (127 + RNG.integers(-3, 3, (4, 2))).astype(np.uint8)
    bsb = (127 + RNG.integers(-3, 3, (2, 4))).astype(np.uint8)
    for name, arr in (("a", a.view(np.uint8)), ("b", b.view(np.uint8)), ("bsa", bsa), ("bsb", bsb)):
        np.save(tmp_path / f"{name}.npy", arr)
    subprocess.run([cli, "gemm", "--model", "blackwell", "--in", "e4m3", "--out", "f32",
                    "--a", str(tmp_path / "a.npy"), "--b", str(tmp_path / "b.npy"),
                    "--block-scale-a", str(tmp_path / "bsa.npy"),
                    "--block-scale-b", str(tmp_path / "bsb.npy"), "-o", str(tmp_path / "d.npy")],
                   check=True, capture_output=True)
    theirs = np.load(tmp_path / "d.npy").view(np.uint32)
    by_codes = fpconform.gemm(a, b, model="blackwell", block_scale_a=bsa, block_scale_b=bsb)
    by_dtype = fpconform.gemm(a, b, model="blackwell", block_scale_a=bsa.view(ml_dtypes.float8_e8m0fnu),
                              block_scale_b=bsb.view(ml_dtypes.float8_e8m0fnu))
    assert np.array_equal(by_codes, theirs)
    assert np.array_equal(by_dtype, theirs)


@pytest.mark.parametrize("kwargs,arg", [
    ({"scale_a": np.ones((4, 1), np.float32)}, "scale_b"),
    ({"scale_a": np.ones((4, 1), np.float32), "scale_b": np.ones((1, 4), np.float32)}, "scale_a"),
    ({"promote_every": 32, "scale_a": np.ones((3, 1), np.float32),
      "scale_b": np.ones((1, 4), np.float32)}, "scale_a"),
    ({"promote_every": 32, "scale_a": np.ones((4, 1), np.float32),
      "scale_b": np.ones((1, 3), np.float32)}, "scale_b"),
    ({"split_k": 0}, "split_k"),
    ({"split_k": 64}, "split_k"),
    ({"split_k": 1.5}, "split_k"),
    ({"promote_every": -1}, "promote_every"),
    ({"reduction": "tree"}, "reduction"),
    ({"acc_format": "f99"}, "acc_format"),
    ({"block_scale_a": np.ones((4, 1), np.uint8)}, "block_scale_b"),
    ({"block_scale_a": np.full((4, 1), 127, np.uint8), "block_scale_b": np.full((1, 4), 127, np.uint8)},
     "model"),
])
def test_bad_gemm_options_name_themselves(kwargs, arg):
    a = np.ones((4, 32), ml_dtypes.float8_e4m3fn)
    b = np.ones((32, 4), ml_dtypes.float8_e4m3fn)
    with pytest.raises((ValueError, TypeError), match=arg):
        fpconform.gemm(a, b, model="hopper", **kwargs)


def test_validate_takes_gemms_options_with_gemms_defaults():
    import inspect
    params = inspect.signature(fpconform.gemm).parameters
    assert {k: params[k].default for k in fpconform._GEMM_OPTIONS} == fpconform._GEMM_OPTIONS


def _fp8_values(shape, dtype, lo, hi):
    """Random codes of an fp8 dtype with exponents in [lo, hi] (finite, some zeros)."""
    mags = np.exp2(RNG.integers(lo, hi + 1, shape)) * RNG.choice([1, 1.25, 1.5, 1.75], shape)
    signs = RNG.choice([-1.0, 1.0, 0.0], shape, p=[0.45, 0.45, 0.1])
    return (mags * signs).astype(dtype)


def test_mixed_fp8_operands_exact_equals_float64():
    # e4m3 x e5m2 products span 2^-25 .. 2^25 with 6-bit significands, and an f16 C
    # 2^-24 .. 2^15: float64 holds every sum of 32 of them exactly, so numpy's float64 matmul,
    # rounded once to f32, is the correctly rounded result the exact unit must give.
    a = _fp8_values((8, 32), ml_dtypes.float8_e4m3fn, -9, 8)
    b = _fp8_values((32, 6), ml_dtypes.float8_e5m2, -16, 15)
    c = RNG.standard_normal((8, 6)).astype(np.float16)
    want = (a.astype(np.float64) @ b.astype(np.float64) + c.astype(np.float64)).astype(np.float32)
    got = fpconform.gemm(a, b, c, model="exact", c_format="f16")
    assert np.array_equal(got.view(np.float32), want)
    # The same by raw codes and their formats.
    by_codes = fpconform.gemm(a.view(np.uint8), b.view(np.uint8), c.view(np.uint16), model="exact",
                              in_format="e4m3", b_format="e5m2", c_format="f16")
    assert np.array_equal(by_codes, got)


def test_mixed_fp8_operands_take_the_presets_unit_and_the_cli_agrees(tmp_path, cli):
    a = _fp8_values((4, 64), ml_dtypes.float8_e4m3fn, -6, 4)
    b = _fp8_values((64, 4), ml_dtypes.float8_e5m2, -6, 4)
    np.save(tmp_path / "a.npy", a.view(np.uint8))
    np.save(tmp_path / "b.npy", b.view(np.uint8))
    subprocess.run([cli, "gemm", "--model", "hopper", "--in", "e4m3", "--b-format", "e5m2",
                    "--out", "f32", "--a", str(tmp_path / "a.npy"), "--b", str(tmp_path / "b.npy"),
                    "-o", str(tmp_path / "d.npy")], check=True, capture_output=True)
    theirs = np.load(tmp_path / "d.npy").view(np.uint32)
    assert np.array_equal(fpconform.gemm(a, b, model="hopper"), theirs)


@pytest.mark.parametrize("kwargs,arg", [
    ({"b_format": "nope"}, "b_format"),
    ({"c_format": "f16"}, "c: holds f32, but c_format is f16"),
])
def test_bad_operand_formats_name_themselves(kwargs, arg):
    a = np.ones((2, 32), ml_dtypes.float8_e4m3fn)
    b = np.ones((32, 2), np.uint8)
    c = np.zeros((2, 2), np.float32)
    with pytest.raises((ValueError, TypeError), match=arg):
        fpconform.gemm(a, b, c, model="hopper", **({"b_format": "e5m2"} | kwargs))


def test_a_pair_the_preset_models_differently_is_refused():
    a = np.ones((2, 8), np.float16)
    b = np.ones((8, 2), ml_dtypes.bfloat16)
    with pytest.raises(ValueError, match="models f16 and bf16 inputs differently"):
        fpconform.gemm(a, b, model="cdna1")


def test_models_give_each_presets_staged_unit_which_gemm_takes():
    hopper = [m for m in fpconform.models() if m["model"] == "hopper" and m["input"] == "bf16"][0]
    assert hopper["unit"].startswith("fused(block=16, frac_bits=25, zero_exp=-133)")
    a = RNG.standard_normal((4, 64)).astype(ml_dtypes.bfloat16)
    b = RNG.standard_normal((64, 4)).astype(ml_dtypes.bfloat16)
    # The preset's own output rule (f32: RZ) is in the staged text's out() stage.
    staged = fpconform.gemm(a, b, model=hopper["unit"])
    assert np.array_equal(staged, fpconform.gemm(a, b, model="hopper"))
    with pytest.raises(ValueError, match="model pairwise\\(\\): does not take 'frac_bits'"):
        fpconform.gemm(a, b, model="pairwise(group=4, frac_bits=3) | out(rne)")


def test_models_stages_are_the_staged_text_as_data():
    # Each stage a dict: written back by the text form's rules (bare words alone, flags by
    # name, key=value otherwise), the stages are the unit's text, for every preset.
    bare = {"mode", "place", "tree"}
    for m in fpconform.models():
        parts = []
        for stage in m["stages"]:
            args = [str(v) if k in bare else k if v is True else f"{k}={v}"
                    for k, v in stage.items() if k != "stage"]
            parts.append(f"{stage['stage']}({', '.join(args)})")
        assert " | ".join(parts) == m["unit"], m["model"]
    volta = [m for m in fpconform.models() if m["model"] == "volta"][0]
    assert volta["stages"] == [{"stage": "fused", "block": 4, "frac_bits": 23},
                               {"stage": "out", "mode": "rtz"}]
