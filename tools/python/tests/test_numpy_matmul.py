"""numpy.matmul on float32 (the BLAS under numpy) characterized as a black box. Minutes: marked
slow (CTest python_long_tests, label exhaustive). What it found on each CPU is written up under
reports/devices/<cpu>/numpy-matmul-f32.md."""
import numpy as np
import pytest

import fpconform

ROWS, POSITION = 16, (0, 0)


def blas_gemm(a, b, c):
    return a @ b + c


def at_position(a_row, b_col, c):
    """numpy's answer for one dot product asked at POSITION of a ROWS x ROWS product."""
    i, j = POSITION
    A = np.zeros((ROWS, len(a_row)), np.float32)
    B = np.zeros((len(b_col), ROWS), np.float32)
    C = np.zeros((ROWS, ROWS), np.float32)
    A[i], B[:, j], C[i, j] = a_row, b_col, c
    with np.errstate(all="ignore"):
        return blas_gemm(A, B, C)[i, j]


@pytest.mark.slow
def test_numpy_matmul_is_characterized_and_its_evidence_is_real():
    r = fpconform.probe(blas_gemm, "f32", "f32", kind="gemm", gemm_rows=ROWS, position=POSITION,
                        cases=2000)
    print(r)
    found = {e["probe"]: e["finding"] for e in r.evidence}
    assert found["sanity"] == "computes exact small dot products"
    assert r.deterministic
    assert "summation order" in found
    u32 = lambda v: np.uint32(np.float32(v).view(np.uint32))  # noqa: E731
    if r:
        # The model reproduces numpy on fresh cases at that position.
        rng = np.random.default_rng(9)
        for _ in range(200):
            a = rng.standard_normal(48).astype(np.float32)
            b = rng.standard_normal(48).astype(np.float32)
            ours = fpconform.gemm(a[None, :], b[:, None], model=r.model)[0, 0]
            assert ours == u32(at_position(a, b, np.float32(0)))
        return
    assert r.counterexamples
    for case in r.counterexamples[:20]:
        a = np.array(case["a"], np.uint32).view(np.float32)
        b = np.array(case["b"], np.uint32).view(np.float32)
        c = np.array([case["c"]], np.uint32).view(np.float32)[0]
        assert u32(at_position(a, b, c)) == case["d"]  # numpy answers the same again
        model = fpconform.gemm(a[None, :], b[:, None], np.array([[case["c"]]], np.uint32),
                               model=r.model)[0, 0]
        assert model != case["d"]  # and the model really disagrees
