"""The package's docstring examples run as written."""
import doctest

import fpconform


def test_docstring_examples():
    failures, tried = doctest.testmod(fpconform, verbose=False, report=True)
    assert tried > 0
    assert failures == 0
