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
