"""MoE dispatch/expert/combine the fast PyTorch way, the baseline of
moe_dispatch_combine: sort the (token, choice) pairs by expert, one
all_to_all_single with split sizes each way (per-expert counts exchanged
first, the split sizes read on the host), group per local expert, y = fp16(x * s_e), return, and
out[t] = sum_k w * y in fp32.

    torchrun --nproc-per-node 2 moe_dispatch_combine_torch.py E K H T_MAX [E K H T_MAX ...]

Prints, on rank 0, one line per shape:
    torch E=.. k=.. H=.. T_max=..: PASS|FAIL err; dispatch X us, expert Y us,
    combine Z us, total T us
(CUDA events around each phase, averaged over the iterations, slowest rank).
"""
import os
import sys

import torch
import torch.distributed as dist


def run(E, K, H, T_MAX, iters=50, warmup=5):
    rank, world = dist.get_rank(), dist.get_world_size()
    dev = torch.device("cuda", int(os.environ.get("LOCAL_RANK", rank)))
    g = torch.Generator(device="cpu").manual_seed(1000 + rank)
    t = int(torch.randint(1, T_MAX, (1,), generator=g))
    x = (torch.rand(t, H, generator=g) * 2 - 1).half().to(dev)
    experts = torch.rand(t, E, generator=g).topk(K, dim=1).indices.to(dev)
    w = torch.rand(t, K, generator=g) + 0.05
    w = (w / w.sum(1, keepdim=True)).to(dev)
    gs = torch.Generator(device="cpu").manual_seed(7)
    scale = (torch.rand(E, generator=gs) + 0.5).to(dev)
    local = E // world

    def dispatch():
        flat = experts.reshape(-1)
        order = torch.argsort(flat, stable=True)
        send_x = x[order // K]
        # Per-expert counts: the receiver learns its rows' experts from them
        # (rows arrive sorted by expert within each source's part).
        send_counts = torch.bincount(flat, minlength=E)
        recv_counts = torch.empty_like(send_counts)
        dist.all_to_all_single(recv_counts, send_counts)
        splits = torch.cat([send_counts.view(world, local).sum(1),
                            recv_counts.view(world, local).sum(1)]).tolist()
        ins, outs = splits[:world], splits[world:]
        recv_x = x.new_empty(sum(outs), H)
        dist.all_to_all_single(recv_x, send_x, outs, ins)
        local_e = torch.arange(local, device=dev).repeat(world)
        recv_e = torch.repeat_interleave(local_e, recv_counts,
                                         output_size=sum(outs))
        group = torch.argsort(recv_e, stable=True)
        return order, ins, outs, recv_x[group], recv_e[group] + rank * local, group

    def expert(gx, ge):
        return (gx.float() * scale[ge][:, None]).half()

    def combine(order, ins, outs, gy, group):
        y = torch.empty_like(gy)
        y[group] = gy
        back = x.new_empty(sum(ins), H)
        dist.all_to_all_single(back, y, ins, outs)
        wf = w.reshape(-1)[order][:, None]
        acc = torch.zeros(t, H, device=dev, dtype=torch.float32)
        acc.index_add_(0, order // K, back.float() * wf)
        return acc.half()

    def step(events=None):
        if events:
            events[0].record()
        order, ins, outs, gx, ge, group = dispatch()
        if events:
            events[1].record()
        gy = expert(gx, ge)
        if events:
            events[2].record()
        out = combine(order, ins, outs, gy, group)
        if events:
            events[3].record()
        return out

    out = step()
    y = (x.float()[:, None, :] * scale[experts][:, :, None]).half().float()
    ref = (y * w[:, :, None]).sum(1)
    err = (out.float() - ref).abs()
    ok = bool((err <= 5e-3 + 1e-2 * ref.abs()).all())
    for _ in range(warmup):
        step()
    torch.cuda.synchronize()
    dist.barrier()
    start, end = torch.cuda.Event(True), torch.cuda.Event(True)
    start.record()
    for _ in range(iters):
        step()
    end.record()
    torch.cuda.synchronize()
    total = start.elapsed_time(end) * 1e3 / iters
    phases = [0.0, 0.0, 0.0]
    for _ in range(iters):
        ev = [torch.cuda.Event(True) for _ in range(4)]
        step(ev)
        torch.cuda.synchronize()
        for i in range(3):
            phases[i] += ev[i].elapsed_time(ev[i + 1]) * 1e3 / iters
    times = torch.tensor([total] + phases, device=dev)
    dist.all_reduce(times, op=dist.ReduceOp.MAX)
    flag = torch.tensor([0 if ok else 1], device=dev)
    dist.all_reduce(flag)
    if rank == 0:
        tt = times.tolist()
        verdict = "PASS" if int(flag) == 0 else "FAIL"
        print(f"torch E={E} k={K} H={H} T_max={T_MAX}: {verdict} "
              f"{float(err.max()):.3g}; dispatch {tt[1]:.1f} us, expert "
              f"{tt[2]:.1f} us, combine {tt[3]:.1f} us, total {tt[0]:.1f} us",
              flush=True)


def main():
    args = [int(a) for a in sys.argv[1:]]
    torch.cuda.set_device(int(os.environ.get("LOCAL_RANK", "0")))
    dist.init_process_group("nccl")
    for i in range(0, len(args), 4):
        run(*args[i:i + 4])
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
