"""fpconform.probe: characterize a black box that computes dot products or a GEMM."""

from __future__ import annotations

import inspect as _inspect

import numpy as _np

from ._arrays import _as_array, _c, as_ml_dtypes, format_info

_VERSION = _c.__version__


class Characterization:
    """What ``probe`` found: the bit-exact ``model`` (a staged unit text that ``gemm`` and
    ``validate`` take), the ``verdict``, one ``evidence`` entry per probe (finding, why the
    outputs prove it, the cases), and how the model did on fresh cases (``agreed`` of
    ``validated``). True when the model agrees on every case and the unit is deterministic."""

    def __init__(self, c):
        self._c = c
        for name in ("target", "in_format", "b_format", "out_format", "model", "verdict", "validated",
                     "agreed", "expressible", "deterministic", "queries", "seconds"):
            setattr(self, name, getattr(c, name))
        self.evidence = c.evidence
        self.counterexamples = c.counterexamples

    def __bool__(self):
        return self.expressible and self.deterministic and self.agreed == self.validated

    def _formats(self):
        b = "" if self.b_format == self.in_format else f" x {self.b_format}"
        return f"{self.in_format}{b} -> {self.out_format}"

    def __repr__(self):
        return (f"<Characterization {self.target} {self._formats()}: "
                f"{self.model} agrees on {self.agreed}/{self.validated}>")

    def __str__(self):
        lines = [f"target {self.target}: {self._formats()}"]
        lines += [f"  {e['probe']:<20} {e['finding']}" for e in self.evidence]
        lines += [self.verdict, f"{self.queries} queries, {self.seconds:.1f} s",
                  f"model {self.model} agrees on {self.agreed}/{self.validated} cases"]
        return "\n".join(lines)

    @property
    def profile(self) -> dict:
        """The device profile (schema fpconform.device-profile/1), as ``fpconform probe
        --out-dir`` writes it."""
        import json
        return json.loads(self._c.profile_json(_VERSION))

    def markdown(self) -> str:
        return self._c.markdown(_VERSION)

    def write(self, directory: str) -> str:
        """Writes <directory>/<stem>.json and .md atomically; returns the JSON's path."""
        return self._c.write(str(directory), _VERSION)


class _Dtype:
    """Codes of one format to arrays of the dtype that holds it, and back."""

    def __init__(self, fmt: str, name: str, torch_arrays: bool = False):
        self.torch = None
        if torch_arrays:
            import torch
            names = {"f64": "float64", "f32": "float32", "f16": "float16", "bf16": "bfloat16",
                     "e4m3": "float8_e4m3fn", "e5m2": "float8_e5m2", "ue8m0": "float8_e8m0fnu"}
            if fmt not in names or not hasattr(torch, names[fmt]):
                raise ValueError(f"{name}: no torch dtype holds {fmt}")
            self.torch = getattr(torch, names[fmt])
        try:
            self.dtype = as_ml_dtypes(_np.zeros(1, _np.uint64), fmt).dtype
        except ValueError:
            raise ValueError(f"{name}: no numpy or ml_dtypes dtype holds {fmt}; a callable needs "
                             f"values of a dtype") from None
        self.fmt = fmt
        self.codes = _np.dtype(f"u{self.dtype.itemsize}")

    def values(self, codes):
        if self.torch is not None:  # torch reads signed integers (and uint8) from numpy
            import torch
            signed = {1: "u1", 2: "i2", 4: "i4", 8: "i8"}[self.codes.itemsize]
            raw = _np.ascontiguousarray(codes.astype(self.codes).view(signed))
            return torch.from_numpy(raw).view(self.torch)
        return codes.astype(self.codes).view(self.dtype)

    def answer(self, d, shape):
        """The callable's answer as uint64 codes; its dtype must be this one."""
        if hasattr(d, "detach"):  # a torch tensor: its codes, by its dtype
            if self.torch is not None and d.dtype != self.torch:
                raise TypeError(f"fn: answered {d.dtype} values, but out_format is {self.fmt} "
                                f"({self.torch}); round them yourself if that is what the unit does")
            codes, _ = _as_array(d, "fn")
            d = codes.view(self.dtype) if codes.dtype.kind in "ui" else codes
        d = _np.asarray(d)
        if d.dtype != self.dtype:
            raise TypeError(f"fn: answered {d.dtype} values, but out_format is {self.fmt} "
                            f"({self.dtype}); round them yourself if that is what the unit does")
        if tuple(d.shape) != tuple(shape):
            raise ValueError(f"fn: answered shape {tuple(d.shape)}, expected {tuple(shape)}")
        return _np.ascontiguousarray(d).view(self.codes).astype(_np.uint64).reshape(-1)


