"""validate and assert_matches: planted faults are found, named and explained."""
import ml_dtypes
import numpy as np
import pytest

import fpconform
from fpconform.testing import assert_matches

RNG = np.random.default_rng(11)


def hopper_case(m=512, k=64, n=512):
    a = RNG.standard_normal((m, k)).astype(ml_dtypes.bfloat16)
    b = RNG.standard_normal((k, n)).astype(ml_dtypes.bfloat16)
    d = fpconform.gemm(a, b, model="hopper", out_format="f32")
    return a, b, d


def test_assert_matches_catches_one_flipped_bit_in_512_by_512():
    a, b, d = hopper_case()
    assert_matches(d.view(np.float32), a, b, model="hopper")  # the model's own output passes
    bad = d.copy()
    bad[300, 200] ^= 1 << 3
    with pytest.raises(AssertionError) as e:
        assert_matches(bad.view(np.float32), a, b, model="hopper")
    msg = str(e.value)
    assert "D[300][200]" in msg  # the worst element, named
    assert "262143 of 262144" in msg or "262143/262144" in msg or "262143" in msg
    assert "model:" in msg and "exact:" in msg  # explained three ways
    assert "see one: result.explain(300, 200)" in msg


def test_validate_counts_and_explains():
    a, b, d = hopper_case(64, 32, 48)
    r = fpconform.validate(d.view(np.float32), a, b, model="hopper")
    assert r.passed and bool(r)
    model, exact = r.comparisons
    assert model["total"] == 64 * 48 and model["bit_exact"] == 64 * 48
    assert exact["total"] == 64 * 48
    text = r.explain(5, 7)
    assert text.startswith("D[5][7] = sum_k A[5][k] * B[k][7] + C, K = 32")
    # A kernel that rounds each element correctly is bit-exact against the exact reference.
    exact_d = fpconform.validate(d.view(np.float32), a, b, reference="exact").comparisons[0]
    assert exact_d["against"].startswith("exact")


def test_numpy_f32_matmul_within_the_classical_bound():
    # Positive terms: whatever order the BLAS sums in, |error| <= gamma_K |A.B| with
    # gamma_K ~ K u (Higham, Accuracy and Stability, 3.1), so max_rel = K u must pass.
    k = 256
    a = RNG.random((32, k)).astype(np.float32)
    b = RNG.random((k, 16)).astype(np.float32)
    r = fpconform.validate(a @ b, a, b, reference="exact", max_rel=k * 2.0**-24)
    c = r.comparisons[0]
    assert c["total"] == 32 * 16
    assert r.passed, r.text
    assert c["max_rel"] > 0  # and the BLAS does round: not every element is correctly rounded


def test_bad_arguments():
    a, b, d = hopper_case(4, 8, 4)
    with pytest.raises(ValueError, match="^d: "):
        fpconform.validate(d[:3].view(np.float32), a, b, model="hopper")
    with pytest.raises(ValueError, match="tolerance"):
        fpconform.validate(d.view(np.float32), a, b, tolerance="model")
    with pytest.raises(ValueError, match="model"):
        fpconform.validate(d.view(np.float32), a, b, reference=None)


def test_the_model_takes_gemm_options(tmp_path, cli):
    # A promoted, scaled e4m3 GEMM from the CLI: validate with the same options accepts it to
    # the bit; without the scales the model disagrees.
    import subprocess
    a = RNG.standard_normal((8, 64)).astype(ml_dtypes.float8_e4m3fn)
    b = RNG.standard_normal((64, 8)).astype(ml_dtypes.float8_e4m3fn)
    sa = np.exp2(RNG.integers(-3, 3, (8, 2))).astype(np.float32)
    sb = np.exp2(RNG.integers(-3, 3, (2, 8))).astype(np.float32)
    for name, arr in (("a", a.view(np.uint8)), ("b", b.view(np.uint8)), ("sa", sa), ("sb", sb)):
        np.save(tmp_path / f"{name}.npy", arr)
    subprocess.run([cli, "gemm", "--model", "hopper", "--in", "e4m3", "--out", "f32",
                    "--a", str(tmp_path / "a.npy"), "--b", str(tmp_path / "b.npy"),
                    "--promote", "32", "--scale-a", str(tmp_path / "sa.npy"),
                    "--scale-b", str(tmp_path / "sb.npy"), "-o", str(tmp_path / "d.npy")],
                   check=True, capture_output=True)
    d = np.load(tmp_path / "d.npy")
    r = fpconform.validate(d, a, b, model="hopper", promote_every=32, scale_a=sa, scale_b=sb)
    assert r.passed and r.comparisons[0]["bit_exact"] == 64
    assert not fpconform.validate(d, a, b, model="hopper", promote_every=32).passed
    with pytest.raises(TypeError, match="splitk"):
        fpconform.validate(d, a, b, model="hopper", splitk=2)
    with pytest.raises(ValueError, match="promote_every"):
        fpconform.validate(d, a, b, promote_every=32)
