"""MoE dispatch/expert/combine the fast PyTorch ways, the baselines of
moe_dispatch_combine: sort the (token, choice) pairs by expert, send each
rank the rows of its experts (per-expert counts exchanged first), group them
per local expert, y = fp16(x * s_e), return them, and out[t] = sum_k w * y
in fp32. Two ways to move the rows:

- torch: all_to_all_single with split sizes each way, read on the host;
- torch_vdev (--vdev): torch.ops.symm_mem.all_to_all_vdev over NVSHMEM,
  whose split sizes stay on the device: no host round trip. Its buffers are
  symmetric, so sized for the most rows a rank may send (T_MAX * K) or
  receive (W times that); the receiver finds its rows' experts on the
  device, and the expert step runs on the whole receive buffer.

    torchrun --nproc-per-node 2 moe_dispatch_combine_torch.py [--vdev] E K H T_MAX [E K H T_MAX ...]

Prints, on rank 0, one line per shape:
    torch|torch_vdev E=.. k=.. H=.. T_max=..: PASS|FAIL err; dispatch X us,
    expert Y us, combine Z us, total T us
(CUDA events around each phase, averaged over the iterations, slowest rank);
with --vdev, one line saying why instead where PyTorch has no NVSHMEM or no
all_to_all_vdev.
"""
import os
import sys

# NVLink multicast stays off: NCCL, torch's symmetric memory and NVSHMEM.
os.environ.update(NCCL_NVLS_ENABLE="0", TORCH_SYMM_MEM_DISABLE_MULTICAST="1",
                  NVSHMEM_DISABLE_NVLS="1")

import torch  # noqa: E402
import torch.distributed as dist  # noqa: E402


def expert(scale, gx, ge):
    return (gx.float() * scale[ge][:, None]).half()


