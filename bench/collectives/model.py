#!/usr/bin/env python3
# ===- bench/collectives/model.py - Collectives' analytical model -*- Python -*-===#
"""An analytical model of the collectives' time per call, and its check
against every collectives run logged under bench/results/ (python3, stdlib).

    python3 model.py [RESULTS_DIR]          # predicted vs measured, per row
    python3 model.py --choose               # the predicted winner per size

A call's time is built from four figures measured on 2 H200s (DESIGN.md's
reference figures; docs/Collectives.md, "Analytical model", gives the formulas):
launches (`o`), dependent flag steps (`alpha`, one fence + flag hop), the
bytes a GPU stores into its peers over its NVLink (`B` per direction, shared
by all peers, as every GPU reaches every other through the NVSwitches) and
the bytes it moves through its own HBM (`H`). Every formula is per chunk of
the scratch, like the kernels' launches. The rules that chose an algorithm
changed between runs; each run is modelled with the rules of its code.
"""
import argparse
import csv
import math
import os
import re
import sys
from dataclasses import dataclass

KB, MB = 1 << 10, 1 << 20

# DESIGN.md, 2 H200s: empty kernel 3.2-4.4 us (launch and completion as a
# stream sees them), flag ping-pong 1.2 us one way, SM peer stores 364 GB/s.
LAUNCH_STREAM_US = 3.2
# From a graph the host's dispatch is gone: the 2-GPU 8 KB low-latency
# broadcast took 4.1 us from a stream and 2.9 from a graph (1.2 us less).
LAUNCH_GRAPH_US = 2.0
ALPHA_US = 1.2
# A dependent step of the flag protocol (stores, a system-scope fence, the
# flag, the receiver's wait): DESIGN.md has no figure but the hop, so the
# hop it is, unless --step says otherwise (the forced ring's small calls,
# 2 (n - 1) steps each, say what a step costs: see compare()).
STEP_US = ALPHA_US
LINK_BYTES_PER_US = 364e3
# Local traffic (read + written) of a copy or a reduction out of the scratch:
# the attention kernel of flash_decode streams 4.1-4.3 TB/s on one H200.
HBM_BYTES_PER_US = 4.2e6

# The runtime's defaults (Collectives.cpp), as the benchmark runs them.
SCRATCH = 256 * MB  # a 4G heap / 16
DIRECT_MIN = 2 * MB
BYTES_PER_WORKGROUP, MIN_WORKGROUPS, MAX_WORKGROUPS = 8 * KB, 8, 128
PIECE, MAX_PIECES = 64 * KB, 8
# The chain broadcast's pieces per workgroup (one ready flag each); a
# proposed tree would forward pieces of CHAIN_PIECE.
CHAIN_MAX_PIECES, CHAIN_MIN_PIECE = 64, 16 * KB
CHAIN_PIECE = 512 * KB


@dataclass
class Rules:
    """What chose and ran an algorithm in one version of Collectives.cpp."""

    ll: bool = True  # low-latency kernels for small blocks
    ll_per_peer: bool = True  # LL limit 256K / (n - 1), else 256K
    all_peers_at_once: bool = True  # one wait, one fence for all peers
    one_shot_max_2: int = 4 * MB
    one_shot_max: int = 1 * MB
    ring_min_ranks: int = 4  # 0: never by size
    bcast_scatter: bool = True  # from 3 ranks, scatter + all-gather
    rs_pipelined: bool = True


TODAY = Rules()
# Code of each logged run (commit times against the runs' commits).
BEFORE_LL = Rules(ll=False, all_peers_at_once=False, one_shot_max_2=1 * MB,
                  ring_min_ranks=0, bcast_scatter=False, rs_pipelined=False)
