"""The gemm baseline: cuBLAS through torch.matmul with PyTorch's default
settings, bf16 in and out (f32 accumulation), on one GPU, at the shapes
given as MxNxK arguments. Timed like the driver's --bench: back-to-back
iterations after warm-up between two synchronisations, host clock, launch
overhead included."""
import sys
import time

import torch


def per_iter_us(step, iters, warmup):
    for _ in range(warmup):
        step()
    torch.cuda.synchronize()
    start = time.perf_counter()
    for _ in range(iters):
        step()
    torch.cuda.synchronize()
    return (time.perf_counter() - start) * 1e6 / iters


for shape in sys.argv[1:]:
    m, n, k = (int(x) for x in shape.split("x"))
    g = torch.Generator(device="cuda").manual_seed(1)
    a = torch.rand(m, k, device="cuda", dtype=torch.bfloat16, generator=g) * 2 - 1
    b = torch.rand(k, n, device="cuda", dtype=torch.bfloat16, generator=g) * 2 - 1
    c = torch.empty(m, n, device="cuda", dtype=torch.bfloat16)
    us = per_iter_us(lambda: torch.matmul(a, b, out=c), iters=50, warmup=10)
    print(f"torch matmul m={m} n={n} k={k}: {us:.2f} us/iter, "
          f"{2 * m * n * k / us * 1e-6:.1f} TFLOP/s", flush=True)
