"""The symm package on GPUs (cuda backend), one process per GPU under
torchrun: symmetric tensors and their peers, kernels compiled here for sm_90
launched on them, and every collective checked against torch.distributed
(NCCL) and timed beside it. Prints a table on rank 0; exits non-zero when a
check failed on any rank.

    torchrun --nproc-per-node 2 gpu_test.py KERNEL_DIR
"""

import os
import sys
import time

import torch
import torch.distributed as dist

import symm

rows = []   # (check, ok, detail)


def check(name, ok, detail=""):
    rows.append((name, bool(ok), detail))


def attempt(name, fn):
    """Runs fn (which calls check) and records an exception as a failure."""
    try:
        fn()
    except Exception as e:  # one failed check must not hide the others
        check(name, False, f"{type(e).__name__}: {e}"[:120])


def pattern(rank, shape, dtype):
    n = 1
    for s in shape:
        n *= s
    values = (torch.arange(n, device="cuda") + 3 * rank) % 5 + 1
    if dtype == torch.bool:
        values = values % 2 == 0
    return values.to(dtype).reshape(shape)


def tensors(me, n):
    for name in symm.dtypes:
        t = symm.zeros((4, 8), dtype=name)
        dtype = getattr(torch, name)
        ok = isinstance(t, torch.Tensor) and t.is_cuda and t.dtype == dtype \
            and not t.any()
        t.copy_(pattern(me, (4, 8), dtype))
        torch.cuda.synchronize()
        symm.barrier()
        for r in range(n):
            ok = ok and torch.equal(symm.peer(t, r), pattern(r, (4, 8), dtype))
        symm.barrier()
        symm.free(t)
        check(f"symmetric tensor {name}", ok)
    x = symm.zeros(n, dtype="int64")
    symm.barrier()
    for r in range(n):
        symm.peer(x, r)[me] = me + 10   # a store into a peer GPU's memory
    torch.cuda.synchronize()
    symm.barrier()
    check("stores into peers' tensors",
          torch.equal(x.cpu(), torch.arange(n) + 10))
    symm.barrier()
    symm.free(x)


def kernels(me, n, folder):
    m = symm.load(os.path.join(folder, "kernels.ptx"))
    x = symm.zeros(1000, dtype="float32")
    x.copy_(torch.arange(1000, dtype=torch.float32))
    m["scale"](grid=4, block=256, args=[x, 1000, 2.5])
    symm.synchronize()
    check("kernel scale on a symmetric tensor", torch.equal(
        x.cpu(), torch.arange(1000, dtype=torch.float32) * 2.5))

    buf = symm.zeros(16, dtype="int32")
    symm.barrier()
    m["ring"](block=16, args=[buf])
    symm.barrier()
    check("kernel ring stores into the next GPU",
          bool((buf.cpu() == (me - 1) % n).all()))

    out = torch.zeros(8, dtype=torch.float64, device="cuda")
    m["scalars"](args=[out, True, -128, 2**31 - 1, -2**63, 0.5, 1.0078125,
                       0.25, 1e300])
    symm.synchronize()
    check("kernel scalars (i1..f64, bf16, f16)", out.cpu().tolist() == [
        1, -128, 2**31 - 1, -2**63, 0.5, 1.0078125, 0.25, 1e300])

    # x: a transposed view, every other row (strides (2, 6)); y: every other
    # row from column 4.
    a = torch.arange(48, dtype=torch.float32, device="cuda").reshape(8, 6)
    b = torch.zeros(6, 16, dtype=torch.float32, device="cuda")
    m["add_one"](grid=3, block=8, args=[a.t()[::2], b[::2, 4:12]])
    symm.synchronize()
    check("kernel add_one on strided views",
          torch.equal(b[::2, 4:12], a.t()[::2] + 1))

    i = torch.zeros(4, 4, dtype=torch.int64, device="cuda")
    m["iota"](block=(4, 4), args=[i])
    symm.synchronize()
    check("kernel iota (static shape)",
          torch.equal(i.cpu(), torch.arange(16).reshape(4, 4)))

    c = symm.load(os.path.join(folder, "context_argument.ptx"))
    ident = symm.zeros(3, dtype="int32")
    symm.barrier()
    c["identify"](args=[ident])
    symm.barrier()
    check("kernel with the context as argument",
          ident.cpu().tolist() == [me, n, (me - 1) % n])

    # The fused workload: scale + all-reduce inside one kernel (flags and
    # waits), against torch: a * x then dist.all_reduce.
    gather = symm.zeros((n, 1024), dtype="float32")
    flag = symm.zeros(1, dtype="int32")
    fused = torch.zeros(1024, dtype=torch.float32, device="cuda")
    symm.barrier()
    ok, epoch = True, 0
    for step in range(3):
        epoch += 1
        xs = pattern(me + step, (1024,), torch.float32)
        m["scale_all_reduce"](block=1024, args=[xs, gather, flag, fused, 0.5,
                                                epoch])
        ref = xs * 0.5
        dist.all_reduce(ref)
        ok = ok and torch.equal(fused, ref)
        symm.barrier()

    def fused_call():
        nonlocal epoch
        epoch += 1
        m["scale_all_reduce"](block=1024, args=[xs, gather, flag, fused, 0.5,
                                                epoch])
        symm.barrier()

    def torch_call():
        r = xs * 0.5
        dist.all_reduce(r)
        torch.cuda.synchronize()

    check("fused scale+all_reduce kernel vs torch", ok,
          f"symm {timed(fused_call):.0f} us (incl. barrier), "
          f"torch {timed(torch_call):.0f} us")
    symm.free(flag)
    symm.free(gather)

    errors = []
    for args, kind in (([x.cpu(), 1000, 1.0], ValueError),
                       ([x[::2], 500, 1.0], ValueError),
                       ([x, 1000], TypeError)):
        try:
            m["scale"](args=args)
            errors.append("no error")
        except kind as e:
            errors.append(str(e))
    check("kernel argument errors", all(e.startswith("kernel 'scale'")
                                        for e in errors), errors[0][:80])
    symm.barrier()
    for t in (x, buf, ident):
        symm.free(t)


