"""Symm inside PyTorch: tensors of ``torch.distributed._symmetric_memory`` as
the symmetric heap of Symm kernels, and Symm's collectives as torch operators.

A tensor from ``torch.distributed._symmetric_memory.empty`` is symmetric: its
rendezvous gives the address of every rank's copy. :func:`heap` makes those
addresses the heap bases of a kernel launch, so a Symm kernel compiled with
``--kernel-context=argument`` reaches the peers' copies of that tensor (and of
any tensor in the same symmetric allocation)::

    import symm, symm.torch
    import torch.distributed._symmetric_memory as symm_mem
    x = symm_mem.empty(1024, dtype=torch.float32, device="cuda")
    h = symm.torch.heap(x)                   # rendezvous over the world group
    m["ring"](grid=1, block=256, args=[x], heap=h,
              stream=torch.cuda.current_stream())

:func:`register` defines ``torch.ops.symm.fused_all_gather_matmul`` and
``fused_matmul_reduce_scatter`` (Symm's fused workloads all_gather_gemm and
gemm_reduce_scatter), ``one_shot_all_reduce`` and ``two_shot_all_reduce_``
with the signatures of ``torch.ops.symm_mem``'s, and ``all_gather`` and
``reduce_scatter``: on torch's current stream, so that they are captured in
CUDA graphs, with fake implementations so that ``torch.compile`` traces them
without a graph break. :func:`as_tensor` hands a Symm allocation to torch
without a copy. See docs/Python.md.
"""

from __future__ import annotations

import os
import struct
from typing import Any, Dict, List, Optional, Sequence, Tuple

from . import _collectives, _tensors
from ._core import empty, in_heap, require_init, require_live, state, zeros
from ._module import Module, load
from ._runtime import lib


def _describe(t: Any) -> str:
    """How errors name a tensor: Python cannot know its variable's name."""
    shape = "x".join(str(n) for n in t.shape) or "scalar"
    return f"tensor({shape}, {str(t.dtype).replace('torch.', '')}, {t.device})"


class Heap:
    """The symmetric allocation a torch symmetric tensor lives in, as a heap
    for Symm kernels: ``bases[r]`` is where rank r's copy of the allocation
    is mapped on this rank. Made by :func:`heap`."""

    def __init__(self, bases, size: int, rank: int, world_size: int,
                 device: Any) -> None:
        self.bases = [int(b) for b in bases]
        self.size = int(size)
        self.rank = rank
        self.world_size = world_size
        self._device = device
        self._context: Optional[Any] = None

    def contains(self, ptr: int) -> bool:
        base = self.bases[self.rank]
        return base <= ptr < base + self.size

    def context_pointer(self, size: int) -> int:
        """Device memory holding a kernel context of ``size`` bytes (as the
        module's manifest says; symm/kernel_context.h: rank, world size,
        heap bases) with this allocation's bases, for kernels compiled with
        --kernel-context=argument."""
        if self._context is None:
            import torch
            max_ranks = (size - 8) // 8
            if self.world_size > max_ranks:
                raise ValueError(f"symm.torch.heap: {self.world_size} ranks, "
                                 f"more than the {max_ranks} a kernel context "
                                 "holds")
            words = self.bases + [0] * (max_ranks - self.world_size)
            host = struct.pack(f"<ii{max_ranks}Q", self.rank,
                               self.world_size, *words)
            self._context = torch.frombuffer(bytearray(host),
                                             dtype=torch.uint8).to(
                                                 self._device)
        return self._context.data_ptr()


