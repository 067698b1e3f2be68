"""MMA-Sim (pip install mmasim, needs torch) as a peer: the same Hopper bf16 MMA on finite,
in-range inputs, bit for bit. Skipped where it does not import."""
import numpy as np
import pytest

import fpconform

torch = pytest.importorskip("torch", reason="torch is not installed (optional; mmasim needs it)")
mmasim = pytest.importorskip("mmasim.nv_ptx", reason="mmasim is not installed (optional)")


def codes(t):
    return t.contiguous().view(torch.int16).numpy().view(np.uint16)


def test_hopper_bf16_mma_agrees_with_mmasim():
    mma = mmasim.MMA("Hopper", "m16n8k16.f32.bf16.bf16.f32")
    gen = torch.Generator().manual_seed(4)
    for _ in range(100):
        scale = torch.exp2(torch.randint(-10, 10, (16, 16), generator=gen)).to(torch.bfloat16)
        a = torch.randn(16, 16, generator=gen).to(torch.bfloat16) * scale
        b = torch.randn(16, 8, generator=gen).to(torch.bfloat16)
        c = torch.randn(16, 8, generator=gen)
        theirs = mma(a, b, c).numpy().view(np.uint32)
        ours = fpconform.gemm(codes(a), codes(b), c.numpy(), model="hopper", in_format="bf16")
        assert np.array_equal(ours, theirs)
