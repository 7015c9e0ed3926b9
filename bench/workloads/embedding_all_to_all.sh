#!/usr/bin/env bash
# embedding_all_to_all on the GPUs, beside embedding_bag + NCCL all-to-all.
#
# Here (after scripts/setup.sh):
#   bench/workloads/embedding_all_to_all.sh bundle [DIR]  # default .device-workloads
# builds into DIR the driver, its kernels as sm_90 PTX, symm-run, the
# runtime and the PyTorch baseline.
#
# There (2x H200, CUDA 13, PyTorch with NCCL; no LLVM), from the repository:
#   bench/workloads/embedding_all_to_all.sh gpu [DIR]
# checks both variants (PASS on both ranks) and times them for B = 256, 1024,
# 4096 x T = 16, 64, 256 tables per rank (D = 128, L = 32, 4096 rows per
# table), compares the fused result at the first shape with embedding_bag +
# NCCL on the same tables and ids, then times torch (F.embedding_bag, all_to_all_single, the permute
# that puts a bag's slices side by side), and prints a table last. Logs go
# to $OUT (the device machine's output folder) or DIR/results. A failing
# step is reported and the rest goes on.
set -uo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
source "$HERE/common.sh"
BATCHES="${SYMM_EMB_BATCHES:-256 1024 4096}"
TABLES="${SYMM_EMB_TABLES:-16 64 256}"
ROWS=4096

if [[ $MODE == bundle ]]; then
  set -e
  bundle_workload embedding_all_to_all "$HERE/embedding_all_to_all.sh" \
    "$HERE/common.sh"
  # The baseline: what a user runs today, timed like the driver's --bench
  # (back-to-back iterations between a barrier and a synchronisation).
  cat > "$DIR/embedding_all_to_all_torch.py" <<'EOF'
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
EOF
  echo "bundle in $DIR ($(du -sh "$DIR" | cut -f1))"
  exit 0
fi

start_gpu_run embedding_all_to_all
# The first shape's inputs and fused result, for the comparison with torch.
DUMP="$(mktemp -d)"
DUMP_B="${BATCHES%% *}" DUMP_T="${TABLES%% *}"
trap 'rm -rf "$DUMP"' EXIT
for b in $BATCHES; do
  for t in $TABLES; do
    echo "== embedding_all_to_all B=$b T=$t: check and time bulk_sync, fused"
    dump=()
    [[ $b == "$DUMP_B" && $t == "$DUMP_T" ]] && dump=(--dump="$DUMP/emb")
    timeout 90 ./symm-run -n "$N" --backend "$BACKEND" --timeout 80 --heap-size 4G \
      ./embedding_all_to_all --variant=bulk_sync,fused --batch="$b" \
      --tables="$t" --rows=$ROWS --bench --iters=50 \
      ${dump[@]+"${dump[@]}"} >> "$LOG" 2>&1 ||
      echo "FAILED: embedding_all_to_all B=$b T=$t (exit $?)" | tee -a "$LOG"
  done
done
echo "== torch: fused B=$DUMP_B T=$DUMP_T against embedding_bag + NCCL; embedding_bag + NCCL all_to_all_single"
timeout 150 torchrun --nproc-per-node "$N" --master-port "${MASTER_PORT:-29542}" \
  embedding_all_to_all_torch.py $ROWS "$BATCHES" "$TABLES" "$DUMP/emb" \
  "$DUMP_B" "$DUMP_T" >> "$LOG" \
  2> "$RESULTS/embedding_torch.err" ||
  { echo "FAILED: torch baseline"; tail -5 "$RESULTS/embedding_torch.err"; }
grep -E "FAIL|: rank [0-9]+: |torch check" "$LOG" | head -10

echo "== summary (us per iteration, rank 0; ratio = torch total / fused)"
python3 - "$LOG" <<'EOF'
import re, sys
symm, torch, passes = {}, {}, {}
for line in open(sys.argv[1]):
    m = re.search(r"\[rank 0\] embedding_all_to_all (\w+) B=(\d+) T=(\d+) .*grid=\d+: ([\d.]+) us/iter", line)
    if m:
        symm[(int(m[2]), int(m[3]), m[1])] = float(m[4])
    m = re.search(r"embedding_all_to_all (\w+) B=(\d+) T=(\d+) .*: (PASS|FAIL)", line)
    if m:
        passes.setdefault((int(m[2]), int(m[3]), m[1]), set()).add(m[4])
    m = re.search(r"torch B=(\d+) T=(\d+): embedding_bag ([\d.]+) us, all_to_all ([\d.]+) us, total ([\d.]+) us", line)
    if m:
        torch[(int(m[1]), int(m[2]))] = [float(m[i]) for i in (3, 4, 5)]
print(f"{'B':>5} {'T':>4} {'bulk_sync':>10} {'fused':>9} {'torch bag':>10} {'torch a2a':>10} {'torch total':>12} {'ratio':>6} check")
for b, t in sorted({(k[0], k[1]) for k in symm} | set(torch)):
    bs, fu, tt = symm.get((b, t, "bulk_sync")), symm.get((b, t, "fused")), torch.get((b, t))
    f = lambda v: f"{v:.1f}" if v is not None else "-"
    ratio = f"{tt[2] / fu:.2f}" if tt and fu else "-"
    ok = all(passes.get((b, t, v)) == {"PASS"} for v in ("bulk_sync", "fused"))
    print(f"{b:>5} {t:>4} {f(bs):>10} {f(fu):>9} {f(tt and tt[0]):>10} {f(tt and tt[1]):>10} {f(tt and tt[2]):>12} {ratio:>6} {'PASS' if ok else 'FAIL/missing'}")
EOF