def heap(tensor: Any, group: Any = None) -> Heap:
    """The symmetric allocation of ``tensor`` (from
    ``torch.distributed._symmetric_memory.empty``) as a heap for Symm
    kernels, after its rendezvous over ``group`` (default: the world, which
    must be Symm's). Raises ``TypeError``/``ValueError`` naming the tensor
    when it is not a CUDA tensor, not symmetric, or its group is not Symm's
    world."""
    import torch
    import torch.distributed as dist
    import torch.distributed._symmetric_memory as symm_mem
    require_init("torch.heap")
    if not isinstance(tensor, torch.Tensor):
        raise TypeError("symm.torch.heap: expected a torch.Tensor, got "
                        f"{type(tensor).__name__}")
    what = f"symm.torch.heap: {_describe(tensor)}"
    if tensor.device.type != "cuda":
        raise ValueError(f"{what} is not on a CUDA device")
    if state.backend not in ("cuda", "nvshmem"):
        raise ValueError(f"{what}: torch's symmetric memory is CUDA memory; "
                         f"the {state.backend} backend cannot reach it")
    if not dist.is_initialized():
        raise ValueError(f"{what} is not rendezvoused: torch.distributed is "
                         "not initialised (init_process_group first)")
    group = group if group is not None else dist.group.WORLD
    if dist.get_world_size(group) != lib.symm_world_size():
        raise ValueError(f"{what}: its group has {dist.get_world_size(group)}"
                         f" ranks, Symm's world {lib.symm_world_size()}")
    try:
        handle = symm_mem.rendezvous(tensor, group.group_name)
    except Exception as e:  # torch raises RuntimeError or ValueError
        raise ValueError(f"{what} is not symmetric (allocate it with "
                         "torch.distributed._symmetric_memory.empty): "
                         f"{str(e).splitlines()[0]}") from None
    if handle is None:
        raise ValueError(f"{what} is not symmetric (allocate it with "
                         "torch.distributed._symmetric_memory.empty)")
    if handle.rank != lib.symm_rank():
        raise ValueError(f"{what}: torch's rank {handle.rank} is Symm's rank "
                         f"{lib.symm_rank()}; start both from the same "
                         "launcher")
    return Heap(handle.buffer_ptrs, handle.buffer_size, handle.rank,
                handle.world_size, tensor.device)


def as_tensor(x: Any) -> Any:
    """A torch tensor over the Symm allocation ``x`` (what :func:`symm.empty`
    or :func:`symm.zeros` returned, or a view of it, ``symm.peer``'s
    included on the host backend), without a copy: writes through either are
    seen by both. On the host backend ``x`` is a NumPy array and the tensor
    is a CPU tensor; on the GPU backends ``x`` is already a tensor and the
    result is a new tensor over the same memory. Raises ``TypeError`` or
    ``ValueError`` naming the array when it is not a Symm allocation, or
    was freed."""
    require_init("torch.as_tensor")
    info = _tensors.describe(x)
    if info is None:
        raise TypeError("symm.torch.as_tensor: expected an array from "
                        f"symm.empty or symm.zeros, got {type(x).__name__}")
    what = ("symm.torch.as_tensor: the " + info.dtype.name + " array of "
            f"shape {info.shape}")
    require_live(x, info, what)
    host = state.backend == "host"
    if host != (info.device == "cpu"):
        raise ValueError(f"{what} is on the {info.device} device; the "
                         f"{state.backend} backend's heap is not")
    if _tensors.block_of(x) is None and not (
            _tensors.numel(info.shape) and in_heap(info.ptr)):
        raise ValueError(f"{what} is not in Symm's symmetric heap (allocate "
                         "it with symm.empty or symm.zeros)")
    import torch.utils.dlpack
    device = ((1, 0) if host else  # kDLCPU
              (_tensors._DL_DEVICE[state.backend],
               _tensors.device_index(state.backend)))
    return torch.utils.dlpack.from_dlpack(_tensors.dlpack_capsule(
        info.ptr, info.shape, info.dtype, info.strides, device))


# --- Symm's workloads and collectives as torch operators -------------------


def _check_group(op: str, group_name: str) -> None:
    import torch.distributed as dist
    if not dist.is_initialized():
        return
    from torch.distributed.distributed_c10d import _resolve_process_group
    group = _resolve_process_group(group_name)
    if dist.get_world_size(group) != lib.symm_world_size():
        raise ValueError(f"symm::{op}: group '{group_name}' has "
                         f"{dist.get_world_size(group)} ranks; Symm's "
                         f"collectives run over its world of "
                         f"{lib.symm_world_size()}")


