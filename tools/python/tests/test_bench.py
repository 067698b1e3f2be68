"""The Python benchmark's form (its --smoke sizes say nothing about speed)."""
import os
import re
import subprocess
import sys
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[3] / "suites" / "bench" / "python" / "python_bench.py"
LINE = re.compile(r"^(\S+) ours=(\S+) (\S+) baseline=(\S+) (\S+) (\S+) ratio=(\S+) target=(\S+) "
                  r"(ok|SHORT)$")


def test_the_lines_follow_the_bench_grammar():
    out = subprocess.run([sys.executable, str(SCRIPT), "--smoke"], check=True, capture_output=True,
                         text=True, env=dict(os.environ)).stdout.splitlines()
    assert len(out) >= 4
    ok = 0
    for text in out[:-1]:
        m = LINE.match(text)
        assert m, text
        assert m[3] == m[6]  # one unit
        ratio, target = float(m[7]), float(m[8])
        assert abs(ratio - float(m[2]) / float(m[5])) <= 1e-3 * ratio
        assert (m[9] == "ok") == (ratio >= target)
        ok += m[9] == "ok"
    assert out[-1] == f"{ok} ok, {len(out) - 1 - ok} short"
    names = [LINE.match(t)[1] for t in out[:-1]]
    assert any(n.startswith("python_convert_") for n in names)
    assert any(n.startswith("python_gemm_") for n in names)
