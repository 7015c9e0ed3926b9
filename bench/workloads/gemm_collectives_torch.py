"""The PyTorch baselines of gemm_all_scatter and gemm_reduce_scatter: what
users run today, cuBLAS (torch.matmul) + NCCL, and PyTorch's symmetric-memory
fused_matmul_reduce_scatter, bf16, timed like the drivers' --bench.

    torchrun --nproc-per-node 2 gemm_collectives_torch.py all_scatter M,N,K [M,N,K ...]
    torchrun --nproc-per-node 2 gemm_collectives_torch.py reduce_scatter M,N,K [M,N,K ...]

M, N, K are global, as for the drivers: all_scatter splits B (K x N) along N
(rank r computes C[:, r N/W ..] = A B_r and all-gathers it into C, M x N);
reduce_scatter splits K (C = sum_r A_r B_r, rank r keeps rows block r).
Prints on rank 0, per shape:
    torch all_scatter m=.. n=.. k=..: matmul X us (T TFLOP/s), all_gather Y us,
    matmul+all_gather Z us
    torch reduce_scatter m=.. n=.. k=..: matmul X us (T TFLOP/s),
    reduce_scatter Y us, matmul+reduce_scatter Z us
    torch fused_matmul_reduce_scatter m=.. n=.. k=..: F us
A baseline that fails prints its error and the others still run.
"""
import os
import sys

import torch
import torch.distributed as dist

import torch_timing


def per_iter_us(step):
    return torch_timing.per_iter_us(step, iters=20, warmup=3)


def all_scatter(m, n, k):
    nr = n // world
    a = torch.rand(m, k, device="cuda", dtype=torch.bfloat16) * 2 - 1
    b = torch.rand(k, nr, device="cuda", dtype=torch.bfloat16) * 2 - 1
    cr = torch.empty(m, nr, device="cuda", dtype=torch.bfloat16)
    gathered = torch.empty(world, m, nr, device="cuda", dtype=torch.bfloat16)
    c = torch.empty(m, n, device="cuda", dtype=torch.bfloat16)

    def matmul():
        torch.matmul(a, b, out=cr)

    def gather():
        dist.all_gather_into_tensor(gathered, cr)

    # C (M x N) from the gathered column blocks: the layout fix Symm's
    # bulk_sync does too.
    def both():
        torch.matmul(a, b, out=cr)
        dist.all_gather_into_tensor(gathered, cr)
        torch.cat(gathered.unbind(0), dim=1, out=c)

    t = [per_iter_us(f) for f in (matmul, gather, both)]
    tflops = 2 * m * nr * k / t[0] * 1e-6
    if rank == 0:
        print(f"torch all_scatter m={m} n={n} k={k}: matmul {t[0]:.1f} us "
              f"({tflops:.0f} TFLOP/s), all_gather {t[1]:.1f} us, "
              f"matmul+all_gather {t[2]:.1f} us", flush=True)


def reduce_scatter(m, n, k):
    kr = k // world
    a = torch.rand(m, kr, device="cuda", dtype=torch.bfloat16) * 2 - 1
    b = torch.rand(kr, n, device="cuda", dtype=torch.bfloat16) * 2 - 1
    partial = torch.empty(m, n, device="cuda", dtype=torch.bfloat16)
    out = torch.empty(m // world, n, device="cuda", dtype=torch.bfloat16)

    def matmul():
        torch.matmul(a, b, out=partial)

    def scatter():
        dist.reduce_scatter_tensor(out, partial)

    def both():
        torch.matmul(a, b, out=partial)
        dist.reduce_scatter_tensor(out, partial)

    t = [per_iter_us(f) for f in (matmul, scatter, both)]
    tflops = 2 * m * n * kr / t[0] * 1e-6
    if rank == 0:
        print(f"torch reduce_scatter m={m} n={n} k={k}: matmul {t[0]:.1f} us "
              f"({tflops:.0f} TFLOP/s), reduce_scatter {t[1]:.1f} us, "
              f"matmul+reduce_scatter {t[2]:.1f} us", flush=True)
    try:
        # PyTorch 2.11 (torch/distributed/_symmetric_memory/__init__.py):
        # fused_matmul_reduce_scatter(A, B, reduce_op, scatter_dim,
        # group_name) -> A @ B reduce-scattered along scatter_dim. Older
        # releases need the group enabled for symmetric memory first.
        import torch.distributed._symmetric_memory as symm_mem
        group = dist.group.WORLD.group_name
        if hasattr(symm_mem, "enable_symm_mem_for_group"):
            symm_mem.enable_symm_mem_for_group(group)
        op = torch.ops.symm_mem.fused_matmul_reduce_scatter
        got = op(a, b, "sum", 0, group)
        if tuple(got.shape) != (m // world, n):
            raise RuntimeError(f"result shape {tuple(got.shape)}")
        us = per_iter_us(lambda: op(a, b, "sum", 0, group))
        if rank == 0:
            print(f"torch fused_matmul_reduce_scatter m={m} n={n} k={k}: "
                  f"{us:.1f} us", flush=True)
    except Exception as e:  # report and go on: the other baselines stand
        print(f"torch fused_matmul_reduce_scatter rank {rank} failed: "
              f"{type(e).__name__}: {e}", flush=True)


rank, world = int(os.environ["RANK"]), int(os.environ["WORLD_SIZE"])
torch.cuda.set_device(int(os.environ["LOCAL_RANK"]))
dist.init_process_group("nccl")
torch.manual_seed(rank)
run = {"all_scatter": all_scatter, "reduce_scatter": reduce_scatter}[sys.argv[1]]
for shape in sys.argv[2:]:
    m, n, k = (int(v) for v in shape.split(","))
    try:
        run(m, n, k)
    except Exception as e:
        print(f"torch {sys.argv[1]} m={m} n={n} k={k} rank {rank} failed: "
              f"{type(e).__name__}: {e}", flush=True)
    torch.cuda.empty_cache()
dist.destroy_process_group()
