"""Loaded modules and their kernels: arguments are checked against the
manifest the compiler wrote (``symm/manifest.h``) and packed as the kernel's
parameters (``docs/KernelABI.md``)."""

from __future__ import annotations

import ctypes
import json
import math
import numbers
import os
import re
import struct
from typing import Any, Dict, List, Optional, Sequence, Union

from . import _tensors
from ._core import (describe_live, in_heap, require_device, require_init,
                    state, stream_handle)
from ._dtypes import BY_ELEMENT
from ._runtime import SymmError, check, lib
from ._tensor_maps import TensorMap

# The manifest's keys and values (symm/manifest.h); test_manifest.py checks
# them against the header.
MANIFEST_KEYS = {
    "SYMM_MANIFEST_CONTEXT": "context",
    "SYMM_MANIFEST_CONTEXT_SIZE": "size",
    "SYMM_MANIFEST_KERNELS": "kernels",
    "SYMM_MANIFEST_KERNEL_NAME": "name",
    "SYMM_MANIFEST_KERNEL_PARAMS": "params",
    "SYMM_MANIFEST_KERNEL_CONTEXT_ARGUMENT": "context_argument",
    "SYMM_MANIFEST_KERNEL_ARGUMENTS": "arguments",
    "SYMM_MANIFEST_KERNEL_CO_RESIDENT": "co_resident",
    "SYMM_MANIFEST_ARG_KIND": "kind",
    "SYMM_MANIFEST_ARG_TYPE": "type",
    "SYMM_MANIFEST_ARG_ELEMENT": "element",
    "SYMM_MANIFEST_ARG_RANK": "rank",
    "SYMM_MANIFEST_ARG_HEAP": "heap",
    "SYMM_MANIFEST_ARG_PARAMS": "params",
    "SYMM_MANIFEST_ARG_MEMREF": "memref",
    "SYMM_MANIFEST_ARG_SCALAR": "scalar",
}
_K = {k[len("SYMM_MANIFEST_"):].lower(): v for k, v in MANIFEST_KEYS.items()}

Dim3 = Union[int, Sequence[int]]

# Scalar parameter types: (ctypes type, integer bits or None for floats).
_INTS = {"i1": (ctypes.c_uint8, 1), "i8": (ctypes.c_int8, 8),
         "i16": (ctypes.c_int16, 16), "i32": (ctypes.c_int32, 32),
         "i64": (ctypes.c_int64, 64), "index": (ctypes.c_int64, 64)}
_FLOATS = {"f16": 65504.0, "bf16": 3.3895313892515355e38,
           "f32": 3.4028234663852886e38, "f64": math.inf}
# A TMA descriptor argument: passed as a pointer to the descriptor.
_TENSOR_MAP = "!nvgpu.tensormap.descriptor<"


class _MapType:
    """What an ``!nvgpu.tensormap.descriptor`` type says of the descriptors
    it accepts: the box, its element type and the swizzle in bytes."""

    def __init__(self, type_text: str) -> None:
        m = re.search(r"tensor\s*=\s*memref<((?:\d+x)+)(\w+)", type_text)
        self.box = (tuple(int(n) for n in m.group(1).split("x")[:-1])
                    if m else ())
        self.element = m.group(2) if m else ""
        m = re.search(r"swizzle\s*=\s*swizzle_(\d+)b", type_text)
        self.swizzle = int(m.group(1)) if m else 0  # "swizzle = none"


def _map_text(box: Sequence[int], element: str, swizzle: int) -> str:
    """How errors describe a tensor map: "a 128x64 box of bf16 with a
    128-byte swizzle"."""
    return (f"a {'x'.join(map(str, box))} box of {element} with " +
            (f"a {swizzle}-byte swizzle" if swizzle else "no swizzle"))


class _Layout:
    """What a memref type says of the arrays it accepts: static sizes, and
    for a strided layout its static strides (None where dynamic) and static
    offset (0 where dynamic: the descriptor then carries it). ``identity``:
    no layout, the array must be row-major contiguous."""

    def __init__(self, type_text: str, rank: int) -> None:
        body = type_text[len("memref<"):-1]
        dims = []
        while True:
            m = re.match(r"(\?|\d+)x", body)
            if not m:
                break
            dims.append(None if m.group(1) == "?" else int(m.group(1)))
            body = body[m.end():]
        self.sizes: List[Optional[int]] = dims[:rank]
        self.identity = "strided<" not in body and "affine_map<" not in body
        self.strides: Optional[List[Optional[int]]] = None
        self.offset = 0
        m = re.search(r"strided<\[([^\]]*)\](?:,\s*offset:\s*(\?|-?\d+))?>",
                      body)
        if m:
            items = [s.strip() for s in m.group(1).split(",") if s.strip()]
            self.strides = [None if s == "?" else int(s) for s in items]
            off = m.group(2)
            self.offset = 0 if off in (None, "?") else int(off)