def all_to_all_single(p):
    """dispatch() -> (grouped rows, their experts, what combine needs);
    combine(y, that) -> out."""
    rank, world, local, H, K = p.rank, p.world, p.local, p.H, p.K

    def dispatch():
        flat = p.experts.reshape(-1)
        order = torch.argsort(flat, stable=True)
        send_x = p.x[order // K]
        # Per-expert counts: the receiver learns its rows' experts from them
        # (rows arrive sorted by expert within each source's part).
        send_counts = torch.bincount(flat, minlength=p.E)
        recv_counts = torch.empty_like(send_counts)
        dist.all_to_all_single(recv_counts, send_counts)
        splits = torch.cat([send_counts.view(world, local).sum(1),
                            recv_counts.view(world, local).sum(1)]).tolist()
        ins, outs = splits[:world], splits[world:]
        recv_x = p.x.new_empty(sum(outs), H)
        dist.all_to_all_single(recv_x, send_x, outs, ins)
        local_e = torch.arange(local, device=p.dev).repeat(world)
        recv_e = torch.repeat_interleave(local_e, recv_counts,
                                         output_size=sum(outs))
        group = torch.argsort(recv_e, stable=True)
        return (recv_x[group], recv_e[group] + rank * local,
                (order, ins, outs, group))

    def combine(gy, state):
        order, ins, outs, group = state
        y = torch.empty_like(gy)
        y[group] = gy
        back = p.x.new_empty(sum(ins), H)
        dist.all_to_all_single(back, y, ins, outs)
        return weighted_sum(p, order, back)

    return dispatch, combine


def all_to_all_vdev(p):
    """all_to_all_single's steps with torch.ops.symm_mem.all_to_all_vdev
    (torch 2.11: input, out, in_splits, out_splits_offsets, group_name;
    every tensor symmetric, splits int64 rows of dim 0, out_splits_offsets
    2 x W: rows from each rank, then their offsets in out)."""
    import torch.distributed._symmetric_memory as symm_mem
    rank, world, local, H, K = p.rank, p.world, p.local, p.H, p.K
    group = dist.group.WORLD.group_name
    a2a = torch.ops.symm_mem.all_to_all_vdev

    def symmetric(*shape, dtype=torch.half):
        t = symm_mem.empty(*shape, dtype=dtype, device=p.dev)
        symm_mem.rendezvous(t, group)
        return t

    # Each rank has fewer than T_MAX tokens. Dispatch and combine use
    # different buffers: a rank's next dispatch writes send only after every
    # rank passed combine's split exchange (a barrier), so after every read
    # of its send; likewise for combine's buffers.
    most = p.T_MAX * K
    send, recv = symmetric(most, H), symmetric(world * most, H)
    ret, back = symmetric(world * most, H), symmetric(most, H)
    in_splits = [symmetric(world, dtype=torch.int64) for _ in range(2)]
    out_splits = [symmetric(2, world, dtype=torch.int64) for _ in range(2)]
    rows = torch.arange(world * most, device=p.dev)
    n = p.t * K

    def dispatch():
        flat = p.experts.reshape(-1)
        order = torch.argsort(flat, stable=True)
        torch.index_select(p.x, 0, order // K, out=send[:n])
        # bincount would read its maximum on the host.
        send_counts = torch.zeros(p.E, dtype=torch.int64, device=p.dev)
        send_counts.index_add_(0, flat, torch.ones_like(flat))
        recv_counts = torch.empty_like(send_counts)
        dist.all_to_all_single(recv_counts, send_counts)
        in_splits[0].copy_(send_counts.view(world, local).sum(1))
        a2a(send, recv, in_splits[0], out_splits[0], group)
        # Received row i belongs to part s = source * local + expert; rows
        # past the last part (s = world * local) go last, with expert 0.
        part = torch.searchsorted(recv_counts.cumsum(0), rows, right=True)
        recv_e = part % local
        group_order = torch.argsort(
            torch.where(part < world * local, recv_e, local), stable=True)
        return (recv[group_order], recv_e[group_order] + rank * local,
                (order, group_order))

    def combine(gy, state):
        order, group_order = state
        ret[group_order] = gy
        in_splits[1].copy_(out_splits[0][0])
        a2a(ret, back, in_splits[1], out_splits[1], group)
        return weighted_sum(p, order, back[:n])

    return dispatch, combine


def weighted_sum(p, order, back):
    wf = p.w.reshape(-1)[order][:, None]
    acc = torch.zeros(p.t, p.H, device=p.dev, dtype=torch.float32)
    acc.index_add_(0, order // p.K, back.float() * wf)
    return acc.half()


class Problem:
    """This rank's tokens, choices and weights, and the experts' scales."""

    def __init__(self, E, K, H, T_MAX):
        self.E, self.K, self.H, self.T_MAX = E, K, H, T_MAX
        self.rank, self.world = dist.get_rank(), dist.get_world_size()
        self.local = E // self.world
        self.dev = torch.device("cuda", torch.cuda.current_device())
        g = torch.Generator(device="cpu").manual_seed(1000 + self.rank)
        self.t = int(torch.randint(1, T_MAX, (1,), generator=g))
        self.x = (torch.rand(self.t, H, generator=g) * 2 - 1).half().to(
            self.dev)
        self.experts = torch.rand(self.t, E, generator=g).topk(
            K, dim=1).indices.to(self.dev)
        w = torch.rand(self.t, K, generator=g) + 0.05
        self.w = (w / w.sum(1, keepdim=True)).to(self.dev)
        gs = torch.Generator(device="cpu").manual_seed(7)
        self.scale = (torch.rand(E, generator=gs) + 0.5).to(self.dev)


def run(name, baseline, E, K, H, T_MAX, iters=50, warmup=5):
    p = Problem(E, K, H, T_MAX)
    dispatch, combine = baseline(p)

    def step(events=None):
        if events:
            events[0].record()
        gx, ge, state = dispatch()
        if events:
            events[1].record()
        gy = expert(p.scale, gx, ge)
        if events:
            events[2].record()
        out = combine(gy, state)
        if events:
            events[3].record()
        return out

    out = step()
    y = (p.x.float()[:, None, :] *
         p.scale[p.experts][:, :, None]).half().float()
    ref = (y * p.w[:, :, None]).sum(1)
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
    times = torch.tensor([total] + phases, device=p.dev)
    dist.all_reduce(times, op=dist.ReduceOp.MAX)
    flag = torch.tensor([0 if ok else 1], device=p.dev)
    dist.all_reduce(flag)
    if p.rank == 0:
        tt = times.tolist()
        verdict = "PASS" if int(flag) == 0 else "FAIL"
        print(f"{name} E={E} k={K} H={H} T_max={T_MAX}: {verdict} "
              f"{float(err.max()):.3g}; dispatch {tt[1]:.1f} us, expert "
              f"{tt[2]:.1f} us, combine {tt[3]:.1f} us, total {tt[0]:.1f} us",
              flush=True)


def vdev_missing():
    """Why torch_vdev cannot run here, or None; on success the symmetric
    memory backend is NVSHMEM (set before any symmetric allocation)."""
    try:
        import torch.distributed._symmetric_memory as symm_mem
    except ImportError as e:
        return f"no torch.distributed._symmetric_memory ({e})"
    if not hasattr(torch.ops.symm_mem, "all_to_all_vdev"):
        return f"torch {torch.__version__} has no symm_mem.all_to_all_vdev"
    if not symm_mem.is_nvshmem_available():
        return (f"torch {torch.__version__} has no NVSHMEM (needs a CUDA "
                "build with NVSHMEM and the nvidia-nvshmem wheel)")
    try:
        symm_mem.set_backend("NVSHMEM")
    except Exception as e:  # RuntimeError or AttributeError, by release
        return f"symm_mem.set_backend('NVSHMEM') failed: {e}"
    return None


def main():
    vdev = sys.argv[1:2] == ["--vdev"]
    args = [int(a) for a in sys.argv[1 + vdev:]]
    torch.cuda.set_device(int(os.environ.get("LOCAL_RANK", "0")))
    dist.init_process_group("nccl")
    name, baseline = "torch", all_to_all_single
    if vdev:
        name, baseline = "torch_vdev", all_to_all_vdev
        why = vdev_missing()
        if why is None and any(H % 16 for H in args[2::4]):
            # all_to_all_vdev splits each rank's rows between up to 32
            # blocks, which must divide its bytes.
            why = "H must be a multiple of 16"
        if why is not None:
            if dist.get_rank() == 0:
                print(f"torch_vdev: skipped: {why}", flush=True)
            args = []
    for i in range(0, len(args), 4):
        run(name, baseline, *args[i:i + 4])
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
