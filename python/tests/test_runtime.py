"""Lifecycle, queries, symmetric allocation, peer views and dtypes."""

import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import symm
from helpers import solo_env

# Every dtype but bfloat16, which needs ml_dtypes (test_bfloat16_*).
PLAIN = [d for d in symm.dtypes if d != "bfloat16"]


def test_queries():
    symm.init()  # a second call is a no-op
    assert symm.is_initialized()
    n = symm.world_size()
    # Set by symm-run, torchrun or Open MPI's mpirun.
    expected = (os.environ.get("SYMM_WORLD_SIZE") or
                os.environ.get("WORLD_SIZE") or
                os.environ.get("OMPI_COMM_WORLD_SIZE", "1"))
    assert n == int(expected)
    assert 0 <= symm.rank() < n
    assert symm.backend() == "host"


@pytest.mark.parametrize("dtype", PLAIN)
def test_round_trip_through_peer(dtype):
    me, n = symm.rank(), symm.world_size()
    x = symm.empty((3, 5), dtype=dtype)
    assert isinstance(x, np.ndarray)
    assert x.shape == (3, 5) and x.dtype == np.dtype(dtype)
    values = (np.arange(15).reshape(3, 5) + me) % 2 if dtype == "bool" else \
        np.arange(15).reshape(3, 5) * (me + 1)
    x[...] = values.astype(dtype)
    symm.barrier()
    for r in range(n):
        p = symm.peer(x, r)
        assert p.shape == x.shape and p.dtype == x.dtype
        want = (np.arange(15).reshape(3, 5) + r) % 2 if dtype == "bool" else \
            np.arange(15).reshape(3, 5) * (r + 1)
        np.testing.assert_array_equal(p, want.astype(dtype))
    symm.barrier()
    symm.free(x)


def test_zeros_and_writes_to_peers():
    me, n = symm.rank(), symm.world_size()
    x = symm.zeros(n, dtype="int64")
    assert not x.any()
    symm.barrier()
    # Every rank writes its rank into slot `me` of every peer's copy.
    for r in range(n):
        symm.peer(x, r)[me] = me + 10
    symm.barrier()
    np.testing.assert_array_equal(x, np.arange(n) + 10)
    symm.barrier()
    symm.free(x)


def test_peer_of_a_strided_view():
    x = symm.zeros((4, 6), dtype="float32")
    x[...] = np.arange(24).reshape(4, 6) + 100 * symm.rank()
    symm.barrier()
    r = (symm.rank() + 1) % symm.world_size()
    view = x[1:, ::-2]
    p = symm.peer(view, r)
    assert p.strides == view.strides
    np.testing.assert_array_equal(
        p, (np.arange(24).reshape(4, 6) + 100 * r)[1:, ::-2])
    symm.barrier()
    symm.free(x)


def test_free_returns_the_memory_and_zero_size():
    before = symm.heap_free()
    x = symm.empty(0, dtype="float64")
    assert x.shape == (0,)
    y = symm.empty([1 << 16], dtype="int8")
    assert symm.heap_free() < before
    symm.free(y)
    symm.free(x)
    assert symm.heap_free() == before


def test_synchronize_and_streams():
    symm.synchronize()
    s = symm.Stream()
    s.synchronize()
    s.close()
    s.close()  # closing twice is harmless


def test_bfloat16():
    try:
        import ml_dtypes  # noqa: F401
    except ImportError:
        with pytest.raises(TypeError, match="bfloat16 .* ml_dtypes"):
            symm.empty(4, dtype="bfloat16")
        return
    x = symm.empty(4, dtype="bfloat16")
    x[...] = [1.5, -2, 3.25, 0.0078125]
    symm.barrier()
    np.testing.assert_array_equal(symm.peer(x, 0).astype(np.float32),
                                  [1.5, -2, 3.25, 0.0078125])
    symm.barrier()
    symm.free(x)


