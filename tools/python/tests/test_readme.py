"""The README's Python example runs, and the results its comments state are what it returns."""
import os
import re

import numpy as np

import fpconform

README = os.path.join(os.path.dirname(__file__), "..", "..", "..", "README.md")


def python_example():
    text = open(README, encoding="utf-8").read()
    section = text[text.index("## Python"):]
    return re.search(r"```python\n(.*?)```", section, re.S).group(1)


def test_readme_example_runs_and_its_comments_hold():
    code = python_example()
    scope = {}
    exec(compile(code, "README.md", "exec"), scope)  # noqa: S102 - our own README
    checked = 0
    for line in code.splitlines():
        m = re.match(r"(fpconform\.\w+\(.*\))\s+# \[([-0-9., ]+)\]", line)
        if not m:
            continue
        got = np.asarray(eval(m.group(1), scope), dtype=np.float64)  # noqa: S307
        want = np.array([float(v) for v in m.group(2).split(",")])
        assert np.array_equal(got, want), (line, got)
        checked += 1
    assert checked >= 3
    assert scope["d"].shape == (64, 32)
