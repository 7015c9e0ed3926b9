"""The path of a remote access, timed from Python on one GPU: symm.put's
bandwidth into a peer's heap (bench/kernels.mlir's `push`) and a flag's
round trip through a peer's heap (remote_paths.mlir), for one compiled form
of the kernels: `direct` (load/store through the mapped heap, as for the cuda
backend) or `nvshmem` (--remote=nvshmem: NVSHMEM's device calls for every
peer). Rank 0 measures, rank 1 owns the heap written and checks the data:

    symm-run -n 2 --backend nvshmem python3 remote_paths.py DIR FORM

with DIR/bench.FORM.ptx and DIR/remote_paths.FORM.ptx (symm-compile
--target=sm_90 --emit=ptx --remote=FORM). Prints one line:
    remote_paths BACKEND FORM put GB/s flag_round us data ok|FAILED"""

import sys

import torch

import symm

FLOATS = 64 << 20 >> 2   # 64 MiB
BLOCKS, THREADS = 1056, 512
REPS, WARMUP, ROUNDS = 12, 2, 20000
# Puts between the events of one repetition: back to back, so that the
# Python that prepares a launch overlaps the kernel before it instead of
# falling inside the time (one put takes 120-160 us).
PUTS = 20


def timed(run, launches=1):
    """Median milliseconds of one of ``launches`` back-to-back ``run``s on
    the current stream."""
    times = []
    for rep in range(REPS):
        start, stop = (torch.cuda.Event(enable_timing=True) for _ in "ab")
        start.record()
        for _ in range(launches):
            run()
        stop.record()
        stop.synchronize()
        if rep >= WARMUP:
            times.append(start.elapsed_time(stop) / launches)
    return sorted(times)[len(times) // 2]


def main(folder, form):
    symm.init()
    me = symm.rank()
    if symm.world_size() != 2:
        sys.exit("remote_paths: run it on 2 ranks")
    bench = symm.load(f"{folder}/bench.{form}.ptx")
    flags_kernel = symm.load(f"{folder}/remote_paths.{form}.ptx")
    src = symm.empty(FLOATS, dtype="float32")
    dst = symm.zeros(FLOATS, dtype="float32")
    flag = symm.zeros(1, dtype="int32")
    src.copy_(torch.arange(FLOATS, device=src.device) % 1000003)
    # Slices start on 16-byte boundaries, as in bench/bench.cu.
    chunk = FLOATS // BLOCKS & ~3
    stream = torch.cuda.current_stream()
    symm.barrier()
    put_ms = round_ms = 0.0
    if me == 0:
        put_ms = timed(lambda: bench["push"](
            grid=BLOCKS, block=THREADS, args=[src, dst, 1, chunk],
            stream=stream), PUTS)
        round_ms = timed(lambda: flags_kernel["flag_round"](
            grid=1, block=1, args=[flag, 1, ROUNDS], stream=stream))
    torch.cuda.synchronize()
    symm.barrier()
    moved = chunk * BLOCKS
    ok = me == 0 or torch.equal(dst[:moved], src[:moved])
    ok = bool(symm.all_reduce(torch.tensor([int(ok)], dtype=torch.int32,
                                           device=src.device), op="min")[0])
    if me == 0:
        print(f"remote_paths {symm.backend()} {form} put "
              f"{moved * 4 / put_ms / 1e6:.1f} GB/s flag_round "
              f"{round_ms * 1e3 / ROUNDS:.3f} us data "
              f"{'ok' if ok else 'FAILED'}", flush=True)
    for x in (flag, dst, src):
        symm.free(x)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
