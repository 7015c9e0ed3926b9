"""Arrays and tensors over raw memory: NumPy arrays on the host backend,
PyTorch tensors (through DLPack) on the cuda and hip backends.

PyTorch is imported only when a GPU backend needs it.
"""

from __future__ import annotations

import ctypes
from typing import Any, Dict, NamedTuple, Optional, Sequence, Tuple

from ._dtypes import DType, dtype as to_dtype, numpy_dtype


class Block:
    """One symm.empty/zeros allocation, as every array over it (views and
    peers' copies included) sees it: once it is freed or its heap finalized,
    the arrays raise instead of reading memory that may hold another
    allocation, or none."""

    __slots__ = ("ptr", "nbytes", "origin", "ended")

    def __init__(self, ptr: int, nbytes: int, origin: str) -> None:
        self.ptr = ptr
        self.nbytes = nbytes
        self.origin = origin      # "the float32 array of shape (4,) from ..."
        self.ended: Optional[str] = None

    def end(self, why: str) -> None:
        if self.ended is None:
            self.ended = f"{self.origin} {why}"

    def check(self, where: str) -> None:
        """Raises ValueError naming ``where`` once the allocation ended."""
        if self.ended is not None:
            raise ValueError(f"{where}: {self.ended}")


class ArrayInfo(NamedTuple):
    """What a kernel or a collective needs to know of an array or tensor."""
    ptr: int
    shape: Tuple[int, ...]
    strides: Tuple[int, ...]  # in elements
    dtype: DType
    device: str               # "cpu" or "cuda" (PyTorch calls HIP devices cuda)


def is_torch(obj: Any) -> bool:
    return type(obj).__module__.startswith("torch") and hasattr(obj, "data_ptr")


