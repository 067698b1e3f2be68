"""probe on Python callables: a unit whose arithmetic is known by construction is recovered and
its model reproduces it on fresh data; errors of the callable reach the caller."""
import ml_dtypes
import numpy as np
import pytest

import fpconform

RNG = np.random.default_rng(3)


def fma_chain(a, b, c):
    # e4m3 products are exact in f32 (8-bit significands, exponents -18..17), so each numpy f32
    # addition of one is one IEEE fused multiply-add: a chain of FMAs from C, in order of k.
    acc = c.astype(np.float32)
    for i in range(a.shape[1]):
        acc = acc + a[:, i].astype(np.float32) * b[:, i].astype(np.float32)
    return acc


def test_a_chain_of_fmas_in_numpy_is_recovered():
    r = fpconform.probe(fma_chain, "e4m3", "f32", cases=20000)
    assert r, r.verdict
    assert r.agreed == r.validated == 20000
    assert r.model.startswith("chain()"), r.model
    order = [e for e in r.evidence if e["probe"] == "summation order"][0]["finding"]
    chain = "c"
    for i in range(32):  # C first, then k in order, at the probe's k = 32
        chain = f"({chain} {i})"
    assert order == chain
    # The model on data the probe never saw: numpy's answers to the bit.
    a = RNG.standard_normal((32, 48)).astype(ml_dtypes.float8_e4m3fn)
    b = RNG.standard_normal((48, 16)).astype(ml_dtypes.float8_e4m3fn)
    c = RNG.standard_normal((32, 16)).astype(np.float32)
    ours = fpconform.gemm(a, b, c, model=r.model).view(np.float32)
    theirs = np.stack([fma_chain(a, np.ascontiguousarray(b[:, j:j + 1].T.repeat(32, 0)), c[:, j])
                       for j in range(16)], axis=1)
    assert np.array_equal(ours, theirs)
    assert r.profile["schema"] == "fpconform.device-profile/1"
    assert r.profile["model"]["spec"] == r.model
    assert "fma_chain" in r.markdown()


def test_a_gemm_callable_answers_on_its_diagonal():
    def gemm(a, b, c):  # D = A.B + C with the same chain per element
        return np.stack([fma_chain(a, np.ascontiguousarray(b[:, j][None, :].repeat(a.shape[0], 0)),
                                   c[:, j]) for j in range(b.shape[1])], axis=1)
    r = fpconform.probe(gemm, "e4m3", "f32", kind="gemm", gemm_rows=16, cases=2000)
    assert r and r.model.startswith("chain()"), (r.verdict, r.model)


def test_a_named_target(tmp_path):
    r = fpconform.probe("emu:hopper", "e4m3", "f32", cases=5000)
    assert r and r.agreed == 5000
    path = r.write(str(tmp_path / "profiles"))
    assert path.endswith(".json") and (tmp_path / "profiles").is_dir()


def test_b_in_its_own_format():
    seen = []

    def mixed_chain(a, b, c):  # e4m3 x e5m2 products are exact in f32 too (4 + 3 bits)
        seen.append((a.dtype, b.dtype))
        return fma_chain(a, b, c)

    r = fpconform.probe(mixed_chain, "e4m3", "f32", b_format="e5m2", cases=5000)
    assert r and r.agreed == 5000, r.verdict
    assert r.b_format == "e5m2" and "e4m3 x e5m2 -> f32" in str(r)
    assert seen[0] == (np.dtype(ml_dtypes.float8_e4m3fn), np.dtype(ml_dtypes.float8_e5m2))
    assert r.profile["formats"] == {"in": "e4m3", "b": "e5m2", "out": "f32"}
    named = fpconform.probe("emu:hopper", "e4m3", "f32", b_format="e5m2", cases=2000)
    assert named and named.b_format == "e5m2"
    with pytest.raises(ValueError, match="b_format"):
        fpconform.probe(mixed_chain, "e4m3", "f32", b_format="f17", cases=10)


def test_progress_is_reported():
    stages = []
    fpconform.probe(fma_chain, "e4m3", "f32", cases=100, progress=lambda s, d: stages.append(s))
    assert "probe" in stages and "validate" in stages


def test_what_the_callable_raises_reaches_the_caller():
    def broken(a, b, c):
        raise ZeroDivisionError("inside the kernel")
    with pytest.raises(ZeroDivisionError, match="inside the kernel"):
        fpconform.probe(broken, "e4m3", "f32", cases=100)


@pytest.mark.parametrize("fn,match", [
    (lambda a, b, c: fma_chain(a, b, c).astype(np.float64), "fn: answered float64"),
    (lambda a, b, c: fma_chain(a, b, c)[:-1], "fn: answered shape"),
    (lambda a, b, c: "nothing", "fn: answered"),
])
def test_wrong_answers_are_named(fn, match):
    with pytest.raises((TypeError, ValueError), match=match):
        fpconform.probe(fn, "e4m3", "f32", cases=100)


@pytest.mark.parametrize("kwargs,match", [
    ({"in_format": None}, "in_format"),
    ({"out_format": "custom:e3m3"}, "out_format"),
    ({"kind": "conv"}, "kind"),
    ({"position": (0, 0)}, "position"),
    ({"kind": "gemm", "position": (0, 99), "gemm_rows": 8}, "position"),
    ({"max_k": 16}, "max_k"),
    ({"cases": -1}, "cases"),
])
def test_bad_arguments_name_themselves(kwargs, match):
    args = {"in_format": "e4m3", "out_format": "f32", **kwargs}
    with pytest.raises((TypeError, ValueError), match=match):
        fpconform.probe(fma_chain, **args)


def test_an_unknown_target_is_named():
    with pytest.raises(ValueError, match="fn"):
        fpconform.probe("gpu:nothing")