def probe(fn, in_format: str | None = None, out_format: str | None = None, *, kind: str = "dot",
          gemm_rows: int = 256, position=None, arrays: str = "numpy", cases: int = 100000, seed: int = 1, max_k: int = 64,
          order_k: int = 32, progress=None, b_format: str | None = None) -> Characterization:
    """Characterize a black box: the engine asks batches of dot products, ``fn`` answers, and
    probes, model synthesis, validation on ``cases`` fresh cases and the summation-order
    recovery find a bit-exact model or say why there is none.

    fn, kind="dot": ``fn(a, b, c) -> d`` with a, b (rows x k) of in_format and c (rows) of
    out_format; d[r] = a[r] . b[r] + c[r] as the unit computes it. b_format: b's format where it
    is not in_format (e4m3 x e5m2, fp6 x fp4).
    fn, kind="gemm": ``fn(A, B, C) -> D`` for A (m x k), B (k x m), C (m x m), D = A.B + C
    (m <= gemm_rows); the dot products are D's diagonal, off-diagonal C is zero. A GEMM whose
    answer for one element depends on where it sits (BLAS kernels with edge or interleaved
    paths) then reads as non-deterministic; position=(i, j) asks one dot product per call, at
    D[i, j] of a gemm_rows x gemm_rows product (other rows and columns zero).
    Arrays are numpy / ml_dtypes arrays of the formats' dtypes (float32, bfloat16,
    float8_e4m3fn, ...), or with arrays="torch" CPU torch tensors; the answer (either kind) must
    be of out_format's dtype.
    fn may also be a target the CLI's probe knows: "emu:hopper", "cpu:amx-bf16", ...
    progress: a callable(stage, detail) told of each stage.
    """
    opts = _c.ProbeOptions()
    for name, v in (("cases", cases), ("seed", seed), ("max_k", max_k), ("order_k", order_k),
                    ("gemm_rows", gemm_rows)):
        if isinstance(v, bool) or not isinstance(v, (int, _np.integer)) or v < 0:
            raise ValueError(f"{name}: a non-negative integer, got {v!r}")
    opts.cases, opts.seed, opts.max_k, opts.order_k = int(cases), int(seed), int(max_k), int(order_k)
    if progress is not None and not callable(progress):
        raise TypeError("progress: a callable(stage, detail)")
    if isinstance(fn, str):
        return Characterization(_c.probe_spec(fn, in_format, b_format, out_format, opts, progress))
    if not callable(fn):
        raise TypeError(f"fn: a callable or a target name, got {type(fn).__name__}")
    if in_format is None or out_format is None:
        raise ValueError(f"{'in_format' if in_format is None else 'out_format'}: a callable's "
                         f"formats must be given")
    in_format = format_info(in_format, "in_format")["name"]
    b_format = in_format if b_format is None else format_info(b_format, "b_format")["name"]
    out_format = format_info(out_format, "out_format")["name"]
    if arrays not in ("numpy", "torch"):
        raise ValueError(f"arrays: {arrays!r} is not 'numpy' or 'torch'")
    ins = _Dtype(in_format, "in_format", arrays == "torch")
    bs = _Dtype(b_format, "b_format", arrays == "torch")
    outs = _Dtype(out_format, "out_format", arrays == "torch")
    if kind not in ("dot", "gemm"):
        raise ValueError(f"kind: {kind!r} is not 'dot' or 'gemm'")
    if kind == "gemm" and gemm_rows < 1:
        raise ValueError("gemm_rows: at least 1")
    if position is not None:
        if kind != "gemm":
            raise ValueError("position: only for kind='gemm'")
        try:
            pi, pj = (int(v) for v in position)
        except (TypeError, ValueError):
            raise ValueError(f"position: a pair (row, column), got {position!r}") from None
        if not (0 <= pi < gemm_rows and 0 <= pj < gemm_rows):
            raise ValueError(f"position: {position!r} is outside a {gemm_rows}x{gemm_rows} D")

    def answer_dot(a, b, c):
        with _np.errstate(all="ignore"):
            d = fn(ins.values(a), bs.values(b), outs.values(c))
        return outs.answer(d, c.shape)

    def answer_at(a, b, c):
        m = gemm_rows
        k = a.shape[1]
        am = _np.zeros((m, k), dtype=_np.uint64)
        bm = _np.zeros((k, m), dtype=_np.uint64)
        cm = _np.zeros((m, m), dtype=_np.uint64)
        out = _np.empty(c.shape[0], dtype=_np.uint64)
        for r in range(c.shape[0]):
            am[pi], bm[:, pj], cm[pi, pj] = a[r], b[r], c[r]
            with _np.errstate(all="ignore"):
                d = fn(ins.values(am), bs.values(bm), outs.values(cm))
            out[r] = outs.answer(d, (m, m))[pi * m + pj]
        return out

    def answer_gemm(a, b, c):
        out = _np.empty(c.shape[0], dtype=_np.uint64)
        for lo in range(0, c.shape[0], gemm_rows):
            hi = min(lo + gemm_rows, c.shape[0])
            m = hi - lo
            cm = _np.zeros((m, m), dtype=_np.uint64)  # +0 off the diagonal
            cm[_np.arange(m), _np.arange(m)] = c[lo:hi]
            with _np.errstate(all="ignore"):
                d = fn(ins.values(a[lo:hi]), bs.values(b[lo:hi].T.copy()), outs.values(cm))
            out[lo:hi] = outs.answer(d, (m, m)).reshape(m, m)[_np.arange(m), _np.arange(m)]
        return out

    name = getattr(fn, "__qualname__", None) or type(fn).__name__
    module = getattr(fn, "__module__", None)
    spec = f"python:{module + '.' if module and module != '__main__' else ''}{name}"
    if kind == "gemm":
        spec += f"@gemm-rows={gemm_rows}"
        if position is not None:
            spec += f",position={pi}x{pj}"
    answer = answer_dot if kind == "dot" else answer_gemm if position is None else answer_at
    return Characterization(_c.probe_callable(answer, spec, in_format, b_format, out_format, opts,
                                              progress))
