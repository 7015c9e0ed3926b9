"""Symm's torch operators against PyTorch's own, one GPU per rank:
torch.ops.symm's fused_all_gather_matmul, fused_matmul_reduce_scatter,
one_shot_all_reduce and two_shot_all_reduce_ (symm.torch.register) and
torch.ops.symm_mem's operators of the same names, called with the same
arguments. Shapes: the two matrix products of a tensor-parallel MLP block
(d_model 8192, d_ff 28672 split between the ranks, 1024 and 8192 tokens in
all), and all-reduces of 64 KiB to 4 MiB; bf16 throughout. Each Symm result
is checked against torch's (bf16 tolerances), the fused ones from both of
Symm's forms (a stream's first call takes the collective form). Each
operator is timed with CUDA events around ITERS back-to-back calls after
WARMUP ones (eager) and around ITERS replays of a CUDA graph of one call
(graph); the slowest rank's time counts.

    SYMM_BACKEND=cuda SYMM_HEAP_SIZE=2G torchrun --nproc-per-node N \\
        torch_ops.py [KERNEL_DIR]

KERNEL_DIR (default $SYMM_TORCH_KERNEL_DIR) holds all_gather_gemm.ptx and
gemm_reduce_scatter.ptx with their manifests, and their Hopper kernels
(*_hopper.ptx), which the fused operators run on H100 and H200
(scripts/torch-gpu.sh bundle compiles them all; SYMM_TORCH_VERBOSE=1 prints
each choice); the fused operators' buffers for 8192 tokens take about
1 GiB of Symm's heap. Prints on rank 0 one line per operator, shape and
mode:
    torch_ops OP SHAPE MODE: PASS|FAIL max err E; torch X us, symm Y us
(or the error an operator raised; the others still run), then a markdown
table: op, shape, torch us, symm us, torch/symm.
"""
import os
import sys

# NVLink multicast stays off: NCCL, torch's symmetric memory and NVSHMEM.
os.environ.update(NCCL_NVLS_ENABLE="0", TORCH_SYMM_MEM_DISABLE_MULTICAST="1",
                  NVSHMEM_DISABLE_NVLS="1")

import torch  # noqa: E402
import torch.distributed as dist  # noqa: E402
import torch.distributed._symmetric_memory as symm_mem  # noqa: E402

import symm  # noqa: E402
import symm.torch  # noqa: E402

ITERS, WARMUP = 20, 5
D_MODEL, D_FF = 8192, 28672
TOKENS = (1024, 8192)
ALL_REDUCE_BYTES = (64 << 10, 256 << 10, 1 << 20, 4 << 20)


def randn(*shape, scale=1.0):
    return (torch.randn(*shape, device="cuda") * scale).to(torch.bfloat16)


