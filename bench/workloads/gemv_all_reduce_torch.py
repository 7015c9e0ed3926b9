"""The PyTorch baseline of gemv_all_reduce: cuBLAS GEMV + NCCL all-reduce, what
a user runs today, timed like the driver's --bench (back-to-back iterations
between a barrier and a synchronisation); with a dump prefix, also checks
the driver's last result against it on the same inputs."""
import os, sys
import torch
import torch.distributed as dist
import torch_timing

def per_iter_us(step):
    return torch_timing.per_iter_us(step, iters=100, warmup=10)

def check(prefix, m, k):
    """Our last result (dumped by the driver) against cuBLAS + NCCL on the
    same inputs, both against the exact sum (float64 GEMV + all-reduce)."""
    kr = k // world
    def load(name, shape):
        data = bytearray(open(f"{prefix}.rank{rank}.{name}.bin", "rb").read())
        return torch.frombuffer(data, dtype=torch.int16).view(torch.bfloat16).view(shape).cuda()
    w, x, y = load("w", (m, kr)), load("x", (kr,)), load("y", (m,))
    ref = torch.mv(w, x)
    dist.all_reduce(ref)
    part = torch.mv(w.double(), x.double())
    rms = part.square().clone()
    exact = part.clone()
    dist.all_reduce(exact)
    dist.all_reduce(rms)
    tol = 0.01 * (rms.sum() / m).sqrt() + 0.01 * exact.abs()
    ok = bool(((y.double() - exact).abs() <= tol).all())
    print(f"torch check rank {rank} m={m} k={k}: {'PASS' if ok else 'FAIL'}: "
          f"max |symm - torch| {(y.double() - ref.double()).abs().max():.3g}, "
          f"max |symm - exact| {(y.double() - exact).abs().max():.3g}, "
          f"max |torch - exact| {(ref.double() - exact).abs().max():.3g}", flush=True)

rank, world = int(os.environ["RANK"]), int(os.environ["WORLD_SIZE"])
torch.cuda.set_device(int(os.environ["LOCAL_RANK"]))
dist.init_process_group("nccl")
k = int(sys.argv[1])
if len(sys.argv) > 3:
    check(sys.argv[3], int(sys.argv[4]), k)
for m in [int(a) for a in sys.argv[2].split()]:
    g = torch.Generator(device="cuda").manual_seed(rank)
    w = torch.rand(m, k // world, device="cuda", dtype=torch.bfloat16, generator=g) - 0.5
    x = torch.rand(k // world, device="cuda", dtype=torch.bfloat16, generator=g) - 0.5
    y = torch.empty(m, device="cuda", dtype=torch.bfloat16)
    def gemv():
        torch.mv(w, x, out=y)
    def reduce():
        dist.all_reduce(y)
    def both():
        torch.mv(w, x, out=y)
        dist.all_reduce(y)
    t = [per_iter_us(f) for f in (gemv, reduce, both)]
    gbs = (m * (k // world) * 2) / t[0] * 1e-3
    if rank == 0:
        print(f"torch m={m} k={k}: cublas_gemv {t[0]:.2f} us ({gbs:.0f} GB/s), "
              f"nccl_all_reduce {t[1]:.2f} us, gemv+all_reduce {t[2]:.2f} us",
              flush=True)
dist.destroy_process_group()
