"""pytest helpers: a kernel's output checked against a model and the exact result."""

from __future__ import annotations

from . import validate


def assert_matches(d, a, b, c=None, *, model: str | None = None, explain: int = 3, **options):
    """Raises AssertionError unless d is what ``validate`` accepts (bit-exact to the model, or
    within max_ulp= / max_rel= / tolerance="model"). The message is the validation summary
    (counts, ulp histogram, the worst elements) and the first `explain` worst elements shown
    three ways: kernel, model, exact."""
    r = validate(d, a, b, c, model=model, **options)
    if r.passed:
        return r
    lines = [r.text.rstrip()]
    for e in r.worst()[:explain]:
        lines.append(r.explain(e["row"], e["col"]).rstrip())
    raise AssertionError("\n".join(lines))
