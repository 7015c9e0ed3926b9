"""Arrays and tensors over raw memory: NumPy arrays on the host backend,
PyTorch tensors (through DLPack) on the cuda and hip backends.

PyTorch is imported only when a GPU backend needs it.
"""

from __future__ import annotations

import ctypes
from typing import Any, Dict, NamedTuple, Optional, Sequence, Tuple

from ._dtypes import DType, dtype as to_dtype, numpy_dtype


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


def _numpy_view(ptr: int, shape: Tuple[int, ...], d: DType,
                strides: Tuple[int, ...]):
    import numpy as np
    npd = numpy_dtype(d)
    # The byte span the view touches, for the buffer it is built over.
    low = sum(s * (n - 1) for n, s in zip(shape, strides) if s < 0 and n)
    high = sum(s * (n - 1) for n, s in zip(shape, strides) if s > 0 and n)
    span = 0 if numel(shape) == 0 else (high - low + 1) * d.itemsize
    buffer = (ctypes.c_char * span).from_address(ptr + low * d.itemsize)
    return np.ndarray(shape, dtype=npd, buffer=buffer,
                      offset=-low * d.itemsize,
                      strides=tuple(s * d.itemsize for s in strides))


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
         strides: Optional[Tuple[int, ...]] = None):
    """An array (host) or tensor (cuda/hip) over the memory at ``ptr``."""
    if strides is None:
        strides = contiguous_strides(shape)
    if backend == "host":
        return _numpy_view(ptr, shape, d, strides)
    return _torch_view(backend, ptr, shape, d, strides)


def empty_like(backend: str, shape: Tuple[int, ...], d: DType):
    """Ordinary (not symmetric) memory the backend's collectives accept."""
    if backend == "host":
        import numpy as np
        return np.empty(shape, dtype=numpy_dtype(d))
    import torch
    return torch.empty(shape, dtype=getattr(torch, d.name),
                       device=f"cuda:{device_index(backend)}")
