"""TMA descriptors (``symm_tensor_map_create``): what a kernel takes for an
``!nvgpu.tensormap.descriptor`` argument, such as the Hopper GEMM's A and B
(examples/*/*_hopper.mlir)."""

from __future__ import annotations

import ctypes
import numbers
from typing import Any, Sequence, Tuple

from ._core import describe_live, require_device, require_init, state
from ._dtypes import DType
from ._runtime import check, lib

# What TMA takes (symm/runtime.h, symm_tensor_map_create): 1 to 5
# dimensions, boxes of 1 to 256 elements each, these swizzles (bytes).
MAX_RANK, MAX_BOX = 5, 256
SWIZZLES = (0, 32, 64, 128)


class TensorMap:
    """A TMA descriptor made by :func:`tensor_map`. It describes memory, not
    the array: the array must outlive the kernels that read through it.
    Valid until :func:`symm.finalize` (the runtime frees it then)."""

    __slots__ = ("ptr", "shape", "box", "swizzle", "dtype", "generation")

    def __init__(self, ptr: int, shape: Tuple[int, ...], box: Tuple[int, ...],
                 swizzle: int, dtype: DType, generation: int) -> None:
        self.ptr = ptr
        self.shape = shape
        self.box = box
        self.swizzle = swizzle
        self.dtype = dtype
        self.generation = generation

    def __repr__(self) -> str:
        return (f"<symm.TensorMap of a {self.dtype.name} array of shape "
                f"{self.shape}, box {self.box}, swizzle {self.swizzle}>")


def tensor_map(x: Any, box: Sequence[int], swizzle: int = 128) -> TensorMap:
    """A TMA descriptor over the array or tensor ``x`` (1 to 5 dimensions,
    the innermost contiguous, the other strides multiples of 16 bytes, 16-byte
    aligned), copied in boxes of ``box`` elements (one size per dimension,
    outermost first, 1 to 256 each; a box row of at most ``swizzle`` bytes,
    a multiple of 16) with ``swizzle`` bytes of swizzling (0, 32, 64 or 128)
    and zeros read out of bounds. ``x`` may be a peer's copy
    (:func:`symm.peer`). Raises ``TypeError``/``ValueError`` naming the
    argument. Not while a CUDA graph is being captured: the descriptor is
    copied to device memory."""
    require_init("tensor_map")
    what = "symm.tensor_map"
    info = describe_live(x, f"{what}: argument x")
    require_device(info, f"{what}: argument x")
    rank, size = len(info.shape), info.dtype.itemsize
    if not 1 <= rank <= MAX_RANK:
        raise ValueError(f"{what}: argument x: has {rank} dimensions; TMA "
                         f"takes 1 to {MAX_RANK}")
    if info.strides[-1] != 1:
        raise ValueError(f"{what}: argument x: its innermost dimension must "
                         f"be contiguous (stride 1), got strides "
                         f"{info.strides}")
    if any(s * size % 16 for s in info.strides[:-1]):
        raise ValueError(f"{what}: argument x: strides {info.strides} of "
                         f"{size}-byte elements: TMA strides other than the "
                         "innermost are multiples of 16 bytes")
    if info.ptr % 16:
        raise ValueError(f"{what}: argument x: its first element must be "
                         "16-byte aligned")
    if any(n == 0 for n in info.shape):
        raise ValueError(f"{what}: argument x: shape {info.shape} has no "
                         "elements")
    if isinstance(box, (str, bytes)) or not hasattr(box, "__iter__"):
        raise TypeError(f"{what}: argument box: expected a sequence of "
                        f"integers, got {type(box).__name__}")
    box = tuple(box)
    if len(box) != rank or any(
            not isinstance(b, numbers.Integral) or isinstance(b, bool) or
            not 1 <= b <= MAX_BOX for b in box):
        raise ValueError(f"{what}: argument box: {box} must be {rank} "
                         f"integers (one per dimension of x) from 1 to "
                         f"{MAX_BOX}")
    box = tuple(int(b) for b in box)
    if swizzle not in SWIZZLES or isinstance(swizzle, bool):
        raise ValueError(f"{what}: argument swizzle: {swizzle!r} is not one "
                         f"of {', '.join(map(str, SWIZZLES))} (bytes)")
    row = box[-1] * size
    if row % 16 or (swizzle and row > swizzle):
        raise ValueError(f"{what}: argument box: rows of {box[-1]} "
                         f"{info.dtype.name} elements are {row} bytes; TMA "
                         "takes rows that are multiples of 16 bytes" +
                         (f" and at most {swizzle} with a {swizzle}-byte "
                          "swizzle" if swizzle else ""))
    u64s = ctypes.c_uint64 * rank
    handle = ctypes.c_void_p()
    check(lib.symm_tensor_map_create(
        info.ptr, rank, u64s(*info.shape), u64s(*info.strides),
        (ctypes.c_uint32 * rank)(*box), size, swizzle, ctypes.byref(handle)))
    return TensorMap(handle.value, info.shape, box, swizzle, info.dtype,
                     state.generation)