class Kernel:
    """A kernel of a loaded :class:`Module`. Call it to launch it."""

    def __init__(self, module: "Module", entry: Dict[str, Any]) -> None:
        self.module = module
        self.name: str = entry[_K["kernel_name"]]
        self.params: int = entry[_K["kernel_params"]]
        self.context_argument: bool = bool(
            entry.get(_K["kernel_context_argument"], False))
        self.arguments: List[Dict[str, Any]] = entry[_K["kernel_arguments"]]
        #: Its workgroups wait on each other (``symm.co_resident``): a launch
        #: with more than :meth:`max_resident` workgroups raises SymmError.
        self.co_resident: bool = bool(
            entry.get(_K["kernel_co_resident"], False))
        # Parsed once: a launch checks every argument against its type.
        self._types: List[Any] = [
            _Layout(a[_K["arg_type"]], a[_K["arg_rank"]])
            if a[_K["arg_kind"]] == _K["arg_memref"] else
            _MapType(a[_K["arg_type"]])
            if a[_K["arg_type"]].startswith(_TENSOR_MAP) else None
            for a in self.arguments]

    def __repr__(self) -> str:
        types = ", ".join(a[_K["arg_type"]] for a in self.arguments)
        return f"<symm.Kernel {self.name}({types})>"

    def _where(self, i: int) -> str:
        return (f"kernel '{self.name}': argument {i} "
                f"({self.arguments[i][_K['arg_type']]})")

    def _dim3(self, value: Dim3, what: str) -> "ctypes.Array":
        dims = (value,) if isinstance(value, int) else tuple(value)
        if not 1 <= len(dims) <= 3 or any(
                not isinstance(n, int) or isinstance(n, bool) or
                not 1 <= n < 2**32 for n in dims):
            raise ValueError(f"kernel '{self.name}': {what} {value!r} must be "
                             "one to three positive integers")
        return (ctypes.c_uint * 3)(*(dims + (1,) * (3 - len(dims))))

    def _memref(self, i: int, arg: Dict[str, Any], value: Any,
                heap: Any = None) -> List[Any]:
        where = self._where(i)
        info = describe_live(value, where)
        element = arg[_K["arg_element"]]
        if BY_ELEMENT.get(element) is not info.dtype:
            raise TypeError(f"{where}: expected elements of type {element}, "
                            f"got {info.dtype.name}")
        rank = arg[_K["arg_rank"]]
        if len(info.shape) != rank:
            raise ValueError(f"{where}: expected {rank} dimensions, got "
                             f"shape {info.shape}")
        require_device(info, where)
        layout = self._types[i]
        for n, s in zip(layout.sizes, info.shape):
            if n is not None and n != s:
                static = "(" + ", ".join("?" if m is None else str(m)
                                         for m in layout.sizes) + ")"
                raise ValueError(f"{where}: expected shape {static}, got "
                                 f"{info.shape}")
        expected = (_tensors.contiguous_strides(info.shape)
                    if layout.identity else layout.strides)
        if expected is not None:
            for d, (want_s, got_s) in enumerate(zip(expected, info.strides)):
                if want_s is not None and want_s != got_s and info.shape[d] > 1:
                    what = ("a contiguous (row-major) array"
                            if layout.identity else
                            "strides [" + ", ".join(
                                "?" if e is None else str(e)
                                for e in expected) + "] (in elements)")
                    hint = "; pass a contiguous copy" if layout.identity else ""
                    raise ValueError(f"{where}: expected {what}, got strides "
                                     f"{info.strides}{hint}")
        if arg.get(_K["arg_heap"]) and _tensors.numel(info.shape):
            if heap is not None and not heap.contains(info.ptr):
                raise ValueError(f"{where}: expected a tensor of the launch's "
                                 "heap (the symmetric allocation given as "
                                 "heap=), got memory outside it")
            if heap is None and not in_heap(info.ptr):
                raise ValueError(f"{where}: expected a symmetric array "
                                 "(symm.empty/zeros or a view of one), got "
                                 "memory outside the symmetric heap")
        # A static offset is compiled in: the aligned pointer sits before
        # the array's first element by that many elements.
        offset = layout.offset
        base = info.ptr - offset * info.dtype.itemsize
        return ([ctypes.c_void_p(base), ctypes.c_void_p(base),
                 ctypes.c_int64(offset)] +
                [ctypes.c_int64(n) for n in info.shape] +
                [ctypes.c_int64(s) for s in info.strides])

    def _scalar(self, i: int, arg: Dict[str, Any], value: Any) -> Any:
        where = self._where(i)
        kind = arg[_K["arg_type"]]
        if kind.startswith(_TENSOR_MAP):
            return self._tensor_map(where, self._types[i], value)
        if kind in _INTS:
            ctype, bits = _INTS[kind]
            if not isinstance(value, numbers.Integral):
                raise TypeError(f"{where}: expected an integer, got "
                                f"{type(value).__name__}")
            v = int(value)
            low = 0 if bits == 1 else -(1 << (bits - 1))
            high = 1 if bits == 1 else (1 << bits) - 1
            if not low <= v <= high:
                raise ValueError(f"{where}: {v} does not fit in {kind} "
                                 f"({low}..{high})")
            return ctype(v)
        if kind in _FLOATS:
            if not isinstance(value, numbers.Real):
                raise TypeError(f"{where}: expected a number, got "
                                f"{type(value).__name__}")
            v = float(value)
            if not math.isfinite(v):
                raise ValueError(f"{where}: {v} is not a finite number")
            if abs(v) > _FLOATS[kind]:
                raise ValueError(f"{where}: {v} is out of the range of {kind}")
            if kind == "f64":
                return ctypes.c_double(v)
            if kind == "f32":
                return ctypes.c_float(v)
            if kind == "f16":
                return ctypes.c_uint16(
                    struct.unpack("<H", struct.pack("<e", v))[0])
            bits32 = struct.unpack("<I", struct.pack("<f", v))[0]
            if math.isnan(v):
                return ctypes.c_uint16((bits32 >> 16) | 0x40)
            # Round to nearest even, as arith.truncf does.
            rounded = bits32 + 0x7FFF + ((bits32 >> 16) & 1)
            return ctypes.c_uint16((rounded >> 16) & 0xFFFF)
        raise TypeError(f"{where}: symm cannot pass a {kind} from Python")

    def _tensor_map(self, where: str, want: _MapType, value: Any) -> Any:
        if not isinstance(value, TensorMap):
            raise TypeError(f"{where}: expected a symm.TensorMap "
                            f"(symm.tensor_map), got {type(value).__name__}")
        if value.generation != state.generation:
            raise ValueError(f"{where}: the tensor map was made before "
                             "symm.finalize, which freed it")
        got = (value.box, value.dtype.element, value.swizzle)
        expected = (want.box, want.element, want.swizzle)
        if got != expected:
            raise ValueError(f"{where}: expected a tensor map of "
                             f"{_map_text(*expected)}, got {_map_text(*got)}")
        return ctypes.c_void_p(value.ptr)

    def max_resident(self, block: Dim3 = 1, shared: int = 0) -> int:
        """How many workgroups of ``block`` threads with ``shared`` bytes of
        dynamic workgroup memory each this rank's device holds at once (on
        GPUs the occupancy calculator's count, which counts the kernel's
        registers; on CPU ranks SYMM_HOST_RESIDENT_BLOCKS); 0 when not one
        fits. The largest grid a co-resident kernel can be launched with."""
        require_init(f"kernel '{self.name}'")
        if self.module.handle is None:
            raise SymmError(f"kernel '{self.name}': its module was closed")
        dims = self._dim3(block, "block")
        if not isinstance(shared, int) or shared < 0:
            raise ValueError(f"kernel '{self.name}': shared {shared!r} must "
                             "be a non-negative number of bytes")
        threads = dims[0] * dims[1] * dims[2]
        if threads >= 2**32:
            raise ValueError(f"kernel '{self.name}': block {block!r} has "
                             f"{threads} threads, past any device's")
        count = ctypes.c_int64()
        check(lib.symm_kernel_max_resident(self.module.handle,
                                           self.name.encode(), threads,
                                           shared, ctypes.byref(count)))
        return count.value

    def __call__(self, grid: Dim3 = 1, block: Dim3 = 1,
                 args: Sequence[Any] = (), shared: int = 0,
                 stream: Any = None, heap: Any = None) -> None:
        """Launches the kernel on ``grid`` blocks of ``block`` threads (an int
        or up to three ints each). ``args``: one per kernel argument, an array
        or tensor for each memref (its shape and strides are passed), a
        Python number for each scalar (converted to the parameter's type).
        ``shared``: dynamic workgroup memory in bytes. ``stream``: None (the
        default stream), a :class:`symm.Stream` or, on cuda and hip, a
        ``torch.cuda.Stream``. ``heap``: another symmetric heap for this
        launch, a :func:`symm.torch.heap` (a torch symmetric tensor's
        allocation), for kernels compiled with --kernel-context=argument.
        Asynchronous: call
        :func:`symm.synchronize` or :func:`symm.barrier` before reading the
        results."""
        require_init(f"kernel '{self.name}'")
        if self.module.handle is None:
            raise SymmError(f"kernel '{self.name}': its module was closed")
        args = list(args)
        if len(args) != len(self.arguments):
            types = ", ".join(a[_K["arg_type"]] for a in self.arguments)
            raise TypeError(f"kernel '{self.name}' takes {len(self.arguments)}"
                            f" arguments ({types}), got {len(args)}")
        grid_c = self._dim3(grid, "grid")
        block_c = self._dim3(block, "block")
        if not isinstance(shared, int) or shared < 0:
            raise ValueError(f"kernel '{self.name}': shared {shared!r} must "
                             "be a non-negative number of bytes")
        handle = stream_handle(stream, f"kernel '{self.name}'")
        if heap is not None and not self.context_argument:
            raise ValueError(f"kernel '{self.name}': heap= needs a kernel "
                             "compiled with --kernel-context=argument (its "
                             "heap bases come from the launch, not the "
                             "module)")
        values: List[Any] = []
        for i, (arg, value) in enumerate(zip(self.arguments, args)):
            if arg[_K["arg_kind"]] == _K["arg_memref"]:
                values += self._memref(i, arg, value, heap)
            elif arg[_K["arg_kind"]] == _K["arg_scalar"]:
                values.append(self._scalar(i, arg, value))
            else:
                raise TypeError(f"{self._where(i)}: symm cannot pass a "
                                f"{arg[_K['arg_kind']]} argument from Python")
        if self.context_argument:
            size = self.module.manifest[_K["context"]][_K["context_size"]]
            context = (heap.context_pointer(size) if heap is not None else
                       self.module.context_pointer())
            values.append(ctypes.c_void_p(context))
        params = (ctypes.c_void_p * max(len(values), 1))(
            *(ctypes.addressof(v) for v in values))
        check(lib.symm_launch(self.module.handle, self.name.encode(), grid_c,
                              block_c, shared, handle, params, len(values)))