RUNS = {
    # 3329cff: before the low-latency kernels and the ring.
    "h200x4-collectives-vs-nccl-before-ll":
        (4, "collectives-symm.csv", BEFORE_LL),
    # a7bbb98 / e70ee15: the first 8-GPU run (two-shot above 1M), then the
    # ring from 8 ranks, still without low-latency kernels.
    "h200x8-collectives-two-shot-and-workloads": (8, "symm.csv", BEFORE_LL),
    "h200x8-collectives-vs-nccl-ring":
        (8, "symm.csv", Rules(**{**BEFORE_LL.__dict__, "ring_min_ranks": 8})),
    # 57f4ad1 was made from this run: two-shot by default, the ring forced.
    "h200x4-collectives-vs-nccl-ring": (4, "symm.csv", BEFORE_LL),
    # 1817f73: low-latency up to 256K, a wait per peer, one-shot up to 1M.
    "h200x2-collectives-vs-nccl-wait-per-peer":
        (2, "symm.csv", Rules(ll_per_peer=False, all_peers_at_once=False,
                              one_shot_max_2=1 * MB, bcast_scatter=False)),
    "h200x2-collectives-workgroups-one-vs-two-shot":
        (2, "symm-256-blocks.csv", Rules(one_shot_max_2=1 * MB)),
    "h200x2-collectives-vs-nccl": (2, "symm.csv", Rules(one_shot_max_2=1 * MB)),
    "h200x4-collectives-vs-nccl": (4, "symm.csv", Rules(one_shot_max_2=1 * MB)),
}
# The forced all-reduce table (graph, 2 GPUs), one column per configuration.
FORCED_TABLE = ("h200x2-collectives-workgroups-one-vs-two-shot",
                "one-shot-two-shot.txt",
                [("one_shot", None), ("two_shot", 2 * MB),
                 ("two_shot", 64 * KB), ("two_shot", 256 * KB)])


def link(nbytes):
    return nbytes / LINK_BYTES_PER_US


def hbm(nbytes):
    return nbytes / HBM_BYTES_PER_US


def chunked(total, cap, per_chunk):
    """Sum of per_chunk(c) over the launches a size takes."""
    t, off = 0.0, 0
    while off < total:
        c = min(cap, total - off)
        t += per_chunk(c)
        off += c
    return t


