import os
import shutil

import pytest


@pytest.fixture(scope="session")
def cli():
    """The fpconform command this build made (FPCONFORM_CLI), else the one on PATH."""
    path = os.environ.get("FPCONFORM_CLI") or shutil.which("fpconform")
    if not path:
        pytest.skip("no fpconform command (set FPCONFORM_CLI)")
    return path


def pytest_configure(config):
    config.addinivalue_line("markers", "slow: minutes; run by the CTest test python_long_tests "
                                       "(label exhaustive), not by the default run")
