"""Where an eager call of Symm's all-reduce operator spends its host time,
piece by piece, one GPU per rank: torch.ops.symm.one_shot_all_reduce and
torch.ops.symm_mem's beside it, a torch operator whose Python
implementation returns its input (the dispatcher's own cost), and the
pieces symm.torch's implementation runs: the group check, torch's current
stream, the output's allocation, symm.all_reduce (the checked path), the
runtime's symm_all_reduce called through ctypes alone, and symm.torch's
path to it. Then the operator under cProfile, its heaviest functions.

    SYMM_BACKEND=cuda torchrun --nproc-per-node N op_overhead.py

Each piece runs CALLS times back to back after WARMUP calls (all ranks
together: the collective ones meet their peers), the device synchronised
between pieces; microseconds of host time per call, the slowest rank's.
Inputs: a 64 KiB bf16 tensor from torch's symmetric memory, whose device
work (about 10 us) is below the host time measured. Prints on rank 0:
    op_overhead PIECE: X us
then the profile.
"""
import cProfile
import io
import os
import pstats
import time

# NVLink multicast stays off: NCCL, torch's symmetric memory and NVSHMEM.
os.environ.update(NCCL_NVLS_ENABLE="0", TORCH_SYMM_MEM_DISABLE_MULTICAST="1",
                  NVSHMEM_DISABLE_NVLS="1")

import torch  # noqa: E402
import torch.distributed as dist  # noqa: E402
import torch.distributed._symmetric_memory as symm_mem  # noqa: E402

import symm  # noqa: E402
import symm.torch  # noqa: E402
from symm import _collectives  # noqa: E402
from symm._dtypes import DTYPES  # noqa: E402
from symm._runtime import lib  # noqa: E402

CALLS, WARMUP = 2000, 200
BYTES = 64 << 10


def host_us(step):
    """Microseconds of host time per step(), the slowest rank's."""
    for _ in range(WARMUP):
        step()
    torch.cuda.synchronize()
    dist.barrier()
    start = time.perf_counter()
    for _ in range(CALLS):
        step()
    us = (time.perf_counter() - start) / CALLS * 1e6
    torch.cuda.synchronize()
    worst = torch.tensor([us], device="cuda")
    dist.all_reduce(worst, op=dist.ReduceOp.MAX)
    return worst.item()


def main():
    torch.cuda.set_device(int(os.environ.get("LOCAL_RANK", "0")))
    dist.init_process_group("nccl", device_id=torch.device(
        "cuda", torch.cuda.current_device()))
    symm.init()
    symm.torch.register()
    group = dist.group.WORLD.group_name
    rank0 = dist.get_rank() == 0
    x = symm_mem.empty(BYTES // 2, dtype=torch.bfloat16, device="cuda")
    symm_mem.rendezvous(x, group)
    x.copy_((torch.randint(-8, 8, x.shape, device="cuda") / 8).to(x.dtype))
    out = torch.empty_like(x)
    s = torch.cuda.current_stream()

    noop = torch.library.Library("symm_overhead", "DEF")
    noop.define("identity(Tensor(a) x) -> Tensor(a)")
    noop.impl("identity", lambda t: t, "CUDA")

    code = DTYPES["bfloat16"].collective
    raw = (x.data_ptr(), out.data_ptr(), x.numel(), code, 0, s.cuda_stream)
    pieces = [
        ("torch.ops.symm.one_shot_all_reduce",
         lambda: torch.ops.symm.one_shot_all_reduce(x, "sum", group)),
        ("torch.ops.symm_mem.one_shot_all_reduce",
         lambda: torch.ops.symm_mem.one_shot_all_reduce(x, "sum", group)),
        ("a torch operator returning its input (Python)",
         lambda: torch.ops.symm_overhead.identity(x)),
        ("symm.torch._check_group",
         lambda: symm.torch._check_group("one_shot_all_reduce", group)),
        ("torch.cuda.current_stream()", torch.cuda.current_stream),
        ("torch.empty_like", lambda: torch.empty_like(x)),
        ("symm.all_reduce (checked)",
         lambda: _collectives.all_reduce(x, out=out, stream=s, sync=False)),
        ("symm_all_reduce through ctypes", lambda: lib.symm_all_reduce(*raw)),
    ]
    if hasattr(symm.torch, "_all_reduce"):
        pieces.append(("symm.torch._all_reduce",
                       lambda: symm.torch._all_reduce(x, "sum", out)))
    for name, step in pieces:
        us = host_us(step)
        if rank0:
            print(f"op_overhead {name}: {us:.1f} us", flush=True)

    profile = cProfile.Profile()
    torch.cuda.synchronize()
    dist.barrier()
    profile.enable()
    for _ in range(CALLS):
        torch.ops.symm.one_shot_all_reduce(x, "sum", group)
    profile.disable()
    torch.cuda.synchronize()
    if rank0:
        text = io.StringIO()
        pstats.Stats(profile, stream=text).sort_stats("tottime").print_stats(
            18)
        print(text.getvalue(), flush=True)
    dist.barrier()
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
