"""How the workloads' PyTorch baselines are timed: like the drivers' --bench,
back-to-back iterations between a barrier and a synchronisation, host clock,
launch overhead included."""
import time

import torch
import torch.distributed as dist


def per_iter_us(step, iters, warmup):
    """Microseconds per call of step() after warmup calls."""
    for _ in range(warmup):
        step()
    torch.cuda.synchronize()
    dist.barrier()
    start = time.perf_counter()
    for _ in range(iters):
        step()
    torch.cuda.synchronize()
    return (time.perf_counter() - start) * 1e6 / iters