# The schemas of torch.ops.symm_mem's operators (PyTorch's
# torch/distributed/_symmetric_memory/__init__.py defines the fused ones,
# its C++ library the all-reduces), so that switching is one line; Symm's
# own collectives have torch's functional-collective shapes.
SCHEMAS = {
    "fused_all_gather_matmul":
        "fused_all_gather_matmul(Tensor A, Tensor[] Bs, int gather_dim, "
        "str group_name, *, bool return_A=True) -> (Tensor?, Tensor[])",
    "fused_matmul_reduce_scatter":
        "fused_matmul_reduce_scatter(Tensor A, Tensor B, str reduce_op, "
        "int scatter_dim, str group_name) -> Tensor",
    "one_shot_all_reduce":
        "one_shot_all_reduce(Tensor input, str reduce_op, str group_name) "
        "-> Tensor",
    "two_shot_all_reduce_":
        "two_shot_all_reduce_(Tensor(a!) input, str reduce_op, "
        "str group_name) -> Tensor(a!)",
    "all_gather":
        "all_gather(Tensor input, str group_name) -> Tensor",
    "reduce_scatter":
        "reduce_scatter(Tensor input, str reduce_op, str group_name) "
        "-> Tensor",
}
# torch tags its fused operators so that torch.compile keeps their inputs'
# strides; Symm's kernels read row-major matrices.
FIXED_STRIDES = ("fused_all_gather_matmul", "fused_matmul_reduce_scatter")

# The device library's portable GEMM tile (library/gemm.mlir), which both
# fused kernels run: 128 x 128 tiles of C, 32-deep k steps.
TILE, K_STEP = 128, 32


def _fail(op: str, argument: str, problem: str) -> None:
    raise ValueError(f"symm::{op}: argument {argument}: {problem}")


def _matrix(op: str, argument: str, shape: Sequence[int], dtype: str) -> None:
    if dtype != "bfloat16":
        _fail(op, argument, f"Symm's kernel takes bfloat16, got {dtype}")
    if len(shape) != 2:
        _fail(op, argument, f"expected a matrix (2-D), got {len(shape)}-D "
              f"shape {tuple(shape)}")


def _multiple(op: str, argument: str, what: str, value: int, step: int,
              why: str) -> None:
    if value <= 0 or value % step:
        _fail(op, argument, f"{what} {value} is not a positive multiple of "
              f"{step} ({why})")


def check_all_gather_matmul(a_shape: Sequence[int], a_dtype: str,
                            b_shapes: Sequence[Sequence[int]],
                            b_dtypes: Sequence[str], gather_dim: int,
                            world: int) -> Tuple[int, int, List[int]]:
    """What Symm's all_gather_gemm kernel takes of
    ``fused_all_gather_matmul(A, Bs, gather_dim, ...)``, checked on shapes
    and dtype names (no torch needed): returns (rows of A's shard, K, N of
    each B). Raises ValueError naming the operator and the argument."""
    op = "fused_all_gather_matmul"
    _matrix(op, "A", a_shape, a_dtype)
    if gather_dim not in (0, -2):
        _fail(op, "gather_dim", "Symm's kernel gathers rows (0), got "
              f"{gather_dim}")
    rows, k = a_shape
    _multiple(op, "A", "its row count", rows, TILE, "the kernel's row tile")
    _multiple(op, "A", "K", k, K_STEP, "the kernel's k step")
    if not b_shapes:
        _fail(op, "Bs", "expected at least one matrix, got none")
    ns = []
    for i, (shape, dtype) in enumerate(zip(b_shapes, b_dtypes)):
        _matrix(op, f"Bs[{i}]", shape, dtype)
        if shape[0] != k:
            _fail(op, f"Bs[{i}]", f"has {shape[0]} rows, A has K = {k} "
                  "columns")
        _multiple(op, f"Bs[{i}]", "its column count", shape[1], TILE,
                  "the kernel's column tile")
        ns.append(shape[1])
    return rows, k, ns


def check_matmul_reduce_scatter(a_shape: Sequence[int], a_dtype: str,
                                b_shape: Sequence[int], b_dtype: str,
                                reduce_op: str, scatter_dim: int,
                                world: int) -> Tuple[int, int, int]:
    """What Symm's gemm_reduce_scatter kernel takes of
    ``fused_matmul_reduce_scatter(A, B, reduce_op, scatter_dim, ...)``,
    checked on shapes and dtype names (no torch needed): returns (M, this
    rank's K, N). Raises ValueError naming the operator and the argument."""
    op = "fused_matmul_reduce_scatter"
    _matrix(op, "A", a_shape, a_dtype)
    _matrix(op, "B", b_shape, b_dtype)
    if reduce_op != "sum":
        _fail(op, "reduce_op", f"Symm's kernel sums, got '{reduce_op}'")
    if scatter_dim not in (0, -2):
        _fail(op, "scatter_dim", "Symm's kernel scatters rows (0), got "
              f"{scatter_dim}")
    m, k = a_shape
    _multiple(op, "A", "its row count", m, TILE * world,
              f"a row tile for each of the {world} ranks")
    _multiple(op, "A", "K", k, K_STEP, "the kernel's k step")
    if b_shape[0] != k:
        _fail(op, "B", f"has {b_shape[0]} rows, A has K = {k} columns")
    _multiple(op, "B", "its column count", b_shape[1], TILE,
              "the kernel's column tile")
    return m, k, b_shape[1]


