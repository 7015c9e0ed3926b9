"""symm.compile: the driver's C API (libSymmCAPI.so) from Python."""

import ctypes
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import symm
from helpers import solo_env
from symm._runtime import find_library

HERE = Path(__file__).resolve().parent


def _has_compiler() -> bool:
    path = find_library("SymmCAPI")
    return bool(path) and hasattr(ctypes.CDLL(path), "symmCompileSource")


# ctest sets SYMM_TEST_COMPILE where the build has the compile entry point,
# so that these tests fail rather than skip when it goes missing.
needs_compiler = pytest.mark.skipif(
    not os.environ.get("SYMM_TEST_COMPILE") and not _has_compiler(),
    reason="this build has no compile entry point (symm-c/Driver.h)")

SCALE = (HERE / "kernels" / "kernels.mlir").read_text()


@needs_compiler
def test_compile_text_and_launch():
    m = symm.compile(SCALE)
    assert symm.default_target() == "host"
    x = symm.zeros(300, dtype="float32")
    buf = symm.zeros(8, dtype="int32")
    symm.barrier()  # every rank's buf is zeroed before peers store into it
    x[...] = np.arange(300)
    m["scale"](grid=2, block=256, args=[x, 300, -2.0])
    m["ring"](block=8, args=[buf])
    symm.barrier()
    np.testing.assert_array_equal(x, np.arange(300, dtype=np.float32) * -2)
    np.testing.assert_array_equal(buf, (symm.rank() - 1) % symm.world_size())
    symm.barrier()
    symm.free(buf)
    symm.free(x)
    m.close()


@needs_compiler
def test_compile_a_file_with_the_context_as_argument():
    m = symm.compile(HERE / "kernels" / "context_argument.mlir",
                     target="host", kernel_context="argument", opt_level=0)
    buf = symm.zeros(3, dtype="int32")
    symm.barrier()
    m["identify"](args=[buf])
    symm.barrier()
    n = symm.world_size()
    np.testing.assert_array_equal(buf, [symm.rank(), n,
                                        (symm.rank() - 1) % n])
    symm.barrier()
    symm.free(buf)


LIBRARY_USER = """
module attributes {gpu.container_module} {
  gpu.module @k {
    func.func private @symm_py_twice(f32) -> f32
    func.func private @symm_coll_flag(index, index, index) -> index
    gpu.func @twice(%x: memref<?xf32>) kernel {
      %i = gpu.thread_id x
      %v = memref.load %x[%i] : memref<?xf32>
      %w = func.call @symm_py_twice(%v) : (f32) -> f32
      memref.store %w, %x[%i] : memref<?xf32>
      gpu.return
    }
  }
}
"""


@needs_compiler
def test_compile_with_a_users_library():
    # The user's library (a file, or its folder) and the built-in one (the
    # signalling helpers' symm_coll_flag) are both searched.
    lib = HERE / "kernels" / "library_scale.mlir"
    for library in (lib, [str(lib.parent)]):
        m = symm.compile(LIBRARY_USER, library=library)
        x = symm.zeros(4, dtype="float32")
        x[...] = np.arange(4)
        m["twice"](block=4, args=[x])
        symm.synchronize()
        np.testing.assert_array_equal(x, np.arange(4, dtype=np.float32) * 2)
        symm.barrier()
        symm.free(x)
        m.close()


@needs_compiler
def test_compile_library_errors():
    with pytest.raises(symm.SymmError,
                       match=r"no device library defines @symm_py_twice"):
        symm.compile(LIBRARY_USER)
    with pytest.raises(symm.SymmError, match=r"library '/no/such' does not"):
        symm.compile(LIBRARY_USER, library="/no/such")


@needs_compiler
def test_compile_errors_have_locations():
    with pytest.raises(symm.SymmError, match=r"symm.compile: .*<python>:3:"):
        symm.compile("gpu.module @k {\n  gpu.func @f() kernel {\n"
                     "    %x = arith.bogus\n    gpu.return\n  }\n}\n")


@needs_compiler
def test_compile_a_whole_program_is_an_error():
    program = ("module {\n  func.func @main() -> i32 {\n"
               "    %c0 = arith.constant 0 : i32\n    return %c0 : i32\n"
               "  }\n}\n")
    with pytest.raises(symm.SymmError, match="--emit=exe"):
        symm.compile(program)


@needs_compiler
def test_compile_with_a_library_of_another_type(tmp_path):
    # The library's definition must have the declaration's type.
    (tmp_path / "twice.mlir").write_text(
        "gpu.module @l {\n  func.func @symm_py_twice(%x: f64) -> f64 {\n"
        "    return %x : f64\n  }\n}\n")
    with pytest.raises(symm.SymmError, match=r"@symm_py_twice is declared as "
                       r"'\(f32\) -> f32' but the device library "
                       r"'.*twice.mlir' defines it as '\(f64\) -> f64'"):
        symm.compile(LIBRARY_USER, library=tmp_path / "twice.mlir")


def test_compile_a_missing_file():
    with pytest.raises(FileNotFoundError, match="symm.compile: cannot read "
                       "'nowhere.mlir'"):
        symm.compile("nowhere.mlir")
    with pytest.raises(TypeError, match="symm.compile: source must be MLIR "
                       "text or a path, got int"):
        symm.compile(3)


def test_compile_without_the_compiler_library(tmp_path):
    # What a GPU machine without LLVM sees: the runtime, but no compiler.
    lib = tmp_path / "lib"
    lib.mkdir()
    runtime = Path(find_library("symm_runtime")).resolve()
    (lib / "libsymm_runtime.so").symlink_to(runtime)
    shutil.copytree(Path(symm.__file__).parent, tmp_path / "symm",
                    ignore=shutil.ignore_patterns("lib", "__pycache__"))
    env = solo_env(SYMM_LIBRARY_DIR=str(lib), SYMM_BUILD_DIR=str(tmp_path),
                   LD_LIBRARY_PATH="", PYTHONPATH=str(tmp_path))
    r = subprocess.run(
        [sys.executable, "-c",
         "import symm\nsymm.init()\ntry:\n    symm.compile('gpu.module @k {}')"
         "\nexcept symm.SymmError as e:\n    print(e)\n"],
        env=env, capture_output=True, text=True, cwd=tmp_path, timeout=60)
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith("symm.compile needs the Symm compiler library "
                               "libSymmCAPI.so, which is not on this machine")
    assert "symm.load(path)" in r.stdout


@needs_compiler
def test_compile_with_trace(tmp_path):
    # A one-rank job of its own: SYMM_TRACE is read when modules load and at
    # symm.finalize, which writes the trace.
    trace = tmp_path / "trace.json"
    code = (
        "import numpy as np, symm\n"
        "symm.init()\n"
        f"m = symm.compile({SCALE!r}, trace=True)\n"
        "x = symm.zeros(300, dtype='float32')\n"
        "m['scale'](grid=2, block=64, args=[x, 300, 2.0])\n"
        "symm.barrier()\n"
        "symm.free(x)\n"
        "m.close()\n"
        "symm.finalize()\n")
    r = subprocess.run([sys.executable, "-c", code],
                       env=solo_env(SYMM_TRACE=str(trace)),
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    import json
    events = json.loads(trace.read_text())["traceEvents"]
    kernels = [e for e in events if e.get("cat") == "kernel"]
    # Two blocks of two subgroups, each a begin and an end.
    assert [e["name"] for e in kernels] == ["scale"] * 8
    assert {e["ph"] for e in kernels} == {"B", "E"}
