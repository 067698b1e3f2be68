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
