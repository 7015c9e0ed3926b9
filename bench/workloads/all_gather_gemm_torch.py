"""The all_gather_gemm baselines, run by bench/workloads/all_gather_gemm.sh
under torchrun: what users run today for C = all_gather(A_shard) @ B with A
sharded by rows and B (K x N) on every rank.

  cublas            torch.matmul(A, B) alone, A already gathered
  nccl_all_gather   dist.all_gather_into_tensor(A, A_shard) alone
  nccl+cublas       both, one after the other on one stream
  symm_mem_fused    torch.ops.symm_mem.fused_all_gather_matmul(A_shard, [B],
                    gather_dim=0, group_name=...) (PyTorch's own overlap of
                    the all-gather's chunks with the GEMMs on them)

Usage: all_gather_gemm_torch.py "M,N,K M,N,K ..." (N per rank). Times are
per iteration, like the Symm driver's --bench (torch_timing.py). A failing
baseline prints its error and the others go on.
"""
import os
import sys

import torch
import torch.distributed as dist
import torch_timing

ITERS, WARMUP = 20, 5


def per_iter_us(step):
    return torch_timing.per_iter_us(step, iters=ITERS, warmup=WARMUP)


def fused_baseline(a_shard, b, c_ref, group_name):
    """PyTorch's fused op, per PyTorch 2.11's
    torch/distributed/_symmetric_memory/__init__.py: returns (A, [A @ B])."""
    import torch.distributed._symmetric_memory as symm_mem

    # Older releases need symmetric memory enabled for the group first; the
    # newer ones enable it on demand.
    enable = getattr(symm_mem, "enable_symm_mem_for_group", None)
    if enable is not None:
        enable(group_name)

    def step():
        return torch.ops.symm_mem.fused_all_gather_matmul(
            a_shard, [b], gather_dim=0, group_name=group_name)

    _, outs = step()
    diff = (outs[0].float() - c_ref.float()).abs().max().item()
    return per_iter_us(step), diff


def main():
    rank, world = int(os.environ["RANK"]), int(os.environ["WORLD_SIZE"])
    torch.cuda.set_device(int(os.environ["LOCAL_RANK"]))
    dist.init_process_group("nccl")
    group_name = dist.group.WORLD.group_name
    for shape in sys.argv[1].split():
        m, n, k = (int(v) for v in shape.split(","))
        g = torch.Generator(device="cuda").manual_seed(rank)
        def uniform(*size):
            return (torch.rand(*size, device="cuda", generator=g) * 2 - 1).to(torch.bfloat16)
        a_shard = uniform(m // world, k)
        b = uniform(k, n)
        a = torch.empty(m, k, device="cuda", dtype=torch.bfloat16)
        c = torch.empty(m, n, device="cuda", dtype=torch.bfloat16)

        def gemm():
            torch.matmul(a, b, out=c)

        def gather():
            dist.all_gather_into_tensor(a, a_shard)

        def both():
            dist.all_gather_into_tensor(a, a_shard)
            torch.matmul(a, b, out=c)

        # cuBLAS alone multiplies the gathered A, not the uninitialised
        # buffer (zeros draw less power, and the GEMM runs faster on them).
        gather()
        t_gemm, t_gather, t_both = (per_iter_us(f) for f in (gemm, gather, both))
        both()
        torch.cuda.synchronize()
        try:
            t_fused, diff = fused_baseline(a_shard, b, c, group_name)
            fused = f"symm_mem_fused {t_fused:.2f} us (max |fused - matmul| {diff:.3g})"
        except Exception as e:  # report and go on with the next shape
            fused = f"symm_mem_fused FAILED: {type(e).__name__}: {e}".replace("\n", " ")
        tflops = 2.0 * m * n * k / t_gemm * 1e-6
        if rank == 0:
            print(f"torch m={m} n={n} k={k}: cublas {t_gemm:.2f} us "
                  f"({tflops:.0f} TFLOP/s), nccl_all_gather {t_gather:.2f} us, "
                  f"nccl+cublas {t_both:.2f} us, {fused}", flush=True)
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
