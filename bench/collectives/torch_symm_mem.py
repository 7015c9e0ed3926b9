"""All-reduce through PyTorch: NCCL (dist.all_reduce) and symmetric memory's
one_shot_all_reduce / two_shot_all_reduce_, timed like collectives_bench.cu
(device events around back-to-back calls after a warm-up, median of 5), issued
one by one ("stream": host dispatch included) and, up to GRAPH_MAX bytes,
captured once in a CUDA graph that is then launched ("graph"). bf16, sum,
sizes MIN..MAX bytes (powers of 2).

    torchrun --nproc-per-node 2 torch_symm_mem.py [MIN MAX [GRAPH_MAX]] > torch.csv

Prints CSV on rank 0: collective,impl,mode,bytes,us,algbw,busbw (GB/s).
"""
import os
import sys

import torch
import torch.distributed as dist
import torch.distributed._symmetric_memory as symm_mem


def time_calls(call, iters, graph=False):
    # Warm-up on a side stream, as graph capture requires.
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        for _ in range(3):
            call()
    torch.cuda.current_stream().wait_stream(side)
    torch.cuda.synchronize()
    g = None
    if graph:
        g = torch.cuda.CUDAGraph()
        with torch.cuda.graph(g):
            for _ in range(iters):
                call()
        g.replay()
        torch.cuda.synchronize()
    times = []
    for _ in range(5):
        dist.barrier()
        torch.cuda.synchronize()
        start = torch.cuda.Event(enable_timing=True)
        stop = torch.cuda.Event(enable_timing=True)
        start.record()
        if g is not None:
            g.replay()
        else:
            for _ in range(iters):
                call()
        stop.record()
        stop.synchronize()
        times.append(start.elapsed_time(stop) * 1000.0 / iters)
    times.sort()
    return times[len(times) // 2]


def main():
    lo = int(sys.argv[1], 0) if len(sys.argv) > 1 else 8 << 10
    hi = int(sys.argv[2], 0) if len(sys.argv) > 2 else 1 << 30
    graph_max = int(sys.argv[3], 0) if len(sys.argv) > 3 else 64 << 20
    rank = int(os.environ["RANK"])
    torch.cuda.set_device(int(os.environ.get("LOCAL_RANK", rank)))
    dist.init_process_group("nccl")
    world = dist.get_world_size()
    group = dist.group.WORLD.group_name
    dev = torch.device("cuda")
    if rank == 0:
        print("collective,impl,mode,bytes,us,algbw,busbw", flush=True)
    size = lo
    while size <= hi:
        n = size // 2
        iters = 200 if size <= 1 << 20 else 40 if size <= 64 << 20 else 10
        x = ((torch.arange(n, device=dev) * 7 + rank * 13) % 15 - 7).to(torch.bfloat16)
        sym = symm_mem.empty(n, dtype=torch.bfloat16, device=dev)
        symm_mem.rendezvous(sym, group)
        sym.copy_(x)
        want = x.clone()
        dist.all_reduce(want)
        contenders = {
            "torch_nccl": lambda: dist.all_reduce(x),
            "torch_one_shot": lambda: torch.ops.symm_mem.one_shot_all_reduce(sym, "sum", group),
            "torch_two_shot": lambda: torch.ops.symm_mem.two_shot_all_reduce_(sym, "sum", group),
        }
        # Results first (fresh inputs each), then the timings.
        sym.copy_(x)
        got = torch.ops.symm_mem.one_shot_all_reduce(sym, "sum", group)
        ok1 = torch.equal(got, want)
        sym.copy_(x)
        torch.ops.symm_mem.two_shot_all_reduce_(sym, "sum", group)
        ok2 = torch.equal(sym, want)
        if not (ok1 and ok2):
            print(f"rank {rank}: torch symmetric memory differs from NCCL at "
                  f"{size} bytes", file=sys.stderr)
        modes = ("stream", "graph") if size <= graph_max else ("stream",)
        for mode in modes:
            for impl, call in contenders.items():
                try:
                    us = time_calls(call, iters, mode == "graph")
                except Exception as e:  # an op missing, or not capturable
                    if rank == 0:
                        print(f"{impl} ({mode}) at {size} bytes: {e}",
                              file=sys.stderr)
                    continue
                algbw = size / (us * 1e3)
                if rank == 0:
                    print(f"all_reduce,{impl},{mode},{size},{us:.2f},"
                          f"{algbw:.2f},{algbw * 2 * (world - 1) / world:.2f}",
                          flush=True)
        del sym
        size *= 2
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