# The compiled kernel each fused operator loads: (the workload, whose
# portable kernel symm-compile --emit=ptx made into <workload>.ptx with its
# manifest beside it; the kernel's name).
KERNELS = {
    "fused_all_gather_matmul": ("all_gather_gemm", "all_gather_gemm"),
    "fused_matmul_reduce_scatter": ("gemm_reduce_scatter", "gemm"),
}
_kernel_dir: List[str] = []
_library: list = []
_modules: Dict[str, Module] = {}
_workspaces: Dict[Tuple, "_Workspace"] = {}


def _kernel(op: str) -> Any:
    name, kernel = KERNELS[op]
    module = _modules.get(name)
    if module is None or module.handle is None:
        folder = (_kernel_dir[0] if _kernel_dir else
                  os.environ.get("SYMM_TORCH_KERNEL_DIR"))
        if not folder:
            raise ValueError(f"symm::{op}: no folder of compiled kernels: "
                             "pass kernel_dir= to symm.torch.register or set "
                             "SYMM_TORCH_KERNEL_DIR")
        path = os.path.join(folder, name + ".ptx")
        if not os.path.exists(path):
            raise ValueError(
                f"symm::{op}: no compiled kernel at {path} (symm-compile "
                f"--target=sm_90 --emit=ptx examples/{name}/{name}.mlir -o "
                f"{path})")
        module = _modules[name] = load(path)
    return module[kernel]


class _Workspace:
    """Symmetric buffers of one operator and shape, allocated on first use
    (collectively: every rank calls the operators in the same order), and the
    epoch of its last fused launch."""

    def __init__(self, buffers: Dict[str, Any]) -> None:
        self.buffers = buffers
        self.blocks = [(b.data_ptr(), state.allocations[b.data_ptr()])
                       for b in buffers.values()]
        self.epoch = 0
        self.streams: set = set()

    def live(self) -> bool:
        return all(state.allocations.get(p) is b for p, b in self.blocks)


def _workspace(key: Tuple, make: Any) -> _Workspace:
    ws = _workspaces.get(key)
    if ws is None or not ws.live():  # a new heap since symm.finalize
        ws = _workspaces[key] = _Workspace(make())
    return ws


def _fused(ws: _Workspace, stream: Any) -> bool:
    """Whether this call runs the fused kernel (the flags' epoch goes up) or
    the bulk-synchronous form (Symm's collective, then the GEMM). A CUDA
    graph replays a launch with the epoch it recorded, which the flags have
    passed already: captures take the bulk form, whose collective keeps its
    epochs on the device. The first call on a stream takes it too, so that
    the stream's collective channel exists before a capture needs it."""
    import torch
    if torch.cuda.is_current_stream_capturing():
        return False
    if stream.cuda_stream not in ws.streams:
        ws.streams.add(stream.cuda_stream)
        return False
    ws.epoch += 1
    return True


def _lanes() -> int:
    return 64 if state.backend == "hip" else 32


def _grid(tiles: int) -> int:
    """Persistent workgroups: one per multiprocessor, at most one a tile."""
    import torch
    props = torch.cuda.get_device_properties(torch.cuda.current_device())
    return min(props.multi_processor_count, tiles)


def _device_arg(op: str, argument: str, t: Any) -> None:
    if t.device.type != "cuda":
        _fail(op, argument, f"{_describe(t)} is not on a CUDA device")


