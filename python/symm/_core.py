"""The runtime's lifecycle, queries and symmetric allocations."""

from __future__ import annotations

import atexit
import contextlib
import ctypes
import numbers
from typing import Any, Dict, Iterator, Optional, Sequence, Tuple, Union

from . import _tensors
from ._dtypes import dtype as to_dtype
from ._runtime import SUCCESS, SymmError, check, lib

Shape = Union[int, Sequence[int]]


class _State:
    initialized = False
    backend = ""
    # Counts symm.init calls: what was made for one heap (tensor maps, the
    # torch operators' buffers) is not used with the next.
    generation = 0
    # Base pointer -> every live symm.empty/zeros allocation.
    allocations: Dict[int, _tensors.Block] = {}


state = _State()


def require_init(what: str) -> None:
    if not state.initialized:
        raise SymmError(f"symm.{what}: call symm.init() first")


def init() -> None:
    """Initialises this rank, like ``symm_init()``: reads the rank and world
    size from the environment (``SYMM_RANK``/``SYMM_WORLD_SIZE`` under
    symm-run, ``RANK``/``WORLD_SIZE`` under torchrun, ``OMPI_COMM_WORLD_*``
    under mpirun; one rank when none is set), meets the other ranks and maps
    their heaps. ``SYMM_BACKEND``, ``SYMM_HEAP_SIZE`` and ``SYMM_TIMEOUT``
    choose the backend, the heap size and the time limit. Calling it again is
    a no-op; :func:`finalize` runs at exit."""
    if state.initialized:
        return
    check(lib.symm_init())
    state.initialized = True
    state.generation += 1
    state.backend = lib.symm_backend_name().decode()
    atexit.register(_finalize_at_exit)


def finalize() -> None:
    """Collective: waits for every rank, unmaps the heaps and ends the
    runtime. Arrays of the heap must not be used afterwards."""
    require_init("finalize")
    state.initialized = False
    # Arrays made before now raise rather than read the unmapped heap.
    for block in state.allocations.values():
        block.end("belongs to a symmetric heap that symm.finalize released")
    state.allocations.clear()
    check(lib.symm_finalize())


def _finalize_at_exit() -> None:
    if state.initialized:
        try:
            finalize()
        except SymmError as e:
            print(e, flush=True)


def is_initialized() -> bool:
    """Whether :func:`init` was called (and :func:`finalize` not yet)."""
    return state.initialized


def rank() -> int:
    """This process's rank, 0 .. world_size() - 1."""
    require_init("rank")
    return lib.symm_rank()


def world_size() -> int:
    """The number of ranks."""
    require_init("world_size")
    return lib.symm_world_size()


def backend() -> str:
    """The runtime's backend: ``"host"``, ``"cuda"`` or ``"hip"``."""
    require_init("backend")
    return state.backend


def multiprocessors() -> int:
    """The multiprocessors (SMs, CUs) of this rank's device, which persistent
    grids are sized by; on CPU ranks SYMM_HOST_RESIDENT_BLOCKS."""
    require_init("multiprocessors")
    count = ctypes.c_int()
    check(lib.symm_device_multiprocessors(ctypes.byref(count)))
    return count.value


def barrier() -> None:
    """Collective: completes this rank's outstanding device work, then waits
    for every rank."""
    require_init("barrier")
    check(lib.symm_barrier())


def synchronize() -> None:
    """Waits for this rank's outstanding device work (kernels, collectives)."""
    require_init("synchronize")
    check(lib.symm_synchronize())


def heap_free() -> int:
    """Bytes still free in the symmetric heap (the same on every rank)."""
    require_init("heap_free")
    return lib.symm_heap_free()


def _shape(shape: Shape, what: str) -> Tuple[int, ...]:
    def dimension(n: Any) -> bool:
        return isinstance(n, numbers.Integral) and not isinstance(n, bool)
    if dimension(shape):
        dims: Tuple[Any, ...] = (shape,)
    elif isinstance(shape, (str, bytes)) or not hasattr(shape, "__iter__"):
        raise TypeError(f"symm.{what}: shape {shape!r} must be an integer or "
                        "a sequence of integers")
    else:
        dims = tuple(shape)
    for n in dims:
        if not dimension(n) or n < 0:
            raise ValueError(f"symm.{what}: shape {shape!r} must be "
                             "non-negative integers")
    return tuple(int(n) for n in dims)


