"""Collectives on arrays and tensors (``symm/collectives.h``).

Every rank makes the same calls in the same order with the same shapes.
``x`` and ``out`` may be symmetric or not, but must be contiguous and of the
backend's device (host memory on the host backend). ``out=None`` allocates
the result (ordinary memory). Calls are stream-ordered like kernels and,
by default, wait for their result (``sync=False`` returns at once: then
:func:`symm.synchronize` before reading it).
"""

from __future__ import annotations

from typing import Any, Tuple

from . import _tensors
from ._core import require_init, require_live, state, stream_handle
from ._dtypes import DTYPES, REDUCE_OPS
from ._runtime import check, lib


def _info(x: Any, what: str, name: str) -> _tensors.ArrayInfo:
    info = _tensors.describe(x)
    if info is None:
        raise TypeError(f"symm.{what}: {name} must be an array or tensor, got "
                        f"{type(x).__name__}")
    require_live(x, info, f"symm.{what}: {name}")
    if info.dtype.collective is None and info.dtype.name != "bool":
        raise TypeError(f"symm.{what}: {name} has dtype {info.dtype.name}, "
                        "which the collectives do not take (kernels do)")
    if info.dtype.collective is None and what in _REDUCTIONS:
        raise TypeError(f"symm.{what}: {name} has dtype {info.dtype.name}, "
                        "which is not reduced (all_gather, all_to_all and "
                        "broadcast move it)")
    if not _tensors.is_contiguous(info):
        raise ValueError(f"symm.{what}: {name} must be contiguous, got "
                         f"strides {info.strides}")
    want = "cpu" if state.backend == "host" else "cuda"
    if info.device != want:
        raise ValueError(f"symm.{what}: {name} must be a {want} tensor on the "
                         f"{state.backend} backend, got a {info.device} one")
    return info


def _prepare(what: str, x: Any, out: Any,
             shape: Tuple[int, ...]) -> Tuple[_tensors.ArrayInfo, Any,
                                              _tensors.ArrayInfo]:
    require_init(what)
    src = _info(x, what, "x")
    if out is None:
        out = _tensors.empty_like(state.backend, shape, src.dtype)
    dst = _info(out, what, "out")
    if dst.dtype is not src.dtype:
        raise TypeError(f"symm.{what}: out has dtype {dst.dtype.name}, x "
                        f"{src.dtype.name}")
    if _tensors.numel(dst.shape) != _tensors.numel(shape):
        raise ValueError(f"symm.{what}: out has {_tensors.numel(dst.shape)} "
                         f"elements, expected {_tensors.numel(shape)} (shape "
                         f"{shape})")
    return src, out, dst


# The collectives that combine values: every other one moves bytes, so it
# takes bool as int8.
_REDUCTIONS = ("all_reduce", "reduce_scatter")


def _code(info: _tensors.ArrayInfo) -> int:
    """The symm_dtype a collective is called with."""
    if info.dtype.collective is None:
        return DTYPES["int8"].collective
    return info.dtype.collective


def _op(what: str, op: str) -> int:
    if op not in REDUCE_OPS:
        raise ValueError(f"symm.{what}: op {op!r} is not one of "
                         f"{', '.join(REDUCE_OPS)}")
    return REDUCE_OPS.index(op)


def _blocks(what: str, x: Any) -> Tuple[int, ...]:
    """x's shape, whose first dimension splits into world_size blocks."""
    shape = _info(x, what, "x").shape
    n = lib.symm_world_size()
    if not shape or shape[0] % n:
        raise ValueError(f"symm.{what}: the first dimension of x (shape "
                         f"{shape}) must be a multiple of the world size {n}")
    return shape


def _finish(out: Any, sync: bool) -> Any:
    if sync:
        check(lib.symm_synchronize())
    return out


def all_reduce(x: Any, op: str = "sum", out: Any = None, *,
               stream: Any = None, sync: bool = True) -> Any:
    """``out[i]`` = ``op`` (sum, prod, min, max) over every rank of ``x[i]``;
    the same bits on every rank. ``out=x`` reduces in place."""
    require_init("all_reduce")
    info = _tensors.describe(x)
    src, out, dst = _prepare("all_reduce", x, out, info.shape if info else ())
    check(lib.symm_all_reduce(src.ptr, dst.ptr, _tensors.numel(src.shape),
                              _code(src), _op("all_reduce", op),
                              stream_handle(stream, "symm.all_reduce")))
    return _finish(out, sync)


def all_gather(x: Any, out: Any = None, *, stream: Any = None,
               sync: bool = True) -> Any:
    """Every rank's ``x``, concatenated along the first dimension in rank
    order: shape ``(world_size * x.shape[0], *x.shape[1:])`` (``(world_size,)``
    for a 0-d ``x``)."""
    require_init("all_gather")
    info = _tensors.describe(x)
    shape = info.shape if info else ()
    n = lib.symm_world_size()
    gathered = (n * shape[0],) + shape[1:] if shape else (n,)
    src, out, dst = _prepare("all_gather", x, out, gathered)
    check(lib.symm_all_gather(src.ptr, dst.ptr, _tensors.numel(src.shape),
                              _code(src),
                              stream_handle(stream, "symm.all_gather")))
    return _finish(out, sync)


def reduce_scatter(x: Any, op: str = "sum", out: Any = None, *,
                   stream: Any = None, sync: bool = True) -> Any:
    """Rank r receives block r of the reduction of ``x`` over every rank, the
    blocks splitting ``x``'s first dimension: shape
    ``(x.shape[0] // world_size, *x.shape[1:])``."""
    require_init("reduce_scatter")
    shape = _blocks("reduce_scatter", x)
    n = lib.symm_world_size()
    block = (shape[0] // n,) + shape[1:]
    src, out, dst = _prepare("reduce_scatter", x, out, block)
    check(lib.symm_reduce_scatter(src.ptr, dst.ptr, _tensors.numel(block),
                                  _code(src),
                                  _op("reduce_scatter", op),
                                  stream_handle(stream,
                                                "symm.reduce_scatter")))
    return _finish(out, sync)


def all_to_all(x: Any, out: Any = None, *, stream: Any = None,
               sync: bool = True) -> Any:
    """Block j of ``x`` (its first dimension split into world_size blocks)
    goes to rank j, which receives it as its block i from rank i."""
    require_init("all_to_all")
    shape = _blocks("all_to_all", x)
    src, out, dst = _prepare("all_to_all", x, out, shape)
    check(lib.symm_all_to_all(src.ptr, dst.ptr,
                              _tensors.numel(shape) // lib.symm_world_size(),
                              _code(src),
                              stream_handle(stream, "symm.all_to_all")))
    return _finish(out, sync)


def broadcast(x: Any, root: int = 0, out: Any = None, *, stream: Any = None,
              sync: bool = True) -> Any:
    """``root``'s ``x`` lands in ``out`` on every rank (``out=x`` in place)."""
    require_init("broadcast")
    n = lib.symm_world_size()
    if not isinstance(root, int) or not 0 <= root < n:
        raise ValueError(f"symm.broadcast: root {root!r} is not in 0..{n - 1}")
    info = _tensors.describe(x)
    src, out, dst = _prepare("broadcast", x, out, info.shape if info else ())
    check(lib.symm_broadcast(src.ptr, dst.ptr, _tensors.numel(src.shape),
                             _code(src), root,
                             stream_handle(stream, "symm.broadcast")))
    return _finish(out, sync)
