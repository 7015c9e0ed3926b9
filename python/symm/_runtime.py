"""ctypes binding of the Symm runtime's C API (``symm/runtime.h``,
``symm/collectives.h``).

The shared library ``libsymm_runtime.so`` is looked up, in order, in
``$SYMM_LIBRARY_DIR``, in ``symm/lib/`` beside this package (a bundled copy),
in a build tree (``$SYMM_BUILD_DIR``, then the source checkout's ``build``)
and finally by the system's dynamic loader (an installed runtime).
"""

from __future__ import annotations

import ctypes
import os
from pathlib import Path
from typing import List, Optional

_c_void_pp = ctypes.POINTER(ctypes.c_void_p)
_c_uint3 = ctypes.c_uint * 3

SUCCESS = 0  # SYMM_SUCCESS: the only status the binding tells apart


class SymmError(RuntimeError):
    """A runtime call failed. The message is the runtime's own, naming the
    rank and the cause; ``status`` is the runtime's name for the status (for
    example ``"timeout"``), or None for errors found before the call."""

    def __init__(self, message: str, status: Optional[str] = None) -> None:
        super().__init__(message)
        self.status = status


def library_dirs() -> List[Path]:
    """The folders searched for the Symm shared libraries, in order."""
    dirs = []
    env = os.environ.get("SYMM_LIBRARY_DIR")
    if env:
        dirs.append(Path(env))
    here = Path(__file__).resolve().parent
    dirs.append(here / "lib")
    # Build trees: SYMM_BUILD_DIR's, then the source tree's own; the compiler
    # library is built into lib/CAPI.
    builds = [Path(os.environ["SYMM_BUILD_DIR"])] \
        if os.environ.get("SYMM_BUILD_DIR") else []
    builds.append(here.parent.parent / "build")
    for build in builds:
        dirs += [build / "lib", build / "lib" / "CAPI"]
    return dirs


def find_library(name: str) -> Optional[str]:
    """The path of ``lib<name>.so`` in :func:`library_dirs`, else the bare
    file name for the dynamic loader's own search, or None when that fails
    too."""
    file = f"lib{name}.so"
    for d in library_dirs():
        if (d / file).is_file():
            return str(d / file)
    try:
        ctypes.CDLL(file)
    except OSError:
        return None
    return file


def _declare(lib: ctypes.CDLL, name: str, restype, *argtypes) -> None:
    fn = getattr(lib, name)
    fn.restype = restype
    fn.argtypes = list(argtypes)


def _load() -> ctypes.CDLL:
    path = find_library("symm_runtime")
    if path is None:
        searched = ", ".join(str(d) for d in library_dirs())
        raise ImportError(
            "symm: cannot find libsymm_runtime.so (searched " + searched +
            " and the system's library path); build Symm (scripts/setup.sh) "
            "or set SYMM_LIBRARY_DIR to the folder that holds it")
    # Global: host-target modules resolve the runtime's entry points (such as
    # the thread-id queries) in the process's global scope when loaded.
    lib = ctypes.CDLL(path, mode=ctypes.RTLD_GLOBAL)
    status, i = ctypes.c_int, ctypes.c_int
    vp, sz = ctypes.c_void_p, ctypes.c_size_t
    _declare(lib, "symm_init", status)
    _declare(lib, "symm_finalize", status)
    _declare(lib, "symm_last_error", ctypes.c_char_p)
    _declare(lib, "symm_status_string", ctypes.c_char_p, status)
    _declare(lib, "symm_rank", i)
    _declare(lib, "symm_world_size", i)
    _declare(lib, "symm_backend_name", ctypes.c_char_p)
    _declare(lib, "symm_malloc", status, sz, _c_void_pp)
    _declare(lib, "symm_free", status, vp)
    _declare(lib, "symm_barrier", status)
    _declare(lib, "symm_heap_base", status, i, _c_void_pp)
    _declare(lib, "symm_heap_size", sz)
    _declare(lib, "symm_heap_free", sz)
    _declare(lib, "symm_translate", status, vp, i, _c_void_pp)
    _declare(lib, "symm_get_kernel_context", status, vp)
    _declare(lib, "symm_module_load_file", status, ctypes.c_char_p, _c_void_pp)
    _declare(lib, "symm_module_unload", status, vp)
    _declare(lib, "symm_launch", status, vp, ctypes.c_char_p, _c_uint3,
             _c_uint3, sz, vp, _c_void_pp, sz)
    _declare(lib, "symm_kernel_max_resident", status, vp, ctypes.c_char_p,
             ctypes.c_uint, sz, ctypes.POINTER(ctypes.c_int64))
    _declare(lib, "symm_device_multiprocessors", status,
             ctypes.POINTER(ctypes.c_int))
    _declare(lib, "symm_stream_create", status, _c_void_pp)
    _declare(lib, "symm_stream_destroy", status, vp)
    _declare(lib, "symm_stream_synchronize", status, vp)
    _declare(lib, "symm_stream_begin_capture", status, vp)
    _declare(lib, "symm_stream_end_capture", status, vp, _c_void_pp)
    _declare(lib, "symm_graph_launch", status, vp, vp)
    _declare(lib, "symm_graph_destroy", status, vp)
    _declare(lib, "symm_synchronize", status)
    _declare(lib, "symm_device_malloc", status, sz, _c_void_pp)
    _declare(lib, "symm_device_free", status, vp)
    _declare(lib, "symm_memcpy", status, vp, vp, sz)
    _declare(lib, "symm_tensor_map_create", status, vp, i,
             ctypes.POINTER(ctypes.c_uint64), ctypes.POINTER(ctypes.c_uint64),
             ctypes.POINTER(ctypes.c_uint32), sz, i, _c_void_pp)
    # Collectives: (send, recv, count, dtype[, op | root], stream).
    _declare(lib, "symm_all_gather", status, vp, vp, sz, i, vp)
    _declare(lib, "symm_all_reduce", status, vp, vp, sz, i, i, vp)
    _declare(lib, "symm_reduce_scatter", status, vp, vp, sz, i, i, vp)
    _declare(lib, "symm_all_to_all", status, vp, vp, sz, i, vp)
    _declare(lib, "symm_broadcast", status, vp, vp, sz, i, i, vp)
    _declare(lib, "symm_dtype_size", sz, i)
    _declare(lib, "symm_dtype_name", ctypes.c_char_p, i)
    return lib


lib = _load()


def check(status: int) -> None:
    """Raises :class:`SymmError` with the runtime's message for a failed
    status."""
    if status == SUCCESS:
        return
    name = lib.symm_status_string(status)
    message = lib.symm_last_error()
    raise SymmError(message.decode() if message else "symm: unknown error",
                    name.decode() if name else None)