def fused_all_gather_matmul(A: Any, Bs: List[Any], gather_dim: int,
                            group_name: str, return_A: bool = True):
    """torch.ops.symm.fused_all_gather_matmul: (gather(A) if return_A,
    [gather(A) @ B for B in Bs]) with Symm's all_gather_gemm kernel (every B
    in one GEMM, side by side)."""
    import torch
    op = "fused_all_gather_matmul"
    _check_group(op, group_name)
    w = lib.symm_world_size()
    rows, k, ns = check_all_gather_matmul(
        tuple(A.shape), _dtype_name(A), [tuple(b.shape) for b in Bs],
        [_dtype_name(b) for b in Bs], gather_dim, w)
    _device_arg(op, "A", A)
    for i, b in enumerate(Bs):
        _device_arg(op, f"Bs[{i}]", b)
    m, n = rows * w, sum(ns)
    b = (Bs[0] if len(Bs) == 1 else torch.cat(list(Bs), dim=1)).contiguous()
    grid = _grid((m // TILE) * (n // TILE))
    # The gathered A the fused kernel's peers push into, and the one the
    # bulk form's collective fills: two, so that a peer's next fused launch
    # never writes rows a bulk GEMM of this rank still reads. The flags:
    # ready per 128-row block, then drained per rank, then one word the
    # Hopper kernel uses.
    ws = _workspace(("ag", rows, k, n, grid), lambda: {
        "shard": empty((rows * k,), "bfloat16"),
        "pushed": empty((m * k,), "bfloat16"),
        "gathered": empty((m * k,), "bfloat16"),
        "flags": zeros((m // TILE + w + 1,), "int32"),
    })
    buf = ws.buffers
    stream = torch.cuda.current_stream()
    buf["shard"].copy_(A.reshape(-1))
    c = torch.empty((m, n), dtype=torch.bfloat16, device=A.device)
    kernel = _kernel(op)
    common = [buf["shard"]]
    if _fused(ws, stream):
        # Workgroups 0 .. P-1 push this rank's rows into the peers' gathered
        # A (P as all_gather_gemm's driver: 16, at most one per row block to
        # send), the others compute.
        producers = max(1, min(16, rows // TILE * (w - 1)))
        a = buf["pushed"]
        kernel(grid=producers + grid, block=8 * _lanes(), stream=stream,
               args=common + [a, b.view(-1), c.view(-1), buf["flags"], m, n,
                              k, ws.epoch, _lanes(), 2, producers, grid])
    else:
        a = buf["gathered"]
        _collectives.all_gather(buf["shard"], out=a, stream=stream,
                                sync=False)
        kernel(grid=grid, block=8 * _lanes(), stream=stream,
               args=common + [a, b.view(-1), c.view(-1), buf["flags"], m, n,
                              k, 0, _lanes(), 0, 0, grid])
    outs = [c] if len(Bs) == 1 else [
        part.contiguous() for part in c.split(ns, dim=1)]
    if not return_A:
        return None, outs
    gathered = a.view(m, k).clone()
    # The fused kernel reads this rank's rows from its shard: no peer
    # pushes them.
    me = lib.symm_rank()
    gathered[me * rows:(me + 1) * rows] = buf["shard"].view(rows, k)
    return gathered, outs


def fused_matmul_reduce_scatter(A: Any, B: Any, reduce_op: str,
                                scatter_dim: int, group_name: str):
    """torch.ops.symm.fused_matmul_reduce_scatter: this rank's block of rows
    of the sum over ranks of A @ B, with Symm's gemm_reduce_scatter kernel."""
    import torch
    op = "fused_matmul_reduce_scatter"
    _check_group(op, group_name)
    w = lib.symm_world_size()
    m, k, n = check_matmul_reduce_scatter(
        tuple(A.shape), _dtype_name(A), tuple(B.shape), _dtype_name(B),
        reduce_op, scatter_dim, w)
    _device_arg(op, "A", A)
    _device_arg(op, "B", B)
    mr, tiles = m // w, (m // TILE) * (n // TILE)
    grid = _grid(tiles)
    # bf16 results move as their bits (the kernel's i16 memrefs): the bulk
    # form's partial C and this rank's rows; the fused form's staging slots
    # (a partial tile from each rank) and flags (ready per tile and source,
    # done per owner). The accumulator of the kernel's third variant
    # (fused_atomic), which neither form here runs, is one word.
    ws = _workspace(("rs", m, k, n, grid), lambda: {
        "partial": empty((m * n,), "int16"),
        "rows": empty((mr * n,), "int16"),
        "staging": empty((m * n,), "float32"),
        "sums": empty((1,), "float32"),
        "flags": zeros((tiles + w,), "int32"),
    })
    buf = ws.buffers
    stream = torch.cuda.current_stream()
    a, b = A.contiguous(), B.contiguous()
    fused = _fused(ws, stream)
    _kernel(op)(grid=grid, block=8 * _lanes(), stream=stream, args=[
        a.view(-1), b.view(-1), buf["partial"], buf["rows"], buf["staging"],
        buf["sums"], buf["flags"], m, n, k, ws.epoch if fused else 0,
        _lanes(), 1 if fused else 0])
    rows = buf["rows"].view(torch.bfloat16)
    if not fused:
        _collectives.reduce_scatter(buf["partial"].view(torch.bfloat16),
                                    out=rows, stream=stream, sync=False)
    return rows.view(mr, n).clone()


def _dtype_name(t: Any) -> str:
    return str(t.dtype).replace("torch.", "")


def register(kernel_dir: Optional[str] = None) -> None:
    """Defines the ``torch.ops.symm`` operators (once): Symm's fused
    workloads and collectives on torch's current stream, so that CUDA graphs
    capture them, with fake implementations so that torch.compile traces
    them. ``kernel_dir`` (default ``$SYMM_TORCH_KERNEL_DIR``) holds the fused
    operators' compiled kernels, ``all_gather_gemm.ptx`` and
    ``gemm_reduce_scatter.ptx`` with their manifests."""
    if kernel_dir is not None:
        _kernel_dir[:] = [os.fspath(kernel_dir)]
    if _library:
        return
    import torch
    library = torch.library.Library("symm", "DEF")
    _library.append(library)
    stream = torch.cuda.current_stream

    def one_shot_all_reduce(input, reduce_op, group_name):
        _check_group("one_shot_all_reduce", group_name)
        out = torch.empty_like(input)
        _collectives.all_reduce(input, op=reduce_op, out=out, stream=stream(),
                                sync=False)
        return out

    def two_shot_all_reduce_(input, reduce_op, group_name):
        _check_group("two_shot_all_reduce_", group_name)
        _collectives.all_reduce(input, op=reduce_op, out=input,
                                stream=stream(), sync=False)
        return input

    def all_gather(input, group_name):
        _check_group("all_gather", group_name)
        return _collectives.all_gather(input, stream=stream(), sync=False)

    def reduce_scatter(input, reduce_op, group_name):
        _check_group("reduce_scatter", group_name)
        return _collectives.reduce_scatter(input, op=reduce_op,
                                           stream=stream(), sync=False)

    def gathered(input):
        n = lib.symm_world_size()
        return ((n * input.shape[0],) + tuple(input.shape[1:])
                if input.dim() else (n,))

    def fake_all_gather_matmul(A, Bs, gather_dim, group_name, return_A=True):
        m = lib.symm_world_size() * A.shape[0]
        return (A.new_empty((m, A.shape[1])) if return_A else None,
                [A.new_empty((m, b.shape[1])) for b in Bs])

    fakes = {
        "fused_all_gather_matmul": fake_all_gather_matmul,
        "fused_matmul_reduce_scatter": lambda A, B, op, dim, g: A.new_empty(
            (A.shape[0] // lib.symm_world_size(), B.shape[1])),
        "one_shot_all_reduce": lambda input, op, g: torch.empty_like(input),
        "two_shot_all_reduce_": lambda input, op, g: input,
        "all_gather": lambda input, g: input.new_empty(gathered(input)),
        "reduce_scatter": lambda input, op, g: input.new_empty(
            (input.shape[0] // lib.symm_world_size(),) +
            tuple(input.shape[1:])),
    }
    impls = {
        "fused_all_gather_matmul": fused_all_gather_matmul,
        "fused_matmul_reduce_scatter": fused_matmul_reduce_scatter,
        "one_shot_all_reduce": one_shot_all_reduce,
        "two_shot_all_reduce_": two_shot_all_reduce_,
        "all_gather": all_gather,
        "reduce_scatter": reduce_scatter,
    }
    for name, schema in SCHEMAS.items():
        tags = ((torch.Tag.needs_fixed_stride_order,)
                if name in FIXED_STRIDES else ())
        library.define(schema, tags=tags)
        library.impl(name, impls[name], "CUDA")
        torch.library.register_fake(f"symm::{name}", fakes[name], lib=library)
