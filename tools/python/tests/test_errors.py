"""Bad arguments are Python exceptions naming the argument, never a crash."""
import numpy as np
import pytest

import fpconform


def test_unknown_formats_and_modes_name_the_argument():
    x = np.zeros(4, dtype=np.float32)
    with pytest.raises(ValueError, match="^to: "):
        fpconform.convert(x, to="e9m99")
    with pytest.raises(ValueError, match="rounding"):
        fpconform.convert(x, to="e4m3", rounding="nearest-ish")
    with pytest.raises(ValueError, match="saturation"):
        fpconform.convert(x, to="e4m3", saturation="clip")
    with pytest.raises(ValueError, match="profile"):
        fpconform.convert(x, to="e4m3", profile="nobody")
    with pytest.raises(ValueError, match="stochastic_bits"):
        fpconform.convert(x, to="bf16", rounding="sr")
    with pytest.raises(TypeError, match="to: "):
        fpconform.convert(x, to=3)


def test_raw_codes_need_their_format_and_must_fit_it():
    with pytest.raises(TypeError, match="from_format"):
        fpconform.convert(np.array([1, 2], dtype=np.uint8), to="f32")
    with pytest.raises(ValueError, match="above e4m3"):
        fpconform.decode(np.array([0x1FF], dtype=np.uint16), "e4m3")
    with pytest.raises(TypeError, match="from_format"):
        fpconform.convert(np.zeros(2, np.float32), to="e4m3", from_format="f32")


def test_gemm_shapes_and_models():
    a = np.zeros((2, 3), np.float32)
    with pytest.raises(ValueError, match="^b: "):
        fpconform.gemm(a, np.zeros((4, 2), np.float32), model="fp32-sequential")
    with pytest.raises(ValueError, match="model"):
        fpconform.gemm(a, np.zeros((3, 2), np.float32), model="no-such-unit")
    with pytest.raises(ValueError, match="^c: "):
        fpconform.gemm(a, np.zeros((3, 2), np.float32), np.zeros((3, 3), np.float32),
                       model="fp32-sequential")
    with pytest.raises(ValueError, match="split_k"):
        fpconform.gemm(a, np.zeros((3, 2), np.float32), model="fp32-sequential", split_k=0)


def test_eval_arity_and_operation():
    one = np.array([0x3C00], np.uint16)
    with pytest.raises(ValueError, match="^op: "):
        fpconform.eval("pow", "f16", one, one)
    with pytest.raises(ValueError, match="operands"):
        fpconform.eval("add", "f16", one)