class Model:
    def __init__(self, n, mode="stream", rules=TODAY, step=None):
        self.n, self.rules = n, rules
        self.step = STEP_US if step is None else step
        self.o = LAUNCH_GRAPH_US if mode == "graph" else LAUNCH_STREAM_US

    def flag(self, steps=1):
        """`steps` dependent flag steps that involve every peer: one wait for
        all of them, or (older code) a wait, a fence and a barrier per peer."""
        per = 1 if self.rules.all_peers_at_once else max(1, self.n - 1)
        return steps * per * self.step

    def ll_max(self):
        if not self.rules.ll or self.n < 2:
            return 0
        return 256 * KB // (self.n - 1) if self.rules.ll_per_peer else 256 * KB

    # All-reduce of S bytes per rank.
    def ll(self, S):
        n = self.n  # tagged words: every byte travels twice
        return self.o + ALPHA_US + link(2 * (n - 1) * S) + hbm(2 * (n - 1) * S + 2 * S)

    def one_shot(self, S):
        n = self.n
        return chunked(S, SCRATCH // n, lambda c: self.o + self.flag()
                       + link((n - 1) * c) + hbm((n + 1) * c))

    def two_shot(self, S, direct_min=DIRECT_MIN):
        n = self.n

        def chunk(c):
            gather = 0 if S >= direct_min else 2 * (n - 1) * c / n
            extra = self.flag() if S >= direct_min else 0  # publish the offsets
            return (self.o + self.flag(2) + extra + link(2 * (n - 1) * c / n)
                    + hbm((n + 1) * c / n + gather))
        return chunked(S, SCRATCH // 2, chunk)

    def ring(self, S):
        n = self.n
        steps = max(1, 2 * (n - 1))
        # The fold is fused with the store to the next rank (one pass), so
        # only the transfers and the flag steps are on the critical path.
        return chunked(S, SCRATCH * n // steps, lambda c: self.o + steps
                       * (self.step + link(c / n)))

    def ll_two_shot(self, S, ll_max=None):
        """SYMM_ALL_REDUCE_ALGO=ll_two_shot: reduce-scatter and all-gather
        phases in tagged words, no fence; a launch per chunk of n segments of
        at most half the low-latency limit (`ll_max`, today's default unless
        given), on one rank two-shot."""
        n = self.n
        ll_max = self.ll_max() if ll_max is None else ll_max
        if n < 2 or ll_max < 32:
            return self.two_shot(S)
        return chunked(S, n * (ll_max // 2), lambda c: self.o + 2 * ALPHA_US
                       + link(4 * (n - 1) * c / n) + hbm(4 * (n - 1) * c / n + 4 * c / n))

    def ll_two_shot_512k(self, S):
        """ll_two_shot with SYMM_COLLECTIVES_LL_MAX=512K: segments of 256K."""
        return self.ll_two_shot(S, 512 * KB)

    # Exchanges of S bytes in all (n blocks of S / n).
    def exchange(self, S):
        n, b = self.n, S // self.n
        if b <= self.ll_max():
            return self.o + ALPHA_US + link(2 * (n - 1) * b) + hbm(4 * (n - 1) * b + 2 * b)
        direct = b >= DIRECT_MIN
        return chunked(b, SCRATCH // n, lambda c: self.o + self.flag(2 if direct else 1)
                       + link((n - 1) * c) + hbm(2 * c if direct else 2 * n * c))

    def reduce_scatter(self, S):
        n, b = self.n, S // self.n
        if b <= self.ll_max():
            return self.o + ALPHA_US + link(2 * (n - 1) * b) + hbm(2 * (n - 1) * b + 2 * b)

        def chunk(c):
            grid = min(MAX_WORKGROUPS, max(MIN_WORKGROUPS, n * c // BYTES_PER_WORKGROUP))
            pieces = min(MAX_PIECES, max(1, c // grid // PIECE)) if self.rules.rs_pipelined else 1
            a, h = link((n - 1) * c), hbm((n + 1) * c)
            overlap = min(a, h) / pieces if pieces > 1 else min(a, h)
            return self.o + self.flag() + max(a, h) + overlap
        return chunked(b, SCRATCH // n, chunk)

    # Broadcast of S bytes from one root.
    def bcast_root(self, S):
        n = self.n
        if S <= self.ll_max():
            return self.o + ALPHA_US + link(2 * (n - 1) * S) + hbm(4 * S)
        direct = S >= DIRECT_MIN
        return chunked(S, SCRATCH // n, lambda c: self.o + self.flag(2 if direct else 1)
                       + link((n - 1) * c) + hbm(0 if direct else 2 * c))

    def bcast_scatter(self, S):
        # The scatter (the root's n - 1 blocks), then the all-gather.
        n, b = self.n, S // self.n
        return 2 * chunked(b, SCRATCH // n, lambda c: self.o + self.flag(2)
                           + link((n - 1) * c) + hbm(2 * c))

    def bcast_chain(self, S):
        """The chain (SYMM_BROADCAST_ALGO=chain): the root streams pieces to
        rank root + 1 and each rank forwards every piece to the next as it
        lands: S / B at the root, then one stage's hop per further rank,
        where a stage is one piece of every workgroup (at least 16 KiB each,
        at most 64 per workgroup) and every piece a fence and a flag."""
        n = self.n
        if n < 2:
            return self.o + hbm(2 * S)

        def chunk(c):
            grid = min(MAX_WORKGROUPS, max(MIN_WORKGROUPS, c // BYTES_PER_WORKGROUP))
            k = min(CHAIN_MAX_PIECES, max(1, c // grid // CHAIN_MIN_PIECE))
            return (self.o + link(c) + (n - 2) * link(c / k) + (n - 1) * self.step
                    + k * ALPHA_US + hbm(c))
        return chunked(S, SCRATCH, chunk)

    def bcast_tree(self, S):
        """Proposed: a pipelined binary tree, log2(n) hops, every inner rank
        sending each piece twice."""
        n = self.n
        d = max(1, math.ceil(math.log2(n)))
        k = max(1, math.ceil(S / CHAIN_PIECE))
        fan = min(2, n - 1)
        return (self.o + fan * link(S) + (d - 1) * fan * link(S / k)
                + d * self.step + hbm(S))

    # What the runtime chooses (by the rules of the model's code).
    def all_reduce_choice(self, S):
        r, n = self.rules, self.n
        limit = r.one_shot_max_2 if n == 2 else r.one_shot_max
        if n <= 1 or S <= limit:
            return "ll" if S <= self.ll_max() else "one_shot"
        if r.ring_min_ranks and n >= r.ring_min_ranks:
            return "ring"
        return "two_shot"

    def broadcast_choice(self, S):
        b = S // self.n
        if self.rules.bcast_scatter and self.n >= 3 and b >= DIRECT_MIN:
            return "scatter_all_gather"
        return "root"

    ALGOS = {
        "all_reduce": {"ll": "ll", "one_shot": "one_shot", "two_shot": "two_shot",
                       "ring": "ring", "ll_two_shot": "ll_two_shot",
                       "ll2_LL512K": "ll_two_shot_512k"},
        "broadcast": {"root": "bcast_root", "scatter_all_gather": "bcast_scatter",
                      "chain": "bcast_chain", "tree*": "bcast_tree"},
    }

    def predict(self, collective, S, algo=None):
        """(algorithm, us) for a collective of S bytes (nccl-tests sizes: the
        larger buffer), the runtime's choice unless `algo` is given."""
        if collective == "all_reduce":
            algo = algo or self.all_reduce_choice(S)
            if algo == "ll" and S > self.ll_max():
                algo = "one_shot"  # a forced ll that does not fit
            return algo, getattr(self, self.ALGOS["all_reduce"][algo])(S)
        if collective == "broadcast":
            algo = algo or self.broadcast_choice(S)
            return algo, getattr(self, self.ALGOS["broadcast"][algo])(S)
        if collective in ("all_gather", "all_to_all"):
            ll = S // self.n <= self.ll_max()
            return ("exchange_ll" if ll else "exchange"), self.exchange(S)
        if collective == "reduce_scatter":
            ll = S // self.n <= self.ll_max()
            return ("reduce_ll" if ll else "reduce_scatter"), self.reduce_scatter(S)
        raise ValueError("unknown collective " + collective)


def logged_rows(results):
    """Every Symm row of every logged collectives run: (run, n, collective,
    impl, mode, bytes, us, rules, forced algorithm, two-shot direct_min)."""
    rows = []
    for run, (n, name, rules) in RUNS.items():
        path = os.path.join(results, run, name)
        with open(path) as f:
            for r in csv.DictReader(f):
                if not r["impl"].startswith("symm"):
                    continue
                forced = r["impl"][len("symm_"):] if r["impl"] != "symm" else None
                rows.append((run, n, r["collective"], r["impl"], r.get("mode") or "stream",
                             int(r["bytes"]), float(r["us"]), rules, forced, DIRECT_MIN))
    run, name, columns = FORCED_TABLE
    with open(os.path.join(results, run, name)) as f:
        for line in f:
            if line.startswith("#") or not line.strip():
                continue
            fields = line.split()
            for (algo, direct_min), us in zip(columns, fields[1:]):
                impl = "symm_%s" % algo + ("" if direct_min is None else
                                          "_direct%dK" % (direct_min // KB))
                rows.append((run + "/" + name, 2, "all_reduce", impl, "graph",
                             int(fields[0]), float(us), TODAY, algo,
                             direct_min or DIRECT_MIN))
    return rows


def size_name(b):
    return "%dG" % (b >> 30) if b >= 1 << 30 else "%dM" % (b >> 20) if b >= MB else "%dK" % (b >> 10)


def fitted_step(rows):
    """The forced ring's calls up to 64K are a launch and 2 (n - 1) steps:
    the median of (measured - o) / (2 (n - 1)) over them, per rank count
    and overall."""
    per = {}
    for _, n, coll, impl, mode, S, us, *_ in rows:
        if impl == "symm_ring" and S <= 64 * KB and n > 1:
            per.setdefault(n, []).append((us - Model(n, mode).o) / (2 * (n - 1)))
    every = sorted(x for v in per.values() for x in v)
    return per, every[len(every) // 2]


def predict_row(row, step):
    run, n, coll, impl, mode, S, us, rules, forced, direct_min = row
    m = Model(n, mode, rules, step)
    if forced and forced.startswith("two_shot"):
        return "two_shot", m.two_shot(S, direct_min)
    return m.predict(coll, S, forced)


def compare(results):
    rows = logged_rows(results)
    per, step = fitted_step(rows)
    print("model: step %.1f us (the flag hop); fitted: step %.1f us (the forced"
          " ring's small calls); ratio = measured / model" % (STEP_US, step))
    print("%-40s %2s %-14s %-25s %-6s %5s %-18s %8s %8s %8s %6s %6s" % (
        "run", "n", "collective", "impl", "mode", "size", "algorithm", "model",
        "fitted", "measured", "ratio", "fitted"))
    ratios = {}
    for row in rows:
        run, n, coll, impl, mode, S, us = row[:7]
        algo, pred = predict_row(row, STEP_US)
        fit = predict_row(row, step)[1]
        r = ratios.setdefault((n, coll, algo), ([], []))
        r[0].append(us / pred)
        r[1].append(us / fit)
        print("%-40s %2d %-14s %-25s %-6s %5s %-18s %8.1f %8.1f %8.1f %6.2f %6.2f" % (
            run, n, coll, impl, mode, size_name(S), algo, pred, fit, us, us / pred,
            us / fit))

    def stats(r):
        g = math.exp(sum(math.log(x) for x in r) / len(r))
        return "%5.2f %5.2f %5.2f" % (g, min(r), max(r))
    print("\nmeasured / model by rank count, collective and algorithm: geometric"
          " mean, min, max (model; fitted), rows")
    for key in sorted(ratios):
        model, fit = ratios[key]
        print("  n=%d %-14s %-18s %s; %s %4d" % (*key, stats(model), stats(fit), len(model)))
    print("\nthe forced ring up to 64K, us per step beyond the launch:")
    for n in sorted(per):
        print("  n=%d %.1f-%.1f us (%d rows)" % (n, min(per[n]), max(per[n]), len(per[n])))
    print("rows: %d logged Symm cases, %d predicted" % (
        len(rows), sum(len(v[0]) for v in ratios.values())))


SIZES = [8 * KB << i for i in range(18)]  # 8 KB .. 1 GB


def nccl_times(results):
    """NCCL's stream-mode times from the latest run on each rank count."""
    latest = {2: "h200x2-collectives-vs-nccl", 4: "h200x4-collectives-vs-nccl",
              8: "h200x8-collectives-vs-nccl-ring"}
    out = {}
    for n, run in latest.items():
        name = RUNS[run][1]
        # The second 8-GPU run starts at 1 MB.
        for extra in (run, "h200x8-collectives-two-shot-and-workloads"):
            if n != 8 and extra != run:
                continue
            with open(os.path.join(results, extra, RUNS[extra][1])) as f:
                for r in csv.DictReader(f):
                    if r["impl"] == "nccl" and (r.get("mode") or "stream") == "stream":
                        out.setdefault((n, r["collective"], int(r["bytes"])), float(r["us"]))
        del name
    return out


def choose(results):
    nccl = nccl_times(results)
    print("step %.1f us; model, stream mode, us per call (* = not implemented); winner; today's choice;"
          " NCCL measured" % STEP_US)
    for coll in ("all_reduce", "broadcast"):
        algos = list(Model.ALGOS[coll])
        for n in (2, 4, 8):
            m = Model(n)
            print("\n%s, %d GPUs" % (coll, n))
            print("%6s " % "size" + " ".join("%12s" % a for a in algos)
                  + " %14s %20s %8s" % ("model winner", "today", "NCCL"))
            for S in SIZES:
                t = {a: m.predict(coll, S, a)[1] for a in algos
                     if not (a == "ll" and S > m.ll_max())}
                best = min(t, key=t.get)
                today, tt = m.predict(coll, S)
                ref = nccl.get((n, coll, S))
                print("%6s " % size_name(S) + " ".join(
                    "%12s" % ("%.1f" % t[a] if a in t else "-") for a in algos)
                    + " %14s %20s %8s" % (best, "%s %.1f" % (today, tt),
                                          "%.1f" % ref if ref else "-"))


def main():
    global STEP_US
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("results", nargs="?",
                    default=os.path.join(here, "..", "results"))
    ap.add_argument("--choose", action="store_true",
                    help="print each algorithm's predicted time and the winner per size")
    ap.add_argument("--step", type=float,
                    help="--choose: us per dependent flag step (default: "
                    "fitted to the forced ring's small calls)")
    args = ap.parse_args()
    if args.step is not None:
        STEP_US = args.step
    # A new run must get its rules here, or the check would silently skip it.
    for run in sorted(os.listdir(args.results)):
        folder = os.path.join(args.results, run)
        if not re.match(r"h200x\d", run) or not os.path.isdir(folder) or run in RUNS:
            continue
        for name in sorted(os.listdir(folder)):
            if name.endswith(".csv"):
                with open(os.path.join(folder, name)) as f:
                    if any(r.get("impl", "").startswith("symm") for r in csv.DictReader(f)):
                        sys.exit("model.py: %s/%s is a collectives run the model has no"
                                 " rules for (add it to RUNS)" % (run, name))
    for run, (_, name, _) in RUNS.items():
        if not os.path.exists(os.path.join(args.results, run, name)):
            sys.exit("model.py: %s has no %s/%s" % (args.results, run, name))
    if args.choose:
        if args.step is None:
            STEP_US = fitted_step(logged_rows(args.results))[1]
        choose(args.results)
    else:
        compare(args.results)


if __name__ == "__main__":
    main()