def empty(shape: Shape, dtype: Any = "float32"):
    """Collective: a symmetric array of ``shape`` and ``dtype`` in the heap,
    uninitialised. Every rank makes the same calls with the same shapes.

    Returns a ``numpy.ndarray`` on the host backend and a ``torch.Tensor`` on
    the device on cuda/hip. dtypes: bool, int8, int16 (for kernels; the
    collectives refuse it), int32, int64, float16, bfloat16 (NumPy needs
    ml_dtypes), float32, float64."""
    return _allocate(shape, dtype, "empty")


def _allocate(shape: Shape, dtype: Any, what: str):
    require_init(what)
    dims = _shape(shape, what)
    d = to_dtype(dtype)
    if state.backend == "host":
        from ._dtypes import numpy_dtype
        numpy_dtype(d)  # a clear error before allocating, not after
    nbytes = _tensors.numel(dims) * d.itemsize
    # The runtime takes a 64-bit size: a larger one is asked as the largest,
    # which fails (out of heap) on every rank alike, and is named here.
    largest = ctypes.c_size_t(-1).value
    ptr = ctypes.c_void_p()
    status = lib.symm_malloc(min(nbytes, largest), ctypes.byref(ptr))
    if status != SUCCESS and nbytes > largest and \
            lib.symm_status_string(status) == b"out of heap":
        raise SymmError(f"symm.{what}: shape {dims} of {d.name} is {nbytes} "
                        "bytes, more than a 64-bit size; the symmetric heap "
                        f"holds {lib.symm_heap_size()} bytes (SYMM_HEAP_SIZE)",
                        "out of heap")
    check(status)
    block = _tensors.Block(ptr.value, nbytes, f"the {d.name} array of shape "
                           f"{dims} from symm.{what}")
    state.allocations[ptr.value] = block
    return _tensors.view(state.backend, ptr.value, dims, d, block=block,
                         span=(ptr.value, ptr.value + nbytes))


def zeros(shape: Shape, dtype: Any = "float32"):
    """Collective: like :func:`empty`, filled with zeros on this rank."""
    x = _allocate(shape, dtype, "zeros")
    if state.backend == "host":
        x[...] = 0
    else:
        import torch
        x.zero_()
        # Kernels on the runtime's streams must see the zeros.
        torch.cuda.synchronize()
    return x


def describe_live(x: Any, where: str) -> _tensors.ArrayInfo:
    """The memory of ``x``, an argument that must be an array or tensor and,
    where it views a Symm allocation, a live one; errors start with
    ``where``."""
    try:
        info = _tensors.describe(x)
    except TypeError as e:
        raise TypeError(f"{where}: {e}") from None
    if info is None:
        raise TypeError(f"{where}: expected an array or tensor, got "
                        f"{type(x).__name__}")
    require_live(x, info, where)
    return info


def require_device(info: _tensors.ArrayInfo, where: str) -> None:
    """Raises ValueError naming ``where`` unless the memory ``info``
    describes is the backend's: host memory on the host backend, a CUDA
    tensor (HIP's are called CUDA too) on the others."""
    want = "cpu" if state.backend == "host" else "cuda"
    if info.device != want:
        raise ValueError(f"{where}: expected a {want} tensor on the "
                         f"{state.backend} backend, got a {info.device} one")


def require_live(x: Any, info: _tensors.ArrayInfo, where: str) -> None:
    """Raises ValueError naming ``where`` when ``x`` views an allocation that
    was freed or a heap that was finalized. Host arrays know their
    allocation; a tensor (cuda, hip) is refused when it lies in this rank's
    heap outside every live allocation."""
    block = _tensors.block_of(x)
    if block is not None:
        block.check(where)
        return
    if state.backend == "host" or not state.initialized or \
            not _tensors.numel(info.shape) or not in_heap(info.ptr):
        return
    if not any(b.ptr <= info.ptr < b.ptr + b.nbytes
               for b in state.allocations.values()):
        raise ValueError(f"{where}: the tensor lies in the symmetric heap "
                         "but in no live allocation: it was freed "
                         "(symm.free)")


def free(x: Any) -> None:
    """Collective: returns the allocation ``x`` (made by :func:`empty` or
    :func:`zeros`) to the heap. Views of it raise ValueError afterwards (on
    the host backend; symm's calls refuse them on every backend)."""
    require_init("free")
    info = _tensors.describe(x)
    if info is None:
        raise TypeError(f"symm.free: expected an array or tensor, got "
                        f"{type(x).__name__}")
    block = state.allocations.get(info.ptr)
    if block is None:
        freed = _tensors.block_of(x)
        raise ValueError("symm.free: the array is not a live symmetric "
                         "allocation made by symm.empty or symm.zeros" +
                         (f" ({freed.ended})" if freed and freed.ended
                          else ""))
    check(lib.symm_free(info.ptr))
    del state.allocations[info.ptr]
    block.end("was freed by symm.free")


