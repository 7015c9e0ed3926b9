"""``symm.compile``: the compiler as a library call (``symm-c/Driver.h`` in
``libSymmCAPI.so``), then a load like :func:`symm.load`."""

from __future__ import annotations

import ctypes
import os
import tempfile
from typing import Optional, Sequence, Union

from ._core import require_init, state
from ._module import Module
from ._runtime import SymmError, find_library, library_dirs


class _Result(ctypes.Structure):
    _fields_ = [("binary", ctypes.c_void_p), ("binary_size", ctypes.c_size_t),
                ("manifest", ctypes.c_void_p), ("error", ctypes.c_void_p)]


_driver: Optional[ctypes.CDLL] = None


def _load_driver() -> ctypes.CDLL:
    global _driver
    if _driver is None:
        path = find_library("SymmCAPI")
        if path is None:
            raise SymmError(
                "symm.compile needs the Symm compiler library libSymmCAPI.so, "
                "which is not on this machine (searched " +
                ", ".join(str(d) for d in library_dirs()) + "); compile with "
                "symm-compile where Symm is built and load the result with "
                "symm.load(path)")
        lib = ctypes.CDLL(path)
        try:
            lib.symmCompileSource.argtypes = [
                ctypes.c_char_p, ctypes.c_size_t, ctypes.c_char_p,
                ctypes.POINTER(ctypes.c_char_p), ctypes.c_size_t,
                ctypes.POINTER(_Result)]
            lib.symmCompileSource.restype = ctypes.c_int
            lib.symmCompileResultDestroy.argtypes = [ctypes.POINTER(_Result)]
            lib.symmCompileResultDestroy.restype = None
        except AttributeError as e:
            raise SymmError(f"symm.compile: {path} has no compile entry point "
                            f"({e}); it is older than this package") from None
        _driver = lib
    return _driver


def default_target() -> str:
    """The target the current backend runs: ``host``, the GPU's ``sm_XY`` or
    its ``gfx`` architecture."""
    require_init("compile")
    if state.backend == "host":
        return "host"
    import torch
    from ._tensors import device_index
    device = device_index(state.backend)
    if state.backend in ("cuda", "nvshmem"):
        major, minor = torch.cuda.get_device_capability(device)
        return f"sm_{major}{minor}"
    return torch.cuda.get_device_properties(device).gcnArchName.split(":")[0]


def _source_text(source: Union[str, bytes, os.PathLike]) -> tuple:
    """(bytes, name): ``source`` is MLIR text, or the path of a file of it."""
    if isinstance(source, os.PathLike) or (
            isinstance(source, str) and "\n" not in source and
            source.endswith(".mlir")):
        path = os.fspath(source)
        try:
            with open(path, "rb") as f:
                return f.read(), path
        except OSError as e:
            raise FileNotFoundError(f"symm.compile: cannot read '{path}': "
                                    f"{e.strerror}") from None
    if isinstance(source, str):
        source = source.encode()
    if not isinstance(source, bytes):
        raise TypeError("symm.compile: source must be MLIR text or a path, "
                        f"got {type(source).__name__}")
    return source, "<python>"


def compile(source: Union[str, bytes, os.PathLike],
            target: Optional[str] = None, *, opt_level: int = -1,
            kernel_context: Optional[str] = None,
            check_ranks: bool = False, trace: bool = False,
            library: Sequence[Union[str, os.PathLike]] = ()) -> Module:
    """Compiles kernels (a module with ``gpu.module``s and no ``main``) and
    loads them on this rank.

    ``source``: MLIR text, or the path of a ``.mlir`` file. ``target``: None
    for the backend's own (``host``, the GPU's ``sm_XY`` or ``gfxNNN``), or
    any target ``symm-compile --target`` takes. ``opt_level``: 0..3, -1 for
    the default. ``kernel_context``: None/``"global"`` or ``"argument"``.
    ``trace``: the kernels record their events for the trace the runtime
    writes when ``SYMM_TRACE`` names a file (docs/Tracing.md).
    ``library``: device libraries (``.mlir`` files or folders) searched after
    the one installed with Symm (docs/Library.md).
    Compile errors raise :class:`SymmError` with the compiler's diagnostics
    (locations in ``source``)."""
    require_init("compile")
    text, name = _source_text(source)
    driver = _load_driver()
    # The same flags as symm-compile's: the driver parses and checks them.
    flags = [f"--target={target or default_target()}"]
    if opt_level != -1:
        flags.append(f"-O{opt_level}")
    if kernel_context is not None:
        flags.append(f"--kernel-context={kernel_context}")
    if check_ranks:
        flags.append("--check-ranks")
    if trace:
        flags.append("--trace")
    if isinstance(library, (str, os.PathLike)):
        library = [library]
    flags += [f"--library={os.fspath(p)}" for p in library]
    flag_array = (ctypes.c_char_p * len(flags))(*[f.encode() for f in flags])
    result = _Result()
    failed = driver.symmCompileSource(text, len(text), name.encode(),
                                      flag_array, len(flags),
                                      ctypes.byref(result))
    try:
        if failed:
            error = (ctypes.string_at(result.error).decode()
                     if result.error else "unknown error")
            raise SymmError(f"symm.compile: {error}")
        binary = ctypes.string_at(result.binary, result.binary_size)
        manifest = ctypes.string_at(result.manifest)
    finally:
        driver.symmCompileResultDestroy(ctypes.byref(result))
    # The runtime loads a module with its manifest from files (the manifest
    # says, for instance, whether the module has a context global to write).
    with tempfile.TemporaryDirectory(prefix="symm-compile-") as folder:
        path = os.path.join(folder, "module")
        with open(path, "wb") as f:
            f.write(binary)
        with open(path + ".json", "wb") as f:
            f.write(manifest)
        module = Module(path)
    module.path = f"compiled {name}"
    return module