def describe(obj: Any) -> Optional[ArrayInfo]:
    """The memory of a NumPy array or PyTorch tensor, or None for anything
    else. Raises TypeError for an array of a dtype Symm does not support or
    with strides that are not whole elements."""
    if is_torch(obj):
        d = to_dtype(obj.dtype)
        return ArrayInfo(obj.data_ptr(), tuple(obj.shape), tuple(obj.stride()),
                         d, obj.device.type)
    import numpy as np
    if not isinstance(obj, np.ndarray):
        return None
    d = to_dtype(obj.dtype)
    if any(s % obj.itemsize for s in obj.strides):
        raise TypeError("symm: array strides (in bytes) " + str(obj.strides) +
                        " are not multiples of the element size")
    return ArrayInfo(obj.__array_interface__["data"][0], tuple(obj.shape),
                     tuple(s // obj.itemsize for s in obj.strides), d, "cpu")


def contiguous_strides(shape: Sequence[int]) -> Tuple[int, ...]:
    """Row-major strides, in elements, of ``shape``."""
    strides, step = [], 1
    for n in reversed(shape):
        strides.append(step)
        step *= n
    return tuple(reversed(strides))


def is_contiguous(info: ArrayInfo) -> bool:
    """Row-major contiguous; dimensions of extent 1 may have any stride."""
    expected = contiguous_strides(info.shape)
    return all(n == 1 or s == e
               for n, s, e in zip(info.shape, info.strides, expected))


def numel(shape: Sequence[int]) -> int:
    count = 1
    for n in shape:
        count *= n
    return count


# --- NumPy (host backend) -------------------------------------------------

_heap_array: Any = None


def _data_address(array: Any) -> int:
    return array.__array_interface__["data"][0]


def heap_array_class() -> Any:
    """The NumPy arrays over the symmetric heap: a subclass of
    ``numpy.ndarray`` (named ``ndarray`` too, so messages and ``repr`` read as
    NumPy's) whose arrays check their allocation (a :class:`Block`) before
    reading or writing: reading, writing or computing with one whose
    allocation was freed, or whose heap was finalized, raises ValueError
    instead of touching memory that may hold another allocation, or none.
    Views share the check; copies are ordinary arrays."""
    global _heap_array
    if _heap_array is not None:
        return _heap_array
    import numpy as np

    def plain(a: Any) -> Any:
        if isinstance(a, ndarray):
            a._symm_check()
            return a.view(np.ndarray)
        return a

    class ndarray(np.ndarray):
        _symm_block: Optional[Block] = None
        # The mapping the block is viewed through: [low, high) addresses.
        _symm_span: Tuple[int, int] = (0, 0)

        def __array_finalize__(self, obj: Any) -> None:
            block = getattr(obj, "_symm_block", None)
            if block is None:
                return
            low, high = obj._symm_span
            # A view shares the check; a copy (astype, flatten...) does not.
            if low <= _data_address(self) < high:
                self._symm_block = block
                self._symm_span = obj._symm_span

        def _symm_check(self) -> None:
            if self._symm_block is not None:
                self._symm_block.check("symm")

        def __repr__(self) -> str:
            self._symm_check()
            return repr(self.view(np.ndarray))

        def __str__(self) -> str:
            self._symm_check()
            return str(self.view(np.ndarray))

        def __getitem__(self, key: Any) -> Any:
            self._symm_check()
            return super().__getitem__(key)

        def __setitem__(self, key: Any, value: Any) -> None:
            self._symm_check()
            super().__setitem__(key, value)

        def __array_ufunc__(self, ufunc: Any, method: str, *inputs: Any,
                            out: Any = None, **kwargs: Any) -> Any:
            args = tuple(plain(a) for a in inputs)
            if out is not None:
                kwargs["out"] = tuple(plain(o) for o in out)
            result = getattr(ufunc, method)(*args, **kwargs)
            if out is None or method == "at":
                return result
            # In place: the caller's own arrays, not their plain views.
            return out[0] if len(out) == 1 else out

        def __array_function__(self, func: Any, types: Any, args: Any,
                               kwargs: Any) -> Any:
            for a in list(args) + list(kwargs.values()):
                for item in (a if isinstance(a, (list, tuple)) else (a,)):
                    if isinstance(item, ndarray):
                        item._symm_check()
            return super().__array_function__(func, types, args, kwargs)

    def checked(name: str) -> Any:
        method = getattr(np.ndarray, name)

        def call(self: Any, *args: Any, **kwargs: Any) -> Any:
            self._symm_check()
            return method(self, *args, **kwargs)
        call.__name__ = name
        return call

    # The methods that read or write the memory without a ufunc.
    for name in ("__array__", "__bool__", "__complex__", "__contains__",
                 "__float__", "__format__", "__index__", "__int__",
                 "__iter__", "__reduce__", "__reduce_ex__", "astype", "byteswap", "copy", "dump", "dumps",
                 "fill", "item", "itemset", "put", "setfield", "getfield",
                 "sort", "partition", "tobytes", "tofile", "tolist",
                 "tostring"):
        if hasattr(np.ndarray, name):
            setattr(ndarray, name, checked(name))
    ndarray.__module__ = "symm"
    _heap_array = ndarray
    return ndarray


def _numpy_view(ptr: int, shape: Tuple[int, ...], d: DType,
                strides: Tuple[int, ...], block: Optional[Block],
                span: Tuple[int, int]):
    npd = numpy_dtype(d)
    # The byte span the view touches, for the buffer it is built over.
    low = sum(s * (n - 1) for n, s in zip(shape, strides) if s < 0 and n)
    high = sum(s * (n - 1) for n, s in zip(shape, strides) if s > 0 and n)
    size = 0 if numel(shape) == 0 else (high - low + 1) * d.itemsize
    buffer = (ctypes.c_char * size).from_address(ptr + low * d.itemsize)
    array = heap_array_class()(shape, dtype=npd, buffer=buffer,
                               offset=-low * d.itemsize,
                               strides=tuple(s * d.itemsize for s in strides))
    if block is not None:
        array._symm_block = block
        array._symm_span = span
    return array


# --- PyTorch through DLPack (cuda and hip backends) -----------------------


class _DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int), ("device_id", ctypes.c_int)]


class _DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8),
                ("lanes", ctypes.c_uint16)]


class _DLTensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("device", _DLDevice),
                ("ndim", ctypes.c_int), ("dtype", _DLDataType),
                ("shape", ctypes.POINTER(ctypes.c_int64)),
                ("strides", ctypes.POINTER(ctypes.c_int64)),
                ("byte_offset", ctypes.c_uint64)]


class _DLManagedTensor(ctypes.Structure):
    pass


_Deleter = ctypes.CFUNCTYPE(None, ctypes.POINTER(_DLManagedTensor))
_DLManagedTensor._fields_ = [("dl_tensor", _DLTensor),
                             ("manager_ctx", ctypes.c_void_p),
                             ("deleter", _Deleter)]

