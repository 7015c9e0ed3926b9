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

:func:`register` defines ``torch.ops.symm.one_shot_all_reduce``,
``two_shot_all_reduce_`` (the signatures of ``torch.ops.symm_mem``'s),
``all_reduce``, ``all_gather`` and ``reduce_scatter``: Symm's collectives on
torch's current stream, so that they are captured in CUDA graphs, with fake
implementations so that ``torch.compile`` traces them without a graph break.
See docs/Python.md.
"""

from __future__ import annotations

import struct
from typing import Any, Optional

from . import _collectives
from ._core import require_init, state
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
    require_init("symm.torch.heap")
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


# --- Symm's collectives as torch operators ---------------------------------


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


# The schemas of torch.ops.symm_mem's operators, so that switching is one
# line; Symm's own collectives have torch's functional-collective shapes.
SCHEMAS = {
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
_library: list = []


def register() -> None:
    """Defines the ``torch.ops.symm`` operators (once): Symm's collectives
    on torch's current stream, so that CUDA graphs capture them, with fake
    implementations so that torch.compile traces them."""
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

    fakes = {
        "one_shot_all_reduce": lambda input, op, g: torch.empty_like(input),
        "two_shot_all_reduce_": lambda input, op, g: input,
        "all_gather": lambda input, g: input.new_empty(gathered(input)),
        "reduce_scatter": lambda input, op, g: input.new_empty(
            (input.shape[0] // lib.symm_world_size(),) +
            tuple(input.shape[1:])),
    }
    impls = {
        "one_shot_all_reduce": one_shot_all_reduce,
        "two_shot_all_reduce_": two_shot_all_reduce_,
        "all_gather": all_gather,
        "reduce_scatter": reduce_scatter,
    }
    for name, schema in SCHEMAS.items():
        library.define(schema)
        library.impl(name, impls[name], "CUDA")
        torch.library.register_fake(f"symm::{name}", fakes[name], lib=library)
