"""Reads the benchmark CSVs, prints the summary table and, when matplotlib is
installed, writes collectives-busbw.png and collectives-latency.png.

    python3 plot.py OUTDIR symm.csv torch.csv
"""
import csv
import os
import sys


def load(paths):
    rows = []
    for p in paths:
        if os.path.exists(p):
            with open(p) as f:
                rows += [r for r in csv.DictReader(f) if r.get("collective")]
    for r in rows:
        r["bytes"] = int(r["bytes"])
        for k in ("us", "algbw", "busbw"):
            r[k] = float(r[k])
    return rows


def human(b):
    for unit in ("B", "KB", "MB", "GB"):
        if b < 1024:
            return f"{b}{unit}"
        b //= 1024
    return f"{b}TB"


def main():
    out, paths = sys.argv[1], sys.argv[2:]
    rows = load(paths)
    # Rows of older runs have no mode: they were issued one by one.
    series = {}
    for r in rows:
        key = (r["collective"], r["impl"], r.get("mode") or "stream")
        series.setdefault(key, {})[r["bytes"]] = r
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        colls = sorted({c for c, _, _ in series})
        for metric, ylabel, name in (("busbw", "bus bandwidth (GB/s)", "busbw"),
                                     ("us", "time per call (us)", "latency")):
            fig, axes = plt.subplots(1, len(colls), figsize=(5 * len(colls), 4))
            if len(colls) == 1:
                axes = [axes]
            for ax, c in zip(axes, colls):
                colors = {}
                for (cc, impl, mode), pts in sorted(series.items()):
                    if cc != c:
                        continue
                    xs = sorted(pts)
                    # One color per contender; graph-launched calls dashed.
                    line, = ax.plot(xs, [pts[x][metric] for x in xs], marker=".",
                                    linestyle="--" if mode == "graph" else "-",
                                    color=colors.get(impl),
                                    label=f"{impl} ({mode})")
                    colors[impl] = line.get_color()
                ax.set_xscale("log", base=2)
                if metric == "us":
                    ax.set_yscale("log")
                ax.set_title(c)
                ax.set_xlabel("bytes")
                ax.set_ylabel(ylabel)
                ax.legend()
            fig.tight_layout()
            fig.savefig(os.path.join(out, f"collectives-{name}.png"), dpi=110)
        print(f"plots: {out}/collectives-busbw.png, {out}/collectives-latency.png")
    except ImportError:
        print("matplotlib not installed: no plots")
    # The table: chosen sizes, every contender, time and busbw.
    sizes = [8 << 10, 1 << 20, 256 << 20, 1 << 30]
    print(f"{'collective':15} {'impl':15} {'mode':6} " +
          " ".join(f"{human(s):>17}" for s in sizes))
    for (c, impl, mode), pts in sorted(series.items()):
        cells = []
        for s in sizes:
            r = pts.get(s)
            cells.append(f"{r['us']:9.1f}us {r['busbw']:5.0f}" if r else f"{'-':>17}")
        print(f"{c:15} {impl:15} {mode:6} " + " ".join(cells))
    print("(each cell: time per call, bus bandwidth in GB/s)")
    # Against the baselines, in each mode: busbw over NCCL's, and for
    # all-reduce the time over the best torch symmetric-memory time.
    for mode in ("stream", "graph"):
        print(f"{'collective':15} {'symm/nccl busbw':>17} {mode:6} " +
              " ".join(f"{human(s):>7}" for s in sizes))
        # Symm's forced algorithms (symm_ring) get a row each, named.
        for c, impl, m in sorted(k for k in series if k[1].startswith("symm")):
            if m != mode:
                continue
            mine = series[(c, impl, m)]
            nccl = series.get((c, "nccl", m), {})
            cells = [f"{mine[s]['busbw'] / nccl[s]['busbw']:7.2f}"
                     if s in mine and s in nccl and nccl[s]["busbw"]
                     else f"{'-':>7}" for s in sizes]
            label = impl[len("symm_"):] if impl != "symm" else ""
            print(f"{c:15} {label:>17} {'':6} " + " ".join(cells))
        one, two = (series.get(("all_reduce", k, mode), {})
                    for k in ("torch_one_shot", "torch_two_shot"))
        mine = series.get(("all_reduce", "symm", mode), {})
        small = sorted(s for s in mine
                       if s <= 1 << 20 and (s in one or s in two))
        if small:
            print(f"all_reduce symm time / best torch symmetric memory time "
                  f"({mode}): " +
                  " ".join(f"{human(s)} {mine[s]['us'] / min(r[s]['us'] for r in (one, two) if s in r):.2f}"
                           for s in small))


if __name__ == "__main__":
    main()