def timed(fn, iterations=20):
    fn()
    torch.cuda.synchronize()
    start = time.perf_counter()
    for _ in range(iterations):
        fn()
    torch.cuda.synchronize()
    return (time.perf_counter() - start) / iterations * 1e6


def versus(symm_fn, nccl_fn):
    """Both calls timed, for the table."""
    return f"symm {timed(symm_fn):.0f} us, nccl {timed(nccl_fn):.0f} us"


def collectives(me, n):
    ops = {"sum": dist.ReduceOp.SUM, "max": dist.ReduceOp.MAX,
           "min": dist.ReduceOp.MIN, "prod": dist.ReduceOp.PRODUCT}
    for count in (2048, 1 << 24):
        for name in ("float32", "bfloat16", "float16", "int32", "int64",
                     "int8"):
            dtype = getattr(torch, name)
            a = pattern(me, (count,), dtype)
            big = count > 2048 and name in ("float32", "bfloat16")
            for op in (("sum", "max", "min", "prod") if name == "float32"
                       else ("sum", "max")):
                def run(op=op):
                    ours = symm.all_reduce(a, op=op)
                    ref = a.clone()
                    dist.all_reduce(ref, op=ops[op])
                    ok = torch.equal(ours, ref)  # before timing reuses them
                    detail = ""
                    if big and op == "sum":
                        detail = versus(
                            lambda: symm.all_reduce(a, out=ours, sync=False),
                            lambda: dist.all_reduce(ref))
                    check(f"all_reduce {op} {name} x{count}", ok, detail)
                attempt(f"all_reduce {op} {name} x{count}", run)

            def gather():
                ours = symm.all_gather(a)
                ref = torch.empty(n * count, dtype=dtype, device="cuda")
                dist.all_gather_into_tensor(ref, a)
                ok = torch.equal(ours, ref)
                detail = ""
                if big:
                    detail = versus(
                        lambda: symm.all_gather(a, out=ours, sync=False),
                        lambda: dist.all_gather_into_tensor(ref, a))
                check(f"all_gather {name} x{count}", ok, detail)
            attempt(f"all_gather {name} x{count}", gather)

            def scatter():
                ours = symm.reduce_scatter(a)
                ref = torch.empty(count // n, dtype=dtype, device="cuda")
                dist.reduce_scatter_tensor(ref, a)
                ok = torch.equal(ours, ref)
                detail = ""
                if big:
                    detail = versus(
                        lambda: symm.reduce_scatter(a, out=ours, sync=False),
                        lambda: dist.reduce_scatter_tensor(ref, a))
                check(f"reduce_scatter {name} x{count}", ok, detail)
            attempt(f"reduce_scatter {name} x{count}", scatter)

            def to_all():
                ours = symm.all_to_all(a)
                ref = torch.empty_like(a)
                dist.all_to_all_single(ref, a)
                ok = torch.equal(ours, ref)
                detail = ""
                if big:
                    detail = versus(
                        lambda: symm.all_to_all(a, out=ours, sync=False),
                        lambda: dist.all_to_all_single(ref, a))
                check(f"all_to_all {name} x{count}", ok, detail)
            attempt(f"all_to_all {name} x{count}", to_all)

            def bcast():
                root = n - 1
                ours = symm.broadcast(a, root=root)
                ref = a.clone()
                dist.broadcast(ref, src=root)
                check(f"broadcast {name} x{count}", torch.equal(ours, ref))
            attempt(f"broadcast {name} x{count}", bcast)

    def in_place():
        x = symm.empty(4096, dtype="float32")
        x.copy_(pattern(me, (4096,), torch.float32))
        ref = x.clone()
        symm.all_reduce(x, out=x)
        dist.all_reduce(ref)
        check("all_reduce in place on a symmetric tensor", torch.equal(x, ref))
        symm.free(x)
    attempt("all_reduce in place on a symmetric tensor", in_place)


def main():
    folder = sys.argv[1] if len(sys.argv) > 1 else "."
    symm.init()
    me, n = symm.rank(), symm.world_size()
    check(f"init: rank {me} of {n}, backend {symm.backend()}",
          symm.backend() == "cuda")
    first = symm.zeros(1, dtype="float32")   # sets torch's device to the rank's
    dist.init_process_group("nccl", device_id=first.device)
    attempt("symmetric tensors", lambda: tensors(me, n))
    attempt("kernels", lambda: kernels(me, n, folder))
    attempt("collectives", lambda: collectives(me, n))
    symm.free(first)

    failed = torch.tensor([sum(not ok for _, ok, _ in rows)], device="cuda")
    dist.all_reduce(failed)
    if me == 0:
        width = max(len(name) for name, _, _ in rows)
        print(f"{'check':<{width}}  result  detail")
        for name, ok, detail in rows:
            print(f"{name:<{width}}  {'ok' if ok else 'FAILED':<6}  {detail}")
        print(f"python gpu test: {len(rows)} checks on rank 0, "
              f"{int(failed.item())} failed on all ranks")
    dist.destroy_process_group()
    symm.finalize()
    sys.exit(1 if failed.item() else 0)


if __name__ == "__main__":
    main()