# DLDeviceType of each GPU backend (nvshmem's heap is CUDA memory).
_DL_DEVICE = {"cuda": 2, "hip": 10, "nvshmem": 2}
# The structures of tensors PyTorch still holds, by manager_ctx; the memory
# itself belongs to the symmetric heap.
_live: Dict[int, Any] = {}
_next_id = [1]


@_Deleter
def _release(managed) -> None:
    _live.pop(managed.contents.manager_ctx, None)


_capsule_new = ctypes.pythonapi.PyCapsule_New
_capsule_new.restype = ctypes.py_object
_capsule_new.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]
_DLTENSOR_NAME = b"dltensor"  # lives as long as the module: capsules keep it

_device_id: Dict[str, int] = {}


def device_index(backend: str) -> int:
    """The device the runtime made current on this thread (chosen by the
    local rank), asked of the driver itself so that PyTorch uses the same."""
    if backend not in _device_id:
        value = ctypes.c_int(0)
        # The libraries the runtime's backends opened (so already loaded).
        if _DL_DEVICE[backend] == _DL_DEVICE["cuda"]:
            api = ctypes.CDLL("libcuda.so.1")
            code = api.cuCtxGetDevice(ctypes.byref(value))
        else:
            try:
                api = ctypes.CDLL("libamdhip64.so")
            except OSError:
                api = ctypes.CDLL("libamdhip64.so.5")
            code = api.hipGetDevice(ctypes.byref(value))
        if code != 0:
            raise RuntimeError(f"symm: cannot read the current {backend} "
                               f"device (error {code})")
        import torch
        torch.cuda.set_device(value.value)
        _device_id[backend] = value.value
    return _device_id[backend]


def dlpack_capsule(ptr: int, shape: Tuple[int, ...], d: DType,
                   strides: Tuple[int, ...], device: Tuple[int, int]):
    """A DLPack capsule ("dltensor") over memory the heap owns: the
    consumer's deleter only drops this module's hold on the structures.
    ``device``: (DLDeviceType, device id)."""
    ndim = len(shape)
    managed = _DLManagedTensor()
    shape_c = (ctypes.c_int64 * max(ndim, 1))(*shape)
    strides_c = (ctypes.c_int64 * max(ndim, 1))(*strides)
    t = managed.dl_tensor
    t.data = ptr
    t.device = _DLDevice(*device)
    t.ndim = ndim
    t.dtype = _DLDataType(d.dlpack_code, d.itemsize * 8, 1)
    t.shape = shape_c
    t.strides = strides_c
    t.byte_offset = 0
    key = _next_id[0]
    _next_id[0] += 1
    managed.manager_ctx = key
    managed.deleter = _release
    _live[key] = (managed, shape_c, strides_c)
    return _capsule_new(ctypes.addressof(managed), _DLTENSOR_NAME, None)


def _torch_view(backend: str, ptr: int, shape: Tuple[int, ...], d: DType,
                strides: Tuple[int, ...]):
    import torch.utils.dlpack
    capsule = dlpack_capsule(ptr, shape, d, strides,
                             (_DL_DEVICE[backend], device_index(backend)))
    return torch.utils.dlpack.from_dlpack(capsule)


def view(backend: str, ptr: int, shape: Tuple[int, ...], d: DType,
         strides: Optional[Tuple[int, ...]] = None,
         block: Optional[Block] = None, span: Tuple[int, int] = (0, 0)):
    """An array (host) or tensor (cuda/hip) over the memory at ``ptr``. On the
    host backend a ``block`` makes the array, and every view of it within
    ``span`` (the block as mapped there), check the block."""
    if strides is None:
        strides = contiguous_strides(shape)
    if backend == "host":
        return _numpy_view(ptr, shape, d, strides, block, span)
    return _torch_view(backend, ptr, shape, d, strides)


def block_of(obj: Any) -> Optional[Block]:
    """The allocation a host-backend array views (through any chain of
    views), or None."""
    while obj is not None:
        block = getattr(obj, "_symm_block", None)
        if block is not None:
            return block
        obj = getattr(obj, "base", None)
    return None


def empty_like(backend: str, shape: Tuple[int, ...], d: DType):
    """Ordinary (not symmetric) memory the backend's collectives accept."""
    if backend == "host":
        import numpy as np
        return np.empty(shape, dtype=numpy_dtype(d))
    import torch
    return torch.empty(shape, dtype=getattr(torch, d.name),
                       device=f"cuda:{device_index(backend)}")