class Module:
    """A compiled module loaded on this rank; ``module["name"]`` is a
    :class:`Kernel`."""

    def __init__(self, path: str) -> None:
        require_init("load")
        manifest_path = path + ".json"
        if not os.path.isfile(path):
            raise FileNotFoundError(f"symm.load: no module at '{path}'")
        if not os.path.isfile(manifest_path):
            raise FileNotFoundError(
                f"symm.load: no manifest '{manifest_path}' beside the module; "
                "symm-compile writes one next to every object it emits")
        with open(manifest_path) as f:
            try:
                self.manifest: Dict[str, Any] = json.load(f)
            except json.JSONDecodeError as e:
                raise ValueError(f"symm.load: '{manifest_path}' is not JSON: "
                                 f"{e}") from None
        self.path = path
        self._context: Optional[int] = None
        handle = ctypes.c_void_p()
        check(lib.symm_module_load_file(path.encode(), ctypes.byref(handle)))
        self.handle: Optional[int] = handle.value
        self.kernels: Dict[str, Kernel] = {
            k[_K["kernel_name"]]: Kernel(self, k)
            for k in self.manifest.get(_K["kernels"], [])}

    def __getitem__(self, name: str) -> Kernel:
        if name not in self.kernels:
            raise KeyError(f"no kernel '{name}' in {self.path}; it has: "
                           f"{', '.join(self.kernels) or 'none'}")
        return self.kernels[name]

    def __contains__(self, name: str) -> bool:
        return name in self.kernels

    def __repr__(self) -> str:
        return f"<symm.Module {self.path}: {', '.join(self.kernels)}>"

    def context_pointer(self) -> int:
        """Device memory holding this rank's kernel context, for kernels
        compiled with kernel-context=argument (their last parameter)."""
        if self._context is None:
            size = self.manifest[_K["context"]][_K["context_size"]]
            host = ctypes.create_string_buffer(size)
            check(lib.symm_get_kernel_context(host))
            ptr = ctypes.c_void_p()
            check(lib.symm_device_malloc(size, ctypes.byref(ptr)))
            check(lib.symm_memcpy(ptr, host, size))
            self._context = ptr.value
        return self._context

    def close(self) -> None:
        """Unloads the module (after this rank's work on it completed)."""
        if self.handle is None or not state.initialized:
            self.handle = None
            return
        handle, self.handle = self.handle, None
        # Kernels of the module may still run.
        check(lib.symm_synchronize())
        if self._context is not None:
            check(lib.symm_device_free(self._context))
            self._context = None
        check(lib.symm_module_unload(handle))

    def __del__(self) -> None:
        try:
            self.close()
        except Exception:
            pass  # interpreter shutdown or a failed runtime: nothing to do


def load(path: Union[str, os.PathLike]) -> Module:
    """Loads a module compiled elsewhere (``symm-compile --target=... -o
    k.cubin`` writes ``k.cubin`` and its manifest ``k.cubin.json``): a
    cubin/PTX on cuda, a HSACO on hip, a shared object on host. Every rank
    loads its own copy; loading is not collective."""
    return Module(os.fspath(path))