def _python(code: str) -> subprocess.CompletedProcess:
    """A one-rank job of its own (none of this job's rank variables)."""
    return subprocess.run([sys.executable, "-c", code], env=solo_env(),
                          capture_output=True, text=True, timeout=60)


def test_lifecycle_in_a_process_of_its_own():
    # Before init, after finalize, and finalize at exit.
    r = _python(
        "import symm\n"
        "for f in (symm.rank, symm.world_size, symm.barrier, symm.finalize):\n"
        "    try:\n"
        "        f()\n"
        "    except symm.SymmError as e:\n"
        "        print(e)\n"
        "symm.init(); print(symm.rank(), symm.world_size())\n"
        "symm.finalize()\n"
        "try:\n"
        "    symm.empty(4)\n"
        "except symm.SymmError as e:\n"
        "    print(e)\n"
        "symm.init(); x = symm.zeros(4)\n")
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines() == [
        "symm.rank: call symm.init() first",
        "symm.world_size: call symm.init() first",
        "symm.barrier: call symm.init() first",
        "symm.finalize: call symm.init() first",
        "0 1",
        "symm.empty: call symm.init() first",
    ]


def test_arrays_made_before_finalize_raise_instead_of_reading_it():
    # The heap is unmapped: reading it killed the rank with SIGSEGV.
    r = _python(
        "import symm\n"
        "symm.init()\n"
        "x = symm.zeros((2, 3), dtype='int32')\n"
        "row = x[1]\n"
        "symm.finalize()\n"
        "for use in (lambda: x[0, 0], lambda: row.sum(), lambda: print(x)):\n"
        "    try:\n"
        "        use()\n"
        "    except ValueError as e:\n"
        "        print(e)\n")
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines() == [
        "symm: the int32 array of shape (2, 3) from symm.zeros belongs to a "
        "symmetric heap that symm.finalize released"] * 3


def test_without_numpy_import_says_what_symm_needs():
    # An interpreter without NumPy (None in sys.modules: its import fails).
    r = _python("import sys\nsys.modules['numpy'] = None\nimport symm\n")
    assert r.returncode != 0
    last = r.stderr.strip().splitlines()[-1]
    assert last.startswith("ImportError: symm needs NumPy, which this Python "
                           f"({sys.executable}) cannot import"), r.stderr
    assert "scripts/setup.sh" in last and "python3-numpy" in last
    assert "pip install numpy" in last


def test_runtime_errors_name_the_rank():
    r = _python(
        "import os, symm\n"
        "os.environ['SYMM_HEAP_SIZE'] = 'lots'\n"
        "try:\n"
        "    symm.init()\n"
        "except symm.SymmError as e:\n"
        "    print(e.status, '|', e, symm.is_initialized())\n"
        "os.environ['SYMM_HEAP_SIZE'] = '1M'\n"
        "symm.init()\n"
        "try:\n"
        "    symm.empty(1 << 20, dtype='float64')\n"
        "except symm.SymmError as e:\n"
        "    print(e.status, '|', e)\n")
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert lines[0].startswith("invalid argument | rank 0: SYMM_HEAP_SIZE"), \
        lines[0]
    assert lines[0].endswith(" False")
    assert lines[1].startswith("out of heap | rank 0: symm_malloc of 8388608 "
                               "bytes does not fit"), lines[1]


def test_a_missing_runtime_library_is_a_clear_import_error(tmp_path):
    # A copy of the package with no build tree beside it.
    shutil.copytree(Path(symm.__file__).parent, tmp_path / "symm",
                    ignore=shutil.ignore_patterns("lib", "__pycache__"))
    r = subprocess.run(
        [sys.executable, "-c", "import symm"],
        env=solo_env(SYMM_LIBRARY_DIR=str(tmp_path),
                     SYMM_BUILD_DIR=str(tmp_path), LD_LIBRARY_PATH="",
                     PYTHONPATH=str(tmp_path)),
        capture_output=True, text=True, cwd=tmp_path, timeout=60)
    assert r.returncode != 0
    assert "symm: cannot find libsymm_runtime.so" in r.stderr, r.stderr
