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
without a graph break. The fused operators run the workloads' Hopper
kernels (TMA, warpgroup MMA) on compute capability 9.0 where the shapes
allow, the portable ones elsewhere (:data:`kernel_choice` says which, and
why). :func:`as_tensor` hands a Symm allocation to torch without a copy. See
docs/Python.md.
"""

from __future__ import annotations

import ctypes
import os
import struct
import sys
from typing import Any, Dict, List, Optional, Sequence, Tuple

from . import _collectives, _tensors
from ._core import (barrier, empty, in_heap, require_init, require_live,
                    state, zeros)
from ._dtypes import DTYPES, REDUCE_OPS
from ._module import Module, load
from ._runtime import check, lib
from ._tensor_maps import TensorMap, tensor_map


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


# The groups _check_group passed, with the heap (state.generation) it
# checked them against: an operator checks its group once.
_groups: Dict[str, int] = {}


def _check_group(op: str, group_name: str) -> None:
    if _groups.get(group_name) == state.generation:
        return
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
    _groups[group_name] = state.generation


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


# The compiled kernels each fused operator loads: (the workload, whose
# portable kernel symm-compile --emit=ptx made into <workload>.ptx with its
# manifest beside it; the kernel's name), and the same of its Hopper kernel
# (<workload>_hopper.ptx, symm-compile --target=sm_90a).
KERNELS = {
    "fused_all_gather_matmul": ("all_gather_gemm", "all_gather_gemm"),
    "fused_matmul_reduce_scatter": ("gemm_reduce_scatter", "gemm"),
}
HOPPER_KERNELS = {
    "fused_all_gather_matmul": ("all_gather_gemm_hopper", "all_gather_gemm"),
    "fused_matmul_reduce_scatter": ("gemm_reduce_scatter_hopper", "gemm"),
}

# What the host needs of the Hopper kernels (TMA + wgmma, sm_90a; the C++
# drivers' kHopper* constants in examples/common/workload.h): 128 x 256
# tiles of C, 64-deep K steps, 384 threads and 197632 bytes of dynamic
# workgroup memory; A read in 128 x 64 boxes and B in 64 x 64 boxes of
# bf16, through TMA descriptors with the 128-byte swizzle. TMA rows are
# multiples of 16 bytes: N and K multiples of 8. all_gather_gemm_hopper
# takes one A descriptor per rank, for at most 8 ranks.
HOPPER_TILE_N, HOPPER_K_STEP, HOPPER_MULTIPLE = 256, 64, 8
HOPPER_THREADS, HOPPER_SHARED_BYTES = 384, 197632
HOPPER_BOX_A, HOPPER_BOX_B, HOPPER_SWIZZLE = (128, 64), (64, 64), 128
HOPPER_RANKS = 8
# The flags count launches in 32-bit words (epochs, and the tile tickets of
# all_gather_gemm_hopper): a workspace starts its epochs again before they
# overflow.
FLAG_LIMIT = 2 ** 31 - 1


def hopper_shape_rule(op: str, k: int, n: int, world: int) -> Optional[str]:
    """Why the Hopper kernel of ``op`` does not take shapes that passed
    check_all_gather_matmul or check_matmul_reduce_scatter (``k``: K, for
    the reduce-scatter this rank's K; ``n``: the columns of B, all Bs side
    by side), or None where it does. No torch needed."""
    if op == "fused_all_gather_matmul":
        if world > HOPPER_RANKS:
            return (f"{world} ranks: the Hopper kernel takes one A "
                    f"descriptor per rank, for at most {HOPPER_RANKS}")
        for name, value in (("N", n), ("K", k)):
            if value % HOPPER_MULTIPLE:
                return (f"{name} {value} is not a multiple of "
                        f"{HOPPER_MULTIPLE} (the Hopper kernel's TMA rows)")
        return None
    if n % HOPPER_TILE_N:
        return (f"N {n} is not a multiple of {HOPPER_TILE_N} (the Hopper "
                "kernel's column tile)")
    if k % HOPPER_K_STEP:
        return (f"this rank's K {k} is not a multiple of {HOPPER_K_STEP} "
                "(the Hopper kernel's k step)")
    return None


#: The kernel each fused operator's last call ran: ``"hopper"``, or
#: ``"portable (<why not the Hopper kernel>)"``.
kernel_choice: Dict[str, str] = {}
_kernel_dir: List[str] = []
_library: list = []
_modules: Dict[str, Module] = {}
_workspaces: Dict[Tuple, "_Workspace"] = {}
# TMA descriptors of the operators' B (and the reduce-scatter's A), by
# (address, rows, columns, box): a descriptor describes memory, so one made
# for a tensor serves every later tensor of that shape at that address.
# The runtime keeps each (128 bytes of device memory) until symm.finalize.
_maps: Dict[Tuple, TensorMap] = {}


def _kernel_folder(op: str) -> str:
    folder = (_kernel_dir[0] if _kernel_dir else
              os.environ.get("SYMM_TORCH_KERNEL_DIR"))
    if not folder:
        raise ValueError(f"symm::{op}: no folder of compiled kernels: "
                         "pass kernel_dir= to symm.torch.register or set "
                         "SYMM_TORCH_KERNEL_DIR")
    return folder


def _kernel(op: str, hopper: bool = False) -> Any:
    name, kernel = (HOPPER_KERNELS if hopper else KERNELS)[op]
    module = _modules.get(name)
    if module is None or module.handle is None:
        path = os.path.join(_kernel_folder(op), name + ".ptx")
        if not os.path.exists(path):
            source = f"examples/{KERNELS[op][0]}/{name}.mlir"
            raise ValueError(
                f"symm::{op}: no compiled kernel at {path} (symm-compile "
                f"--target={'sm_90a' if hopper else 'sm_90'} --emit=ptx "
                f"{source} -o {path})")
        module = _modules[name] = load(path)
    return module[kernel]


def _ranks_share_a_gpu() -> bool:
    """Whether this node runs more ranks than it has GPUs (the runtime
    gives local rank r GPU r mod count)."""
    import torch
    local = (os.environ.get("LOCAL_WORLD_SIZE") or
             os.environ.get("OMPI_COMM_WORLD_LOCAL_SIZE"))
    ranks = int(local) if local else lib.symm_world_size()
    return ranks > torch.cuda.device_count()


def _hopper_unavailable(op: str, k: int, n: int, world: int) -> Optional[str]:
    """Why ``op`` runs the portable kernel at these shapes, or None where it
    runs the Hopper kernel."""
    import torch
    if os.environ.get("SYMM_TORCH_HOPPER") == "0":
        return "SYMM_TORCH_HOPPER=0"
    if state.backend not in ("cuda", "nvshmem"):
        return f"the {state.backend} backend"
    major, minor = torch.cuda.get_device_capability()
    if (major, minor) != (9, 0):
        return f"compute capability {major}.{minor}, not 9.0"
    rule = hopper_shape_rule(op, k, n, world)
    if rule:
        return rule
    if _ranks_share_a_gpu():
        return ("ranks share a GPU, where the Hopper kernels' waits for a "
                "peer fault")
    name = HOPPER_KERNELS[op][0] + ".ptx"
    folder = _kernel_folder(op)
    if not os.path.exists(os.path.join(folder, name)):
        return f"no {name} in {folder}"
    if torch.cuda.is_current_stream_capturing():
        return "first called while a CUDA graph was captured"
    return None


def _aligned(t: Any) -> Any:
    """``t`` (contiguous), copied where its first element is not 16-byte
    aligned as TMA needs (a view into a tensor at an odd offset)."""
    return t.clone() if t.data_ptr() % 16 else t


def _matrix_map(t: Any, box: Tuple[int, int], capturing: bool) -> Any:
    """The TMA descriptor of the contiguous, aligned matrix ``t`` with
    ``box``, or None where none exists yet and none can be made (during a
    capture)."""
    key = (t.data_ptr(), t.shape[0], t.shape[1], box)
    found = _maps.get(key)
    if found is None or found.generation != state.generation:
        if capturing:
            return None
        found = _maps[key] = tensor_map(t, box, HOPPER_SWIZZLE)
    return found


class _Workspace:
    """Symmetric buffers of one operator and shape, allocated on first use
    (collectively: every rank calls the operators in the same order), the
    kernel it runs (``hopper``: with its grid and the descriptors of its
    buffers), and the epoch of its last fused launch."""

    def __init__(self, buffers: Dict[str, Any], portable_grid: int,
                 choice: Optional[str]) -> None:
        self.buffers = buffers
        self.blocks = [(b.data_ptr(), state.allocations[b.data_ptr()])
                       for b in buffers.values()]
        self.epoch = 0
        self.streams: set = set()
        self.portable_grid = portable_grid
        self.grid = portable_grid
        self.hopper = choice is None
        self.choice = "hopper" if choice is None else f"portable ({choice})"
        # The last epoch a launch may pass before the flags start again.
        self.last_epoch = FLAG_LIMIT
        self.maps: Dict[str, Any] = {}
        self.concat: Any = None  # the Bs side by side (all-gather)

    def live(self) -> bool:
        return all(state.allocations.get(p) is b for p, b in self.blocks)


def _workspace(op: str, key: Tuple, make: Any) -> _Workspace:
    ws = _workspaces.get(key)
    if ws is None or not ws.live():  # a new heap since symm.finalize
        ws = _workspaces[key] = make()
        if os.environ.get("SYMM_TORCH_VERBOSE") == "1":
            m, k, n = key[1:]
            print(f"symm::{op} rank {lib.symm_rank()}: "
                  f"{'rows of A' if key[0] == 'ag' else 'M'}={m} K={k} "
                  f"N={n}: {ws.choice}", file=sys.stderr, flush=True)
    return ws


def _restart_epochs(ws: _Workspace) -> None:
    """Collective (every rank reaches it at the same call): once every
    rank's launches are done, the flags go back to zero and the epochs
    start again at 1."""
    import torch
    torch.cuda.synchronize()
    barrier()
    ws.buffers["flags"].zero_()
    torch.cuda.synchronize()
    barrier()
    ws.epoch = 0


def _fused(ws: _Workspace, stream: Any, capturing: bool) -> bool:
    """Whether this call runs the fused kernel (the flags' epoch goes up) or
    the bulk-synchronous form (Symm's collective, then the GEMM). A CUDA
    graph replays a launch with the epoch it recorded, which the flags have
    passed already: captures take the bulk form, whose collective keeps its
    epochs on the device. The first call on a stream takes it too, so that
    the stream's collective channel exists before a capture needs it."""
    if capturing:
        return False
    if stream.cuda_stream not in ws.streams:
        ws.streams.add(stream.cuda_stream)
        return False
    if ws.epoch >= ws.last_epoch:
        _restart_epochs(ws)
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


def _rows_map(t: Any, rows: int, k: int, q: int) -> TensorMap:
    """The A descriptor of rank q's rows (``rows`` x ``k``) of the flat
    buffer ``t``."""
    return tensor_map(t[q * rows * k:(q + 1) * rows * k].view(rows, k),
                      HOPPER_BOX_A, HOPPER_SWIZZLE)


def _all_gather_workspace(op: str, rows: int, k: int, n: int,
                          w: int) -> _Workspace:
    m = rows * w
    # The gathered A the fused kernel's peers push into, and the one the
    # bulk form's collective fills: two, so that a peer's next fused launch
    # never writes rows a bulk GEMM of this rank still reads. The flags:
    # ready per 128-row block, then drained per rank, then the Hopper
    # kernel's tile tickets; the bulk form's tickets apart (its graphs
    # replay epoch 1, so the word goes back to 0 before each launch).
    flags = m // TILE + w + 1
    buffers = {
        "shard": empty((rows * k,), "bfloat16"),
        "pushed": empty((m * k,), "bfloat16"),
        "gathered": empty((m * k,), "bfloat16"),
        "flags": zeros((flags,), "int32"),
        "tickets": zeros((flags,), "int32"),
    }
    ws = _Workspace(buffers, _grid((m // TILE) * (n // TILE)),
                    _hopper_unavailable(op, k, n, w))
    ws.last_epoch = FLAG_LIMIT // ws.portable_grid  # drained counts
    if ws.hopper:
        tiles = (m // TILE) * -(-n // HOPPER_TILE_N)
        ws.grid = _grid(tiles)
        # One launch draws a ticket per tile and per GEMM workgroup.
        ws.last_epoch = FLAG_LIMIT // (tiles + ws.grid)
        me = lib.symm_rank()
        # Rank q's rows (descriptor arguments past the world size are never
        # read): in the fused form this rank's own from its shard, the
        # peers' where they push them; in the bulk form the gathered A's.
        ranks = [q if q < w else 0 for q in range(HOPPER_RANKS)]
        shard = tensor_map(buffers["shard"].view(rows, k), HOPPER_BOX_A,
                           HOPPER_SWIZZLE)
        pushed = [_rows_map(buffers["pushed"], rows, k, q) for q in range(w)]
        gathered = [_rows_map(buffers["gathered"], rows, k, q)
                    for q in range(w)]
        ws.maps["fused"] = [shard if q == me else pushed[q] for q in ranks]
        ws.maps["bulk"] = [gathered[q] for q in ranks]
        ws.maps["ticket"] = buffers["tickets"][flags - 1:]
    return ws


def fused_all_gather_matmul(A: Any, Bs: List[Any], gather_dim: int,
                            group_name: str, return_A: bool = True):
    """torch.ops.symm.fused_all_gather_matmul: (gather(A) if return_A,
    [gather(A) @ B for B in Bs]) with Symm's all_gather_gemm kernel (every B
    in one GEMM, side by side): the Hopper kernel where it applies, else
    the portable one (:data:`kernel_choice`)."""
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
    ws = _workspace(op, ("ag", rows, k, n),
                    lambda: _all_gather_workspace(op, rows, k, n, w))
    buf = ws.buffers
    stream = torch.cuda.current_stream()
    capturing = torch.cuda.is_current_stream_capturing()
    buf["shard"].copy_(A.reshape(-1))
    c = torch.empty((m, n), dtype=torch.bfloat16, device=A.device)
    if len(Bs) == 1:
        b = Bs[0].contiguous()
    else:
        # Side by side in the workspace's matrix, whose descriptor stays;
        # a capture that comes first concatenates into its own memory.
        if ws.concat is None and not capturing:
            ws.concat = torch.empty((k, n), dtype=torch.bfloat16,
                                    device=A.device)
        b = torch.cat(list(Bs), dim=1, out=ws.concat)
    b_map = None
    if ws.hopper:
        b = _aligned(b)
        b_map = _matrix_map(b, HOPPER_BOX_B, capturing)
    fused = _fused(ws, stream, capturing)
    kernel_choice[op] = ("hopper" if b_map is not None else ws.choice
                         if not ws.hopper else "portable (B was allocated "
                         "during the CUDA graph's capture: no descriptor)")
    common = [buf["shard"]]
    if fused:
        # Workgroups 0 .. P-1 push this rank's rows into the peers' gathered
        # A (P as all_gather_gemm's driver: 16, at most one per row block to
        # send), the others compute.
        producers = max(1, min(16, rows // TILE * (w - 1)))
        a = buf["pushed"]
        if b_map is not None:
            _kernel(op, hopper=True)(
                grid=producers + ws.grid, block=HOPPER_THREADS,
                shared=HOPPER_SHARED_BYTES, stream=stream,
                args=common + [a, b.view(-1), c.view(-1), buf["flags"], m, n,
                               k, ws.epoch, 2, producers, ws.grid] +
                ws.maps["fused"] + [b_map])
        else:
            _kernel(op)(grid=producers + ws.grid, block=8 * _lanes(),
                        stream=stream,
                        args=common + [a, b.view(-1), c.view(-1),
                                       buf["flags"], m, n, k, ws.epoch,
                                       _lanes(), 2, producers, ws.grid])
    else:
        a = buf["gathered"]
        _bf16_collective(lib.symm_all_gather, buf["shard"], a, rows * k,
                         stream)
        if b_map is not None:
            ws.maps["ticket"].zero_()
            _kernel(op, hopper=True)(
                grid=ws.grid, block=HOPPER_THREADS,
                shared=HOPPER_SHARED_BYTES, stream=stream,
                args=common + [a, b.view(-1), c.view(-1), buf["tickets"], m,
                               n, k, 1, 0, 0, ws.grid] +
                ws.maps["bulk"] + [b_map])
        else:
            _kernel(op)(grid=ws.portable_grid, block=8 * _lanes(),
                        stream=stream,
                        args=common + [a, b.view(-1), c.view(-1),
                                       buf["flags"], m, n, k, 0, _lanes(), 0,
                                       0, ws.portable_grid])
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


def _reduce_scatter_workspace(op: str, m: int, k: int, n: int,
                              w: int) -> _Workspace:
    mr, tiles = m // w, (m // TILE) * (n // TILE)
    why = _hopper_unavailable(op, k, n, w)
    # bf16 results move as their bits (the kernels' i16 memrefs): the bulk
    # form's partial C and this rank's rows; the fused form's staging slots
    # (a partial tile from each rank: f32 for the portable kernel, bf16 for
    # the Hopper one) and flags (ready per tile and source, done per
    # owner). The accumulator of the kernels' third variant (fused_atomic),
    # which neither form here runs, is one word; so is the portable
    # kernel's staging where the Hopper kernel runs (its bulk form, the
    # only one it may run then, does not read it).
    buffers = {
        "partial": empty((m * n,), "int16"),
        "rows": empty((mr * n,), "int16"),
        "sums": empty((1,), "float32"),
        "flags": zeros((tiles + w,), "int32"),
    }
    if why is None:
        buffers["slots"] = empty((m * n,), "int16")
        buffers["staging"] = buffers["sums"]
    else:
        buffers["staging"] = empty((m * n,), "float32")
    ws = _Workspace(buffers, _grid(tiles), why)
    if ws.hopper:
        tiles = (m // TILE) * (n // HOPPER_TILE_N)
        ws.grid = _grid(tiles)
    # Every owner's done count on each peer grows by its tiles per launch.
    ws.last_epoch = FLAG_LIMIT // (tiles // w)
    return ws


def fused_matmul_reduce_scatter(A: Any, B: Any, reduce_op: str,
                                scatter_dim: int, group_name: str):
    """torch.ops.symm.fused_matmul_reduce_scatter: this rank's block of rows
    of the sum over ranks of A @ B, with Symm's gemm_reduce_scatter kernel:
    the Hopper kernel where it applies, else the portable one
    (:data:`kernel_choice`)."""
    import torch
    op = "fused_matmul_reduce_scatter"
    _check_group(op, group_name)
    w = lib.symm_world_size()
    m, k, n = check_matmul_reduce_scatter(
        tuple(A.shape), _dtype_name(A), tuple(B.shape), _dtype_name(B),
        reduce_op, scatter_dim, w)
    _device_arg(op, "A", A)
    _device_arg(op, "B", B)
    mr = m // w
    ws = _workspace(op, ("rs", m, k, n),
                    lambda: _reduce_scatter_workspace(op, m, k, n, w))
    buf = ws.buffers
    stream = torch.cuda.current_stream()
    capturing = torch.cuda.is_current_stream_capturing()
    a, b = A.contiguous(), B.contiguous()
    maps = None
    if ws.hopper:
        a, b = _aligned(a), _aligned(b)
        maps = [_matrix_map(a, HOPPER_BOX_A, capturing),
                _matrix_map(b, HOPPER_BOX_B, capturing)]
        if None in maps:
            maps = None
    fused = _fused(ws, stream, capturing)
    kernel_choice[op] = ("hopper" if maps else ws.choice if not ws.hopper
                         else "portable (A or B was allocated during the "
                         "CUDA graph's capture: no descriptor)")
    epoch, variant = (ws.epoch, 1) if fused else (0, 0)
    if maps:
        # The fused form's peers store their bf16 partials in the owner's
        # slots; the bulk form's GEMM its own partial C.
        _kernel(op, hopper=True)(
            grid=ws.grid, block=HOPPER_THREADS, shared=HOPPER_SHARED_BYTES,
            stream=stream, args=[
                a.view(-1), b.view(-1),
                buf["slots"] if fused else buf["partial"], buf["rows"],
                buf["sums"], buf["flags"], m, n, k, epoch, variant] + maps)
    else:
        _kernel(op)(grid=ws.portable_grid, block=8 * _lanes(), stream=stream,
                    args=[a.view(-1), b.view(-1), buf["partial"], buf["rows"],
                          buf["staging"], buf["sums"], buf["flags"], m, n, k,
                          epoch, _lanes(), variant])
    rows = buf["rows"].view(torch.bfloat16)
    if not fused:
        _bf16_collective(lib.symm_reduce_scatter, buf["partial"], rows,
                         mr * n, stream, REDUCE_OPS.index("sum"))
    return rows.view(mr, n).clone()


def _bf16_collective(call: Any, src: Any, dst: Any, count: int, stream: Any,
                     *op: int) -> None:
    """The runtime's all-gather or reduce-scatter of a workspace's bf16
    buffers (live, contiguous, in the heap: nothing to check per call)."""
    check(call(src.data_ptr(), dst.data_ptr(), count,
               DTYPES["bfloat16"].collective, *op, stream.cuda_stream))


def _dtype_name(t: Any) -> str:
    return str(t.dtype).replace("torch.", "")


# --- The collective operators' path ----------------------------------------

# torch dtype -> symm_dtype of the dtypes the collectives take, filled by
# register(); reduce_op name -> symm_reduce_op.
_COLLECTIVE_DTYPES: Dict[Any, int] = {}
_REDUCE_OPS = {name: i for i, name in enumerate(REDUCE_OPS)}
_heap_range = [0, 0, 0]  # (state.generation, first, end) of this rank's heap
_raw_stream: List[Any] = []


def _outside_heap(ptr: int) -> bool:
    if _heap_range[0] != state.generation:
        base = ctypes.c_void_p()
        check(lib.symm_heap_base(lib.symm_rank(), ctypes.byref(base)))
        _heap_range[:] = [state.generation, base.value or 0,
                          (base.value or 0) + lib.symm_heap_size()]
    return not _heap_range[1] <= ptr < _heap_range[2]


def _direct(x: Any, out: Any) -> Optional[int]:
    """The symm_dtype of ``x`` where the runtime may be called with ``x``
    and ``out`` at once: a dtype the collectives take, both contiguous CUDA
    tensors outside Symm's heap (whose freed allocations the checked path
    refuses). None sends the call through symm's checked path, which
    raises the errors."""
    code = _COLLECTIVE_DTYPES.get(x.dtype)
    if (code is None or out.dtype != x.dtype or not x.is_cuda or
            not out.is_cuda or not x.is_contiguous() or
            not out.is_contiguous() or not _outside_heap(x.data_ptr()) or
            not _outside_heap(out.data_ptr())):
        return None
    return code


def _all_reduce(x: Any, op: str, out: Any) -> None:
    """Symm's all-reduce of ``x`` into ``out`` on torch's current stream."""
    code, reduce = _direct(x, out), _REDUCE_OPS.get(op)
    if code is None or reduce is None:
        import torch
        _collectives.all_reduce(x, op=op, out=out,
                                stream=torch.cuda.current_stream(),
                                sync=False)
        return
    check(lib.symm_all_reduce(x.data_ptr(), out.data_ptr(), x.numel(), code,
                              reduce, _raw_stream[0]()))


def register(kernel_dir: Optional[str] = None) -> None:
    """Defines the ``torch.ops.symm`` operators (once): Symm's fused
    workloads and collectives on torch's current stream, so that CUDA graphs
    capture them, with fake implementations so that torch.compile traces
    them. ``kernel_dir`` (default ``$SYMM_TORCH_KERNEL_DIR``) holds the fused
    operators' compiled kernels, ``all_gather_gemm.ptx`` and
    ``gemm_reduce_scatter.ptx`` with their manifests, and for sm_90 GPUs
    ``all_gather_gemm_hopper.ptx`` and ``gemm_reduce_scatter_hopper.ptx``
    (without them the portable kernels run there too)."""
    if kernel_dir is not None:
        _kernel_dir[:] = [os.fspath(kernel_dir)]
    if _library:
        return
    import torch
    library = torch.library.Library("symm", "DEF")
    _library.append(library)
    stream = torch.cuda.current_stream
    for name, d in DTYPES.items():
        if d.collective is not None:
            _COLLECTIVE_DTYPES[getattr(torch, name)] = d.collective
    # The current stream's handle without a torch.cuda.Stream object (what
    # torch's compiled code calls), where this torch has it.
    raw = getattr(torch._C, "_cuda_getCurrentRawStream", None)
    current = torch.cuda.current_device
    _raw_stream[:] = [(lambda: raw(current())) if raw else
                      (lambda: stream().cuda_stream)]

    def one_shot_all_reduce(input, reduce_op, group_name):
        _check_group("one_shot_all_reduce", group_name)
        out = torch.empty_like(input)
        _all_reduce(input, reduce_op, out)
        return out

    def two_shot_all_reduce_(input, reduce_op, group_name):
        _check_group("two_shot_all_reduce_", group_name)
        _all_reduce(input, reduce_op, input)
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
