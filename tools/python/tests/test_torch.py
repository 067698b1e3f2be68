"""CPU torch tensors in, read by their dtype (torch is optional: skipped where it is absent)."""
import numpy as np
import pytest

import fpconform

torch = pytest.importorskip("torch", reason="torch is not installed (optional)")


def test_tensors_convert_like_their_numpy_arrays():
    x = torch.randn(1000, dtype=torch.float32)
    assert np.array_equal(fpconform.convert(x, to="e4m3"), fpconform.convert(x.numpy(), to="e4m3"))
    bf = x.to(torch.bfloat16)
    codes = fpconform.convert(bf, to="f32")  # exact
    assert np.array_equal(codes.view(np.float32), bf.to(torch.float32).numpy())
    # torch's own bf16 rounding (RNE) is fpconform's.
    assert np.array_equal(fpconform.convert(x, to="bf16"), bf.view(torch.int16).numpy().view(np.uint16))


def test_probe_hands_tensors_to_a_torch_callable():
    def chain(a, b, c):  # the FMA chain of test_probe, in torch
        acc = c.clone()
        for i in range(a.shape[1]):
            acc = acc + a[:, i].to(torch.float32) * b[:, i].to(torch.float32)
        return acc
    r = fpconform.probe(chain, "e4m3", "f32", arrays="torch", cases=5000)
    assert r.validated == 5000 and r.deterministic
    if not r:
        # torch 2.15 answers NaN inputs with other NaN bits than numpy's chain (which the model
        # family reproduces, test_probe.py); every case the model misses holds an e4m3 NaN.
        nan = {0x7F, 0xFF}
        assert r.counterexamples
        for case in r.counterexamples:
            assert nan & set(case["a"] + case["b"]), case


@pytest.mark.slow
def test_torch_matmul_is_characterized():
    # torch.matmul on CPU tensors at one position of a 16 x 16 product (as numpy.matmul's test).
    r = fpconform.probe(lambda A, B, C: A @ B + C, "f32", "f32", kind="gemm", gemm_rows=16,
                        position=(0, 0), arrays="torch", cases=2000)
    print(r)
    assert r.deterministic
    assert {e["probe"] for e in r.evidence} >= {"sanity", "summation order"}