def all_gather_matmul(tokens, world, group):
    """The block's first product: gather(x) @ this rank's columns of W1,
    x split by rows."""
    a = randn(tokens // world, D_MODEL)
    b = randn(D_MODEL, D_FF // world, scale=D_MODEL ** -0.5)
    return (f"M={tokens} K={D_MODEL} N={D_FF // world}",
            lambda ops: ops.fused_all_gather_matmul(a, [b], 0, group,
                                                    return_A=False)[1][0],
            None)


def matmul_reduce_scatter(tokens, world, group):
    """The block's second product: this rank's rows of the sum over ranks
    of h @ W2, h split by columns and W2 by rows."""
    k = D_FF // world
    a = randn(tokens, k)
    b = randn(k, D_MODEL, scale=D_FF ** -0.5)
    return (f"M={tokens} K={k} N={D_MODEL}",
            lambda ops: ops.fused_matmul_reduce_scatter(a, b, "sum", 0, group),
            None)


def all_reduce(name, nbytes, group):
    """torch's all-reduces take a symmetric input. Its values, multiples of
    1/8 in [-1, 1), have sums over up to 32 ranks that bf16 holds exactly
    in any order; two_shot_all_reduce_ reduces in place, so the check
    restores them before each call."""
    x = symm_mem.empty(nbytes // 2, dtype=torch.bfloat16, device="cuda")
    symm_mem.rendezvous(x, group)
    data = (torch.randint(-8, 8, x.shape, device="cuda") / 8).to(x.dtype)
    x.copy_(data)
    return (f"{nbytes >> 10} KiB",
            lambda ops: getattr(ops, name)(x, "sum", group),
            lambda: x.copy_(data))


def time_us(call, graph, capture):
    """Microseconds per call(), the slowest rank's."""
    step = call
    if graph:
        # Symm's collectives set up a stream's channel on its first call,
        # which a capture cannot: warm up on the capturing stream.
        capture.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(capture):
            for _ in range(WARMUP):
                call()
        captured = torch.cuda.CUDAGraph()
        with torch.cuda.graph(captured, stream=capture):
            call()
        step = captured.replay
    for _ in range(WARMUP):
        step()
    torch.cuda.synchronize()
    dist.barrier()
    start, end = (torch.cuda.Event(enable_timing=True) for _ in "se")
    start.record()
    for _ in range(ITERS):
        step()
    end.record()
    end.synchronize()
    us = torch.tensor([start.elapsed_time(end) * 1e3 / ITERS], device="cuda")
    dist.all_reduce(us, op=dist.ReduceOp.MAX)
    return us.item()


def check(call, reset):
    """Whether Symm's results (two calls: its collective form, then its
    fused one) match torch's on every rank, and the largest error: bf16
    results of f32 sums, within a relative 2^-7 and an absolute 2^-5 (the
    inputs make results of order 1)."""
    def result(ops):
        if reset:
            reset()
        return call(ops).float()

    want = result(torch.ops.symm_mem)
    worst = torch.zeros(2, device="cuda")
    for _ in range(2):
        err = (result(torch.ops.symm) - want).abs()
        worst[0] = torch.maximum(worst[0], err.max())
        worst[1] += (err > 2 ** -5 + 2 ** -7 * want.abs()).sum()
    dist.all_reduce(worst, op=dist.ReduceOp.MAX)
    return bool(worst[1] == 0), float(worst[0])


def compare(op, case, capture, rows):
    shape, call, reset = case
    ok, err = check(call, reset)
    for mode in ("eager", "graph"):
        graph = mode == "graph"
        torch_us = time_us(lambda: call(torch.ops.symm_mem), graph, capture)
        symm_us = time_us(lambda: call(torch.ops.symm), graph, capture)
        rows.append((f"{op}, {mode}", shape, torch_us, symm_us, ok))
        if dist.get_rank() == 0:
            print(f"torch_ops {op} {shape} {mode}: "
                  f"{'PASS' if ok else 'FAIL'} max err {err:.3g}; torch "
                  f"{torch_us:.1f} us, symm {symm_us:.1f} us", flush=True)


def main():
    torch.cuda.set_device(int(os.environ.get("LOCAL_RANK", "0")))
    dist.init_process_group("nccl", device_id=torch.device(
        "cuda", torch.cuda.current_device()))
    symm.init()
    symm.torch.register(kernel_dir=sys.argv[1] if len(sys.argv) > 1 else None)
    world, group = dist.get_world_size(), dist.group.WORLD.group_name
    rank0 = dist.get_rank() == 0
    if rank0:
        print(f"torch_ops: torch {torch.__version__}, {world} x "
              f"{torch.cuda.get_device_name()}, Symm's {symm.backend()} "
              "backend", flush=True)
    torch.manual_seed(dist.get_rank())
    capture = torch.cuda.Stream()
    cases = []
    for tokens in TOKENS:
        cases += [("fused_all_gather_matmul",
                   lambda t=tokens: all_gather_matmul(t, world, group)),
                  ("fused_matmul_reduce_scatter",
                   lambda t=tokens: matmul_reduce_scatter(t, world, group))]
    for name in ("one_shot_all_reduce", "two_shot_all_reduce_"):
        cases += [(name, lambda n=name, b=nbytes: all_reduce(n, b, group))
                  for nbytes in ALL_REDUCE_BYTES]
    rows = []
    for op, make in cases:
        try:
            compare(op, make(), capture, rows)
        except Exception as e:  # report and go on: the others stand
            print(f"torch_ops {op} rank {dist.get_rank()} failed: "
                  f"{type(e).__name__}: {str(e).splitlines()[0]}",
                  flush=True)
        torch.cuda.empty_cache()
    if rank0:
        print("| op | shape | torch us | symm us | torch/symm |")
        print("| --- | --- | --- | --- | --- |")
        for op, shape, torch_us, symm_us, ok in rows:
            ratio = f"{torch_us / symm_us:.2f}x" if ok else "FAIL"
            print(f"| {op} | {shape} | {torch_us:.1f} | {symm_us:.1f} | "
                  f"{ratio} |", flush=True)
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
