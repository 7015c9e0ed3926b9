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
    series = {}
    for r in rows:
        series.setdefault((r["collective"], r["impl"]), {})[r["bytes"]] = r
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        colls = sorted({c for c, _ in series})
        for metric, ylabel, name in (("busbw", "bus bandwidth (GB/s)", "busbw"),
                                     ("us", "time per call (us)", "latency")):
            fig, axes = plt.subplots(1, len(colls), figsize=(5 * len(colls), 4))
            if len(colls) == 1:
                axes = [axes]
            for ax, c in zip(axes, colls):
                for (cc, impl), pts in sorted(series.items()):
                    if cc != c:
                        continue
                    xs = sorted(pts)
                    ax.plot(xs, [pts[x][metric] for x in xs], marker=".", label=impl)
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
    print(f"{'collective':15} {'impl':15} " +
          " ".join(f"{human(s):>17}" for s in sizes))
    for (c, impl), pts in sorted(series.items()):
        cells = []
        for s in sizes:
            r = pts.get(s)
            cells.append(f"{r['us']:9.1f}us {r['busbw']:5.0f}" if r else f"{'-':>17}")
        print(f"{c:15} {impl:15} " + " ".join(cells))
    print("(each cell: time per call, bus bandwidth in GB/s)")


if __name__ == "__main__":
    main()
