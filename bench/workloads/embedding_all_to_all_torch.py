"""The PyTorch baseline of embedding_all_to_all: embedding_bag + NCCL
all_to_all_single, what a user runs today, timed like the driver's --bench
(back-to-back iterations between a barrier and a synchronisation); with a
dump prefix, also checks the driver's last result against it on the same
inputs."""
import os, sys
import torch
import torch.distributed as dist
import torch_timing
import torch.nn.functional as F

def per_iter_us(step):
    return torch_timing.per_iter_us(step, iters=50, warmup=5)

def check(prefix, b, t):
    """Our last result (dumped by the driver) against embedding_bag + NCCL
    all_to_all_single on the same tables and ids."""
    def load(name, dtype, shape):
        data = bytearray(open(f"{prefix}.rank{rank}.{name}.bin", "rb").read())
        return torch.frombuffer(data, dtype=dtype).view(shape).cuda()
    tables = load("tables", torch.float32, (t * rows, dim))
    ids = load("ids", torch.int32, (t, b, bag)).long()
    out = load("out", torch.float32, (b // world, world * t * dim))
    ids = ids + (torch.arange(t, device="cuda") * rows).view(t, 1, 1)
    offsets = torch.arange(0, b * t * bag, bag, device="cuda")
    pooled = F.embedding_bag(ids.permute(1, 0, 2).flatten(), tables, offsets,
                             mode="sum").view(b, t * dim)
    recv = torch.empty_like(pooled)
    dist.all_to_all_single(recv, pooled)
    ref = recv.view(world, b // world, t * dim).transpose(0, 1).reshape(out.shape)
    err = (out - ref).abs()
    ok = bool((err <= 1e-4 + 1e-5 * ref.abs()).all())
    print(f"torch check rank {rank} B={b} T={t}: {'PASS' if ok else 'FAIL'}: "
          f"max |symm - torch| {err.max():.3g}", flush=True)

rank, world = int(os.environ["RANK"]), int(os.environ["WORLD_SIZE"])
torch.cuda.set_device(int(os.environ["LOCAL_RANK"]))
dist.init_process_group("nccl")
rows, dim, bag = int(sys.argv[1]), 128, 32
batches = [int(b) for b in sys.argv[2].split()]
tables = [int(t) for t in sys.argv[3].split()]
if len(sys.argv) > 4:
    check(sys.argv[4], int(sys.argv[5]), int(sys.argv[6]))
for b in batches:
    for t in tables:
        g = torch.Generator(device="cuda").manual_seed(rank)
        weight = torch.rand(t * rows, dim, device="cuda", generator=g) - 0.5
        # Bag-major ids: the pooled rows come out as [bag][table], so rank
        # q's bags are one contiguous block of all_to_all_single's input.
        ids = torch.randint(rows, (b, t, bag), device="cuda", generator=g)
        ids += (torch.arange(t, device="cuda") * rows).view(1, t, 1)
        ids = ids.flatten()
        offsets = torch.arange(0, b * t * bag, bag, device="cuda")
        recv = torch.empty(b, t * dim, device="cuda")
        state = {}
        def pool():
            state["pooled"] = F.embedding_bag(ids, weight, offsets, mode="sum")
        def exchange():
            dist.all_to_all_single(recv, state["pooled"].view(b, t * dim))
        def all_steps():
            pool()
            exchange()
            state["out"] = recv.view(world, b // world, t * dim).transpose(0, 1).contiguous()
        pool()
        times = [per_iter_us(f) for f in (pool, exchange, all_steps)]
        if rank == 0:
            print(f"torch B={b} T={t}: embedding_bag {times[0]:.2f} us, "
                  f"all_to_all {times[1]:.2f} us, total {times[2]:.2f} us",
                  flush=True)
        del weight, ids, offsets, recv, state
        torch.cuda.empty_cache()
dist.destroy_process_group()
