"""The Python module's tests (tools/test.sh runs them through ctest, test python_api):
the module of the build (PYTHONPATH=<build>/python) against the build's command line
(ARBOLITO_CLI)."""
import os
import pathlib
import subprocess

import pytest

SOURCE_DIR = pathlib.Path(__file__).resolve().parents[2]
EXAMPLES = SOURCE_DIR / "examples"


@pytest.fixture(scope="session")
def cli():
    """Runs the build's arbolito with `args`; returns the CompletedProcess."""
    exe = os.environ.get("ARBOLITO_CLI")
    if not exe:
        pytest.fail("ARBOLITO_CLI names no arbolito binary (ctest sets it)")

    def run(*args, **kw):
        return subprocess.run([exe, *map(str, args)], capture_output=True, text=True, timeout=300, **kw)

    return run


@pytest.fixture(scope="session")
def examples():
    return EXAMPLES
