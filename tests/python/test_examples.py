"""examples/python/ run as a user runs them (smaller where they take an argument for it)."""
import os
import subprocess
import sys

import pytest

import arbolito

from conftest import SOURCE_DIR


@pytest.mark.parametrize("script,args,made", [
    ("ring.py", ["-o", "ring.png", "--solver", "cpu"], "ring.png"),
    ("weight_sweep.py", ["-o", "sweep.png", "--points", "8"], "sweep.png"),
    ("compare_solvers.py", ["--solvers", "cpu,omp"], None),
])
def test_example_runs(tmp_path, script, args, made):
    # The arbolito these tests import, wherever the scripts run from.
    env = dict(os.environ, MPLBACKEND="Agg", PYTHONPATH=os.path.dirname(os.path.dirname(arbolito.__file__)))
    p = subprocess.run([sys.executable, str(SOURCE_DIR / "examples" / "python" / script), *args], cwd=tmp_path,
                       capture_output=True, text=True, timeout=300, env=env)
    assert p.returncode == 0, p.stderr
    if made:
        assert (tmp_path / made).stat().st_size > 0
    else:
        assert "agree" in p.stdout