def peer(x: Any, rank: int):
    """A view of rank ``rank``'s copy of the symmetric array ``x`` (same
    shape, strides and dtype), mapped into this process."""
    require_init("peer")
    info = describe_live(x, "symm.peer: x")
    if not isinstance(rank, int) or not 0 <= rank < lib.symm_world_size():
        raise ValueError(f"symm.peer: rank {rank!r} is not in 0.."
                         f"{lib.symm_world_size() - 1}")
    remote = ctypes.c_void_p()
    check(lib.symm_translate(info.ptr, rank, ctypes.byref(remote)))
    block = _tensors.block_of(x)
    span = (0, 0)
    if block is not None:
        start = remote.value - (info.ptr - block.ptr)
        span = (start, start + block.nbytes)
    return _tensors.view(state.backend, remote.value, info.shape, info.dtype,
                         info.strides, block=block, span=span)


def in_heap(ptr: int) -> bool:
    """Whether ``ptr`` points into this rank's symmetric heap."""
    remote = ctypes.c_void_p()
    return lib.symm_translate(ptr, lib.symm_rank(), ctypes.byref(remote)) == 0


class Stream:
    """A stream of the runtime: kernels and collectives on one stream run in
    order. ``stream=None`` everywhere means the default stream."""

    def __init__(self) -> None:
        require_init("Stream")
        handle = ctypes.c_void_p()
        check(lib.symm_stream_create(ctypes.byref(handle)))
        self.handle: Optional[int] = handle.value

    def synchronize(self) -> None:
        """Waits for the work queued on this stream."""
        check(lib.symm_stream_synchronize(self.handle))

    def close(self) -> None:
        """Destroys the stream."""
        if self.handle is not None and state.initialized:
            check(lib.symm_stream_destroy(self.handle))
        self.handle = None


class Graph:
    """Work captured from a stream and replayed: the runtime's graphs
    (``symm_stream_begin_capture``), on every backend. ::

        g = symm.Graph()
        with g.capture(s):                      # s: a symm.Stream
            symm.all_reduce(x, out=y, stream=s, sync=False)
        for _ in range(100):
            g.launch(s)                         # the same calls, as recorded
        s.synchronize()

    Inside ``capture`` the calls on the stream are recorded, not run; a call
    that would wait for the device (``sync=True``, ``synchronize``) raises
    :class:`SymmError` saying so. The first collective on a stream must come
    before its capture. A second ``capture`` replaces the graph."""

    def __init__(self) -> None:
        require_init("Graph")
        self.handle: Optional[int] = None

    @contextlib.contextmanager
    def capture(self, stream: Any) -> Iterator["Graph"]:
        handle = stream_handle(stream, "Graph.capture")
        if handle is None:
            raise ValueError("Graph.capture: the default stream cannot be "
                             "captured; pass a symm.Stream")
        check(lib.symm_stream_begin_capture(handle))
        graph = ctypes.c_void_p()
        try:
            yield self
        except BaseException:
            # End the capture and drop what it recorded; the body's error
            # is the one to see.
            if lib.symm_stream_end_capture(handle, ctypes.byref(graph)) == 0:
                lib.symm_graph_destroy(graph)
            raise
        check(lib.symm_stream_end_capture(handle, ctypes.byref(graph)))
        self.close()
        self.handle = graph.value

    def launch(self, stream: Any = None) -> None:
        """Enqueues the recorded work on ``stream`` (any stream)."""
        if self.handle is None:
            raise ValueError("Graph.launch: nothing was captured (use "
                             "`with graph.capture(stream):` first)")
        check(lib.symm_graph_launch(self.handle,
                                    stream_handle(stream, "Graph.launch")))

    def close(self) -> None:
        """Destroys the graph (launches already queued still run)."""
        if self.handle is not None and state.initialized:
            check(lib.symm_graph_destroy(self.handle))
        self.handle = None


def stream_handle(stream: Any, what: str) -> Optional[int]:
    """The runtime handle of ``stream``: None, a :class:`Stream`, or on cuda
    and hip a ``torch.cuda.Stream`` (the runtime's streams are the driver's)."""
    if stream is None:
        return None
    if isinstance(stream, Stream):
        if stream.handle is None:
            raise ValueError(f"{what}: the stream was closed")
        return stream.handle
    if state.backend != "host" and hasattr(stream, "cuda_stream"):
        return stream.cuda_stream
    raise TypeError(f"{what}: stream must be None or a symm.Stream"
                    + ("" if state.backend == "host" else
                       " or a torch.cuda.Stream") +
                    f", got {type(stream).__name__}")
