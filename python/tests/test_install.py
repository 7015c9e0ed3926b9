"""`pip install ./python` works offline and the installed copy runs."""

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import symm
from helpers import solo_env
from symm._runtime import find_library

PACKAGE = Path(__file__).resolve().parents[1]


@pytest.mark.skipif("symm.world_size() != 1", reason="once, on one rank")
def test_pip_install_offline(tmp_path):
    # Builds from a copy: setuptools writes its build folders into the source.
    source = tmp_path / "src"
    shutil.copytree(PACKAGE, source, ignore=shutil.ignore_patterns(
        "tests", "build", "*.egg-info", "__pycache__", "lib"))
    (source / "symm" / "lib").mkdir()
    shutil.copy(Path(find_library("symm_runtime")).resolve(),
                source / "symm" / "lib" / "libsymm_runtime.so")
    target = tmp_path / "site"
    r = subprocess.run(
        [sys.executable, "-m", "pip", "install", "--no-index",
         "--no-build-isolation", "--no-deps", "--target", str(target),
         str(source)], capture_output=True, text=True, timeout=240)
    assert r.returncode == 0, r.stdout + r.stderr
    assert (target / "symm" / "lib" / "libsymm_runtime.so").is_file()
    # Only the installed copy's own library: no search path from this run.
    env = solo_env(PYTHONPATH=str(target), LD_LIBRARY_PATH="")
    for name in ("SYMM_LIBRARY_DIR", "SYMM_BUILD_DIR"):
        env.pop(name, None)
    r = subprocess.run(
        [sys.executable, "-c", "import symm\nsymm.init()\n"
         "x = symm.zeros(4, dtype='int32')\nprint(symm.__file__, x.sum())"],
        env=env, capture_output=True, text=True, cwd=tmp_path, timeout=60)
    assert r.returncode == 0, r.stderr
    assert r.stdout == f"{target / 'symm' / '__init__.py'} 0\n"
