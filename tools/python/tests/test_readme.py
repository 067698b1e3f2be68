"""The README's Python examples run, and the results their comments state are what they return:
`expr  # [v, ...]` (the values of an array) and `expr  # == literal`."""
import ast
import os
import re

import numpy as np

README = os.path.join(os.path.dirname(__file__), "..", "..", "..", "README.md")


def python_examples():
    text = open(README, encoding="utf-8").read()
    section = text[text.index("## Python"):]
    section = section[:section.index("\n## ", 1)]
    return re.findall(r"```python\n(.*?)```", section, re.S)


def test_readme_examples_run_and_their_comments_hold(capsys):
    blocks = python_examples()
    assert len(blocks) >= 3
    scope = {}
    values = stated = 0
    for code in blocks:
        exec(compile(code, "README.md", "exec"), scope)  # noqa: S102 - our own README
        for line in code.splitlines():
            m = re.match(r"(\S.*?)\s+# \[([-0-9., ]+)\]", line)
            if m:
                got = np.asarray(eval(m.group(1), scope), dtype=np.float64)  # noqa: S307
                want = np.array([float(v) for v in m.group(2).split(",")])
                assert np.array_equal(got, want), (line, got)
                values += 1
            m = re.match(r"(\S.*?)\s+# == ('[^']*'|\S+)", line)  # a quoted literal may hold spaces
            if m:
                want = ast.literal_eval(m.group(2).rstrip(":"))
                assert eval(m.group(1), scope) == want, line  # noqa: S307
                stated += 1
    assert values >= 3 and stated >= 3
    assert scope["d"].shape == (128, 64)
